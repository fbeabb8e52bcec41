package fleet

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/pgfunc/migrate"
)

// Unread names why the server's shards were not read, as pg status --map
// prints it: CLONE (ErrClone), UNIDENTIFIED (ErrUnidentified), STANDBY
// (ErrStandby) or UNREACHABLE; "" when they were read.
func (s ServerStatus) Unread() string {
	switch {
	case s.Err == nil:
		return ""
	case errors.Is(s.Err, ErrClone):
		return "CLONE"
	case errors.Is(s.Err, ErrUnidentified):
		return "UNIDENTIFIED"
	case errors.Is(s.Err, ErrStandby):
		return "STANDBY"
	}
	return "UNREACHABLE"
}

// Verdict is the state of one mapped shard, as pg status --map prints it:
// "ok", "missing", "OUTDATED: applied by an older shardid" or "DIFFERS
// from the map", then "; ALSO IN db.schema" for each copy elsewhere on the
// server and "; AHEAD of the clock by D, past its lead". Bad is set for
// anything but ok before the lead (missing, outdated, different, copied);
// Ahead for a counter past its lead.
func Verdict(st migrate.Status) (state string, bad, ahead bool) {
	state = "missing"
	if st.Installed != nil {
		state = "ok"
		switch {
		case st.Outdated:
			state = "OUTDATED: applied by an older shardid"
		case !st.Matches:
			state = "DIFFERS from the map"
		}
	}
	for _, e := range st.Elsewhere {
		state += fmt.Sprintf("; ALSO IN %s.%s", e.Database, e.Schema)
	}
	bad = state != "ok"
	if ahead = st.PastLead(); ahead {
		state += fmt.Sprintf("; AHEAD of the clock by %s, past its lead", st.Ahead.Round(time.Millisecond))
	}
	return state, bad, ahead
}

// StatusCount adds up a map's status (Map.Status) by Verdict and Unread.
type StatusCount struct {
	// Bad counts the shards missing, outdated, different from the map or
	// copied.
	Bad int
	// Unread counts the shards of servers not read.
	Unread int
	// Ahead counts the counters past their lead.
	Ahead int
	// Closed lists, per server with any, "server: db1, db2": the
	// databases the role could not read.
	Closed []string
}

// CountStatus adds up ss.
func CountStatus(ss []ServerStatus) StatusCount {
	var c StatusCount
	for _, s := range ss {
		if len(s.Census.Closed) > 0 {
			c.Closed = append(c.Closed, fmt.Sprintf("%s: %s", s.Server.Name, strings.Join(s.Census.Closed, ", ")))
		}
		if s.Err != nil {
			c.Unread += len(s.Server.Shards)
			continue
		}
		for _, st := range s.Shards {
			_, bad, ahead := Verdict(st)
			if bad {
				c.Bad++
			}
			if ahead {
				c.Ahead++
			}
		}
	}
	return c
}
