package resume

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
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
	// Lead is Options.Lead of the run, which the header names (not in
	// the JSON document).
	Lead time.Duration `json:"-"`
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

// Scope says which counters a pg resume run looks at: every mapped
// server's with mapPath, the shards of shards on the DSN's database, or
// every generator of the DSN's server.
func Scope(mapPath, shards string) string {
	switch {
	case mapPath != "":
		return "every generator of every database of every server of the map " + mapPath
	case shards != "":
		return "shards " + shards + " in the database of the DSN"
	}
	return "every generator of every database of the server (kept counters included)"
}

// WriteHeader writes the first line `shardid pg resume` prints, once the
// servers are known to be reachable: whether the run is a dry run, its
// Scope and how far the counters move.
func (rep *Report) WriteHeader(w io.Writer) error {
	how := "moving counters"
	if rep.DryRun {
		how = "dry run: nothing moves; --apply moves the counters"
	}
	target := fmt.Sprintf("the clock plus %s (--lead) or each generator's own lead, whichever is larger", rep.Lead)
	if !rep.After.IsZero() {
		target = words.Stamp(rep.After) + " (--after)"
	}
	_, err := io.WriteString(w, fmt.Sprintf("pg resume (%s): %s, past %s\n", how, rep.Scope, target))
	return err
}

// WriteText writes the summary `shardid pg resume` prints after its
// lines: the counts by state, the shards without a generator and the
// databases not read, and in a dry run that moves something, how to
// move it.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	n := len(rep.Counters) - rep.Missing
	moved := "moved"
	if rep.DryRun {
		moved = "would move"
	}
	fmt.Fprintf(&b, "%d %s: %d %s, %d already past, %d not taking part, %d failed", n, words.Plural(n, "counter", "counters"), rep.Moved, moved, rep.Current, rep.Skipped, rep.Failed)
	if rep.Missing > 0 {
		fmt.Fprintf(&b, "; %d %s without a generator", rep.Missing, words.Plural(rep.Missing, "shard asked for", "shards asked for"))
	}
	if len(rep.Databases) > 0 {
		fmt.Fprintf(&b, "; %d %s not read", len(rep.Databases), words.Plural(len(rep.Databases), "database", "databases"))
	}
	fmt.Fprintf(&b, " (%s)\n", rep.Took)
	if rep.DryRun && rep.Moved > 0 {
		b.WriteString("dry run: nothing moved; run again with --apply, before writers draw, to move them\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Err is the error of a run that could not move everything (NotMoved),
// nil when it could.
func (rep *Report) Err() error {
	if n := rep.NotMoved(); n > 0 {
		return fmt.Errorf("%d %s not moved (each line says why); the others' moves stand: mend what the failures name, then rerun (resume only ever moves counters forward)",
			n, words.Plural(n, "counter, database or server was", "counters, databases or servers were"))
	}
	return nil
}

// WriteText writes the line `shardid pg resume --map` prints for a
// server where nothing moved.
func (e ServerError) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, "FAILED   "+e.Server+": "+e.Error+"\n")
	return err
}

// Line is the line `shardid pg resume` prints for r, a counter of server
// (the map's name, "" without a map): where it is, its State and what
// moved, or why not.
func (r Resumed) Line(server string) string {
	where := r.Schema
	if r.Database != "" {
		where = r.Database + "." + where
	}
	if r.Retired {
		where += " (kept by down)"
	}
	if r.Node != "" { // a Citus node's counter
		where += " on " + r.Node
	}
	if server != "" {
		where = server + " " + where
	}
	state := r.State()
	var what string
	switch state {
	case "missing":
		return fmt.Sprintf("%-8s %-28s shard %-5s %s", "MISSING", where, shardID(r.Shard), strings.TrimPrefix(r.Note, "MISSING: "))
	case "failed":
		if errors.Is(r.Err, ErrDatabaseNotRead) {
			return fmt.Sprintf("FAILED   %s", words.OneLine(r.Err.Error()))
		}
		what = words.OneLine(r.Err.Error())
	case "moved":
		move, wait := "moved", "draws wait"
		if r.DryRun {
			move, wait = "would move", "draws would wait"
		}
		what = fmt.Sprintf("counter %s past %s (%s)", move, words.Stamp(r.Past), r.counterTime(r.From))
		if !r.Until.IsZero() && r.Until.After(time.Now().Add(time.Second)) && !strings.Contains(r.Note, "until the clock reaches") {
			what += fmt.Sprintf("; %s until %s", wait, words.Stamp(r.Until))
		}
	case "current":
		what = fmt.Sprintf("counter already past %s (%s)", words.Stamp(r.Past), r.counterTime(r.From))
	default:
		what = r.Note
	}
	label := state
	switch {
	case state == "failed":
		label = "FAILED"
	case state == "moved" && r.DryRun:
		label = "would"
	}
	line := fmt.Sprintf("%-8s %-28s shard %-5s %s", label, where, shardID(r.Shard), what)
	if r.Note != "" && state != "skipped" {
		line += "; " + r.Note
	}
	return line
}

// counterTime says where counter value v stood: the start of its tick.
func (r Resumed) counterTime(v int64) string {
	if v < 0 {
		return "never drawn from"
	}
	l := r.Meta.LayoutOf()
	return "it stood at " + words.Stamp(l.TickTime(v>>l.SeqBits))
}

// shardID writes a shard id, "?" when it is not known (-1: a counter
// whose metadata cannot be read, or not shardid's).
func shardID(id int64) string {
	if id < 0 {
		return "?"
	}
	return fmt.Sprint(id)
}

// Rows are the counters: the rows of the --json document of shardid pg
// resume.
func (r Report) Rows() []any {
	rows := make([]any, len(r.Counters))
	for i, c := range r.Counters {
		rows[i] = c
	}
	return rows
}

// Totals are the document's totals: the scope, whether it was a dry run,
// the instant counters moved past (when given), the counts by state and
// how long it took.
func (r Report) Totals() map[string]any {
	t := map[string]any{"scope": r.Scope, "dry_run": r.DryRun, "missing": r.Missing, "moved": r.Moved, "already_past": r.Current,
		"not_taking_part": r.Skipped, "failed": r.Failed, "took": r.Took}
	if !r.After.IsZero() {
		t["after"] = r.After
	}
	return t
}

// ProblemLines are the servers and databases where nothing was read or
// moved, one line each: the document's problems.
func (r Report) ProblemLines() []string {
	var lines []string
	for _, s := range r.Servers {
		lines = append(lines, s.Server+": "+s.Error)
	}
	for _, d := range r.Databases {
		lines = append(lines, strings.TrimPrefix(d.Server+": ", ": ")+"database "+d.Database+": "+d.Error)
	}
	return lines
}
