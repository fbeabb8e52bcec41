package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/tickets"
)

// statusServer is what tickets status read from one server.
type statusServer struct {
	name     string
	set      tickets.ServerSettings
	rows     []tickets.ClassRow
	hasClass bool
	err      error
}

func runTicketsStatus(ctx context.Context, env *cliEnv, args []string) (err error) {
	fs := newFlagSet(env, "tickets status")
	var f serverFlags
	f.register(fs)
	asJSON := jsonFlag(fs)
	timeout := fs.Duration("timeout", 5*time.Second, "give up on a server that has not answered by then")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("tickets status: unexpected argument %q", fs.Arg(0))
	}
	if *timeout <= 0 {
		return usagef("--timeout: %s is out of range (allowed: more than 0)", *timeout)
	}
	servers, closeAll, err := f.open(fs)
	if err != nil {
		return err
	}
	defer closeAll()
	env, rep := startReport(env, *asJSON, "tickets status")
	defer func() { err = rep.finish(env, err) }()
	got := make([]statusServer, len(servers))
	var read []tickets.ServerSettings
	var rows [][]tickets.ClassRow
	var failed []string
	var top int64 // the furthest counter of a table server
	// Every record first, then every counter: a counter read before a
	// record that clients wrote meanwhile could look below it.
	for i, s := range servers {
		rctx, cancel := context.WithTimeout(ctx, *timeout)
		g := &got[i]
		g.name = s.Name
		g.rows, g.err = tickets.ReadClass(rctx, s.DB, f.name)
		if g.err != nil {
			g.err = fmt.Errorf("%w%s", g.err, timedOut(rctx, *timeout))
		}
		cancel()
		g.hasClass = g.err == nil
		if errors.Is(g.err, tickets.ErrNoClassTable) {
			g.err = nil
		}
	}
	for i, s := range servers {
		g := &got[i]
		if g.err == nil {
			rctx, cancel := context.WithTimeout(ctx, *timeout)
			g.set, g.err = tickets.Read(rctx, s.DB, f.name)
			if g.err != nil {
				g.err = fmt.Errorf("%w%s", g.err, timedOut(rctx, *timeout))
			}
			cancel()
		}
		if g.err != nil {
			failed = append(failed, s.Name)
			continue
		}
		g.set.Server = s.Name
		read, rows = append(read, g.set), append(rows, g.rows)
	}
	class := map[int64]tickets.ClassRow{}
	for _, r := range tickets.MergeClass(rows...) {
		class[r.Offset] = r
	}
	for _, g := range got {
		if g.err == nil && !tickets.Resumed(g.set, class[g.set.Offset]) && g.set.Kind == tickets.KindTable {
			top = max(top, g.set.Last)
		}
	}
	// BEHIND is measured against the servers no resume moved ahead.
	fmt.Fprintf(env.stdout, "%-40s %-8s %-9s %-6s %-20s %-20s %s\n", "SERVER", "KIND", "INCREMENT", "OFFSET", "LAST", "RECORDED", "BEHIND")
	var notes, wentBack []string
	for _, g := range got {
		if g.err != nil {
			fmt.Fprintf(env.stdout, "%-40s %s\n", g.name, env.line(g.err.Error()))
			rep.row(ticketsRow{Server: g.name, Error: env.line(g.err.Error())})
			continue
		}
		row := class[g.set.Offset]
		last, behind, recorded := "-", "-", "-"
		switch {
		case g.set.Kind == tickets.KindTable:
			last, behind = fmt.Sprint(g.set.Last), fmt.Sprint(max(top-g.set.Last, 0)/g.set.Increment)
		case g.set.LastKnown: // a sequence: the most it may have handed out, its instances' caches included
			last = fmt.Sprintf("<=%d", g.set.Last)
		}
		if row.Seen > 0 {
			recorded = fmt.Sprint(row.Seen)
		}
		fmt.Fprintf(env.stdout, "%-40s %-8s %-9d %-6d %-20s %-20s %s\n", g.name, g.set.Kind, g.set.Increment, g.set.Offset, last, recorded, behind)
		rep.row(ticketsRowOf(g.name, g.set, row, top))
		who := fmt.Sprintf("%s (offset %d)", g.name, g.set.Offset)
		resume := fmt.Sprintf("shardid tickets resume --offset %d", g.set.Offset)
		switch {
		case row.Pending():
			notes = append(notes, fmt.Sprintf("%s went back: %s; not resumed, so clients leave it out (%s)", who, rewindSeen(row), resume))
			wentBack = append(wentBack, who)
		case g.set.Kind == tickets.KindTable && row.Seen > 0 && row.Seen > g.set.Last:
			notes = append(notes, fmt.Sprintf("%s stands at %d, below %d, the highest ticket clients recorded from it: its data went back (%s)", who, g.set.Last, row.Seen, resume))
			wentBack = append(wentBack, who)
		case g.set.Kind == tickets.KindSequence && g.set.LastKnown && row.Seen > g.set.Last:
			notes = append(notes, fmt.Sprintf("%s is a sequence that has handed out at most %d, below %d, the highest ticket clients recorded from it: its data went back (%s)", who, g.set.Last, row.Seen, resume))
			wentBack = append(wentBack, who)
		case row.Rewinds > 0:
			notes = append(notes, fmt.Sprintf("%s: last rewind seen: %s; resumed to %d at %s", who, rewindSeen(row), row.ResumedTo, stamp(row.ResumedAt)))
		}
		if lag := (top - g.set.Last) / g.set.Increment; g.set.Kind == tickets.KindTable && lag > tickets.DefaultMaxLag && row.Seen <= g.set.Last {
			notes = append(notes, fmt.Sprintf("%s is %d tickets behind the furthest server of %s: down for a while, or its data went back past what clients recorded?", who, lag, f.name))
		}
		if !g.hasClass {
			notes = append(notes, fmt.Sprintf("%s has no class table %s this role may see (rerun shardid tickets up with the same settings; a role that draws needs SELECT, INSERT, UPDATE on it): rewinds are not recorded there", g.name, tickets.ClassTable(f.name)))
		}
	}
	for _, n := range notes {
		fmt.Fprintln(env.stdout, env.line(n))
		rep.note(env.line(n))
	}
	rep.total("servers", len(read))
	if err := tickets.Check(read); err != nil {
		return err
	}
	switch {
	case len(wentBack) > 0:
		return fmt.Errorf("%d of %d %s went back and %s not resumed: %s", len(wentBack), len(servers), plural(len(servers), "server", "servers"), plural(len(wentBack), "is", "are"), strings.Join(wentBack, ", "))
	case len(failed) > 0:
		return fmt.Errorf("%d of %d %s could not be read: %s", len(failed), len(servers), plural(len(servers), "server", "servers"), strings.Join(failed, ", "))
	}
	fmt.Fprintf(env.stdout, "%d %s, increment %d, no two in one class, none went back\n", len(read), plural(len(read), "server", "servers"), read[0].Increment)
	return nil
}

// rewindSeen describes the last rewind a class row records.
func rewindSeen(r tickets.ClassRow) string {
	return fmt.Sprintf("its counter was back at %d, not above %d (reported %s by %s)", r.RewoundGot, r.RewoundHigh, stamp(r.RewoundAt), r.RewoundBy)
}
