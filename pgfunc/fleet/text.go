package fleet

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shardid/shardid/internal/words"
)

// Line is the line `shardid pg up|down|grant --map` prints, off a
// terminal, for e as it finishes: verb (applied, removed, granted) names a
// shard changed; a failure carries its error on the same line.
func (e Event) Line(verb string) string {
	r := e.Result
	state := r.Note
	switch {
	case r.Err != nil:
		state = "FAILED"
	case r.Applied:
		state = verb
	}
	line := fmt.Sprintf("%s %-8s %-20s shard %-5d %6.1fms", e.Server, state, r.Shard.Schema, r.Shard.ID, float64(r.Duration.Microseconds())/1000)
	if r.Err != nil {
		line += "  " + words.OneLine(r.Err.Error())
	}
	return line
}

// OpSummary is the end of a run of Up, Down or Grant over a map: the
// servers' results, what a changed shard was (Verb: applied, removed,
// granted) and how long the whole run took.
type OpSummary struct {
	Verb    string
	Results []ServerResult
	Took    time.Duration
}

// WriteText writes the summary `shardid pg up|down|grant --map` prints
// after its progress: a blank line, a table of the servers, the first
// error of each server with failures, and the count of servers.
func (s OpSummary) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SERVER\tADDRESS\tSHARDS\t%s\tUNCHANGED\tFAILED\tTIME\n", strings.ToUpper(s.Verb))
	var why []string // per server with failures: its first error
	for _, sr := range s.Results {
		changed, f := sr.Changed(), sr.Failed()
		if serverErr := sr.FirstErr(); serverErr != nil {
			why = append(why, fmt.Sprintf("%s: %d %s failed; the first: %s\n", sr.Server.Name, f, words.Plural(f, "shard", "shards"), words.OneLine(serverErr.Error())))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", sr.Server.Name, sr.Server.Address, len(sr.Results), changed,
			len(sr.Results)-changed-f, f, sr.Duration.Round(time.Millisecond))
	}
	tw.Flush()
	b.WriteString(strings.Join(why, ""))
	fmt.Fprintf(&b, "%d %s in %s\n", len(s.Results), words.Plural(len(s.Results), "server", "servers"), s.Took.Round(time.Millisecond))
	_, err := io.WriteString(w, b.String())
	return err
}

// Err is the error of a run with failed shards (the first named), nil
// when none failed.
func (s OpSummary) Err() error {
	failed := 0
	var firstErr error
	for _, sr := range s.Results {
		failed += sr.Failed()
		firstErr = cmp.Or(firstErr, sr.FirstErr())
	}
	if failed > 0 {
		return fmt.Errorf("%d %s failed (first: %v); mend what the failures name, then rerun for the rest", failed, words.Plural(failed, "shard", "shards"), firstErr)
	}
	return nil
}

// StatusTable is a map's status (Map.Status), as `shardid pg status --map`
// prints it.
type StatusTable []ServerStatus

