package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/tickets"
)

func runTicketsStatus(ctx context.Context, env *cliEnv, args []string) (err error) {
	fs := newFlagSet(env, "tickets status")
	var f serverFlags
	f.register(fs)
	asJSON := jsonFlag(fs)
	timeout := fs.Duration("timeout", 5*time.Second, "give up on a server that has not answered by then")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
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
	got, top := tickets.Survey(ctx, servers, f.name, *timeout)
	var read []tickets.ServerSettings
	var failed []string
	// BEHIND is measured against the servers no resume moved ahead.
	fmt.Fprintf(env.stdout, "%-40s %-8s %-9s %-6s %-20s %-20s %s\n", "SERVER", "KIND", "INCREMENT", "OFFSET", "LAST", "RECORDED", "BEHIND")
	var notes, wentBack []string
	for _, g := range got {
		if g.Err != nil {
			msg := g.Err.Error()
			if g.TimedOut {
				msg += timedOutText(*timeout)
			}
			fmt.Fprintf(env.stdout, "%-40s %s\n", g.Name, env.line(msg))
			rep.row(ticketsRow{Server: g.Name, Error: env.line(msg)})
			failed = append(failed, g.Name)
			continue
		}
		row, set := g.Class, g.Settings
		read = append(read, set)
		last, behind, recorded := "-", "-", "-"
		switch {
		case set.Kind == tickets.KindTable:
			last, behind = fmt.Sprint(set.Last), fmt.Sprint(g.Behind)
		case set.LastKnown: // a sequence: the most it may have handed out, its instances' caches included
			last = fmt.Sprintf("<=%d", set.Last)
		}
		if row.Seen > 0 {
			recorded = fmt.Sprint(row.Seen)
		}
		fmt.Fprintf(env.stdout, "%-40s %-8s %-9d %-6d %-20s %-20s %s\n", g.Name, set.Kind, set.Increment, set.Offset, last, recorded, behind)
		rep.row(g.Row(top))
		who := fmt.Sprintf("%s (offset %d)", g.Name, set.Offset)
		resume := fmt.Sprintf("shardid tickets resume --offset %d", set.Offset)
		switch {
		case row.Pending():
			notes = append(notes, fmt.Sprintf("%s went back: %s; not resumed, so clients leave it out (%s)", who, rewindSeen(row), resume))
			wentBack = append(wentBack, who)
		case set.Kind == tickets.KindTable && row.Seen > 0 && row.Seen > set.Last:
			notes = append(notes, fmt.Sprintf("%s stands at %d, below %d, the highest ticket clients recorded from it: its data went back (%s)", who, set.Last, row.Seen, resume))
			wentBack = append(wentBack, who)
		case set.Kind == tickets.KindSequence && set.LastKnown && row.Seen > set.Last:
			notes = append(notes, fmt.Sprintf("%s is a sequence that has handed out at most %d, below %d, the highest ticket clients recorded from it: its data went back (%s)", who, set.Last, row.Seen, resume))
			wentBack = append(wentBack, who)
		case row.Rewinds > 0:
			notes = append(notes, fmt.Sprintf("%s: last rewind seen: %s; resumed to %d at %s", who, rewindSeen(row), row.ResumedTo, stamp(row.ResumedAt)))
		}
		if g.Lagging() {
			notes = append(notes, fmt.Sprintf("%s is %d tickets behind the furthest server of %s: down for a while, or its data went back past what clients recorded?", who, g.Behind, f.name))
		}
		if !g.HasClass {
			notes = append(notes, fmt.Sprintf("%s has no class table %s this role may see (rerun shardid tickets up with the same settings; a role that draws needs SELECT, INSERT, UPDATE on it): rewinds are not recorded there", g.Name, tickets.ClassTable(f.name)))
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
		return fmt.Errorf("%d of %d %s went back and %s not resumed: %s", len(wentBack), len(servers), words.Plural(len(servers), "server", "servers"), words.Plural(len(wentBack), "is", "are"), strings.Join(wentBack, ", "))
	case len(failed) > 0:
		return fmt.Errorf("%d of %d %s could not be read: %s", len(failed), len(servers), words.Plural(len(servers), "server", "servers"), strings.Join(failed, ", "))
	}
	fmt.Fprintf(env.stdout, "%d %s, increment %d, no two in one class, none went back\n", len(read), words.Plural(len(read), "server", "servers"), read[0].Increment)
	return nil
}

// rewindSeen describes the last rewind a class row records.
func rewindSeen(r tickets.ClassRow) string {
	return fmt.Sprintf("its counter was back at %d, not above %d (reported %s by %s)", r.RewoundGot, r.RewoundHigh, stamp(r.RewoundAt), r.RewoundBy)
}
