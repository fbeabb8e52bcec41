package resume

import (
	"cmp"
	"slices"
	"time"

	"github.com/shardid/shardid/internal/words"
)

// State names what happened to a counter: failed, missing (a shard asked
// for without one), moved (in a dry run: would move), skipped (did not
// take part, Note says why) or current (already past).
func (r Resumed) State() string {
	switch {
	case r.Err != nil:
		return "failed"
	case r.Missing:
		return "missing"
	case r.Moved:
		return "moved"
	case r.Past.IsZero():
		return "skipped"
	}
	return "current"
}

// Report is the outcome of a resume over one server or a map, as `shardid
// pg resume --json` prints it: every counter (Add), the servers and
// databases where nothing was read or moved, and the counts by State.
type Report struct {
	DryRun   bool          `json:"dry_run"`
	Scope    string        `json:"scope"`
	After    time.Time     `json:"after,omitzero"`
	Counters []Counter     `json:"counters"`
	Servers  []ServerError `json:"server_errors,omitempty"`
	// Databases are the databases whose counters were not read.
	Databases []DatabaseError `json:"database_errors,omitempty"`
	Missing   int             `json:"missing"`
	Moved     int             `json:"moved"`
	Current   int             `json:"already_past"`
	Skipped   int             `json:"not_taking_part"`
	Failed    int             `json:"failed"`
	Took      string          `json:"took"`
}

// Counter is one counter of a Report: a Resumed, its error as one line.
type Counter struct {
	Server   string    `json:"server,omitempty"`
	Database string    `json:"database,omitempty"`
	Node     string    `json:"citus_node,omitempty"`
	Schema   string    `json:"schema,omitempty"`
	Shard    int64     `json:"shard"`
	Retired  bool      `json:"retired,omitempty"`
	Mode     string    `json:"mode,omitempty"`
	State    string    `json:"state"` // Resumed.State
	Past     time.Time `json:"past,omitzero"`
	Until    time.Time `json:"draws_wait_until,omitzero"`
	From     int64     `json:"from"`
	To       int64     `json:"to"`
	Note     string    `json:"note,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// ServerError is a server of a map where nothing moved.
type ServerError struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

// DatabaseError is a database of a server whose counters were not read.
type DatabaseError struct {
	Server   string `json:"server,omitempty"`
	Database string `json:"database"`
	Error    string `json:"error"`
}

// Add records r, a counter of server (the map's name, "" without a map):
// a counter, or a database not read (no schema, no node, an error).
func (rep *Report) Add(server string, r Resumed) {
	msg := ""
	if r.Err != nil {
		msg = words.OneLine(r.Err.Error())
	}
	if r.Schema == "" && r.Node == "" && r.Err != nil {
		rep.Databases = append(rep.Databases, DatabaseError{Server: server, Database: r.Database, Error: msg})
		return
	}
	c := Counter{Server: server, Database: r.Database, Node: r.Node, Schema: r.Schema, Shard: r.Shard, Retired: r.Retired, Mode: string(r.Mode),
		State: r.State(), Past: r.Past, Until: r.Until, From: r.From, To: r.To, Note: r.Note, Error: msg}
	switch c.State {
	case "failed":
		rep.Failed++
	case "moved":
		rep.Moved++
	case "skipped":
		rep.Skipped++
	case "missing":
		rep.Missing++
	default:
		rep.Current++
	}
	rep.Counters = append(rep.Counters, c)
}

// Finish sorts the counters by server, database and schema and sets Took
// to the time since start.
func (rep *Report) Finish(start time.Time) {
	rep.Took = time.Since(start).Round(time.Millisecond).String()
	slices.SortStableFunc(rep.Counters, func(a, b Counter) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Database, b.Database), cmp.Compare(a.Schema, b.Schema))
	})
}

// NotMoved counts what the run could not move: counters that failed,
// databases not read, servers where nothing moved.
func (rep *Report) NotMoved() int { return rep.Failed + len(rep.Servers) + len(rep.Databases) }