// WriteText writes the table of `shardid pg status --map`: every mapped
// shard's state, server by server (one line for a server not read), then
// a line per server with databases the role could not read.
func (t StatusTable) WriteText(w io.Writer) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSCHEMA\tSHARD\tVERSION\tMODE\tSTATE")
	for _, ss := range t {
		if what := ss.Unread(); what != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%s (%d %s not read): %s\n", ss.Server.Name, what, len(ss.Server.Shards), words.Plural(len(ss.Server.Shards), "shard", "shards"), words.OneLine(ss.Err.Error()))
			continue
		}
		for _, st := range ss.Shards {
			state, _, _ := Verdict(st)
			mode := "-"
			if st.Installed != nil {
				mode = string(st.Installed.Mode)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", ss.Server.Name, st.Shard.Schema, st.Shard.ID, st.Version, mode, state)
		}
	}
	tw.Flush()
	for _, line := range CountStatus(t).Closed {
		fmt.Fprintf(&b, "NOT READ on server %s (no CONNECT privilege, or connections not allowed): a copy of a shard there would go unseen\n", line)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Err is why a map's status is not all well, nil when it is: databases
// not read, shards missing, outdated, different or copied, servers not
// read, counters ahead of their lead, the first that applies.
func (c StatusCount) Err() error {
	closed, bad, unread, ahead := c.Closed, c.Bad, c.Unread, c.Ahead
	switch {
	case len(closed) > 0:
		return fmt.Errorf("databases of %d %s could not be read (listed above); grant CONNECT to prove no copy of a shard is there", len(closed), words.Plural(len(closed), "server", "servers"))
	case bad > 0 && unread > 0:
		return fmt.Errorf("%d %s missing, outdated, different from the map or copied, and %d on servers not read (unreachable, clones or standbys: see shardid pg verify)", bad, words.Plural(bad, "shard is", "shards are"), unread)
	case bad > 0:
		return fmt.Errorf("%d %s missing, outdated, different from the map or copied (see shardid pg verify)", bad, words.Plural(bad, "shard is", "shards are"))
	case unread > 0:
		return fmt.Errorf("%d %s on servers not read (unreachable, clones or standbys, listed above)", unread, words.Plural(unread, "shard", "shards"))
	case ahead > 0:
		return fmt.Errorf("%d %s further ahead of the clock than %s lead (AHEAD above)", ahead, words.Plural(ahead, "counter stands", "counters stand"), words.Plural(ahead, "its", "their"))
	}
	return nil
}

// WriteText writes the text of `shardid pg verify`: a table of the
// servers, a blank line, a line per problem, and, when there is none, the
// OK line.
func (rep Report) WriteText(w io.Writer) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tADDRESS\tDATABASES\tGENERATORS\tNOT READ")
	for _, s := range rep.Servers {
		closed := strings.Join(s.Closed, ",")
		if s.Error != "" {
			closed = "everything: " + words.OneLine(s.Error)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", s.Name, s.Address, s.Databases, s.Generators, closed)
	}
	tw.Flush()
	b.WriteString("\n")
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "%-11s %s\n", strings.ToUpper(p.Kind), words.OneLine(p.Message))
	}
	if rep.OK {
		fmt.Fprintf(&b, "OK: %d %s on %d %s, each in one schema on one server, with the map's generator (%s)\n",
			rep.Shards, words.Plural(rep.Shards, "shard", "shards"), len(rep.Servers), words.Plural(len(rep.Servers), "server", "servers"), rep.Took.Round(time.Millisecond))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Err is the error of a Verify that found problems, nil when OK.
func (rep Report) Err() error {
	if !rep.OK {
		return fmt.Errorf("the servers break the shard map in %d %s", len(rep.Problems), words.Plural(len(rep.Problems), "place", "places"))
	}
	return nil
}

// WriteText writes the line `shardid pg resume --map` prints for an entry
// that reaches the running server of an earlier one (SameAs), nothing for
// others: why nothing moved on a server, its Err, is the line of a
// resume.ServerError.
func (sr ServerResumed) WriteText(w io.Writer) error {
	if sr.SameAs == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "same     %s: reaches the running server of %s, whose run moved its counters\n", sr.Server.Name, sr.SameAs)
	return err
}

// Rows are the servers checked: the rows of the --json document of
// shardid pg verify.
func (r Report) Rows() []any {
	rows := make([]any, len(r.Servers))
	for i, s := range r.Servers {
		rows[i] = s
	}
	return rows
}

// Totals are the document's totals: shards, servers, problems and took.
func (r Report) Totals() map[string]any {
	return map[string]any{"shards": r.Shards, "servers": len(r.Servers), "problems": len(r.Problems), "took": r.Took.Round(time.Millisecond).String()}
}

// ProblemLines are the problems, one line each, its kind (a Problem…
// constant) before its message: the document's problems.
func (r Report) ProblemLines() []string {
	lines := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		lines[i] = p.Kind + ": " + p.Message
	}
	return lines
}
