package pgfunc

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shardid/shardid/internal/words"
)

// ErrSomeFailed is the error of a batch run (pg up, down, grant) some of
// whose shards failed; each failure has been printed on its own line.
var ErrSomeFailed = errors.New("some shards failed (each line says why); the others' results stand: mend what the failures name, then rerun for the rest")

// Tally counts the results of one batch run as they come, for shardid
// pg up ("applied"), pg down ("removed") and pg grant ("granted" to
// Role): Add gives each result's progress line, WriteText the summary.
type Tally struct {
	// Shards is how many shards the run was given.
	Shards int
	// Verb says what a change is: applied, removed or granted.
	Verb string
	// Role, set by pg grant, is the role granted to: every shard that
	// went through counts as granted, whatever its Note.
	Role string
	// Done, Changed and Failed count the results added: all of them,
	// those that changed something and those with an error.
	Done, Changed, Failed int
	// Took is how long the run took (the caller sets it at the end).
	Took time.Duration
}

// Progress is one result of a run as its line shows it: the N-th of
// Total, in State (FAILED and the error when it has one).
type Progress struct {
	// N and Total say where the result stands in the run.
	N, Total int
	// State is what the line says of it: Result.Note, or the run's verb
	// when it changed something without a note.
	State string
	// Result is the shard's result.
	Result Result
}

// Add counts r and returns its progress line.
func (t *Tally) Add(r Result) Progress {
	t.Done++
	state := r.Note
	switch {
	case r.Err != nil:
		t.Failed++
	case t.Role != "":
		t.Changed++
		state = t.Verb
	case r.Applied:
		t.Changed++
		if state == "" { // "upgraded": an earlier body replaced in place
			state = t.Verb
		}
	}
	return Progress{N: t.Done, Total: t.Shards, State: state, Result: r}
}

// Err is ErrSomeFailed when some result had an error, else nil.
func (t Tally) Err() error {
	if t.Failed > 0 {
		return ErrSomeFailed
	}
	return nil
}

// WriteText writes p as shardid pg up, down and grant print each shard:
// its place in the run, its state, schema, shard id and time, and, when
// it failed, FAILED and the error on the same line. The error may quote a
// server's message: a caller that knows secrets scrubs the line.
func (p Progress) WriteText(w io.Writer) error {
	r, state := p.Result, p.State
	if r.Err != nil {
		state = "FAILED"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%*d/%d] %-7s %-20s shard %-5d %6.1fms", len(fmt.Sprint(p.Total)), p.N, p.Total, state, r.Shard.Schema, r.Shard.ID,
		float64(r.Duration.Microseconds())/1000)
	if r.Err != nil {
		b.WriteString("  " + words.OneLine(r.Err.Error()))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes the summary line shardid pg up, down and grant end
// with: how many shards, changed, unchanged (grant: granted to the role)
// and failed, and how long it took.
func (t Tally) WriteText(w io.Writer) error {
	shards := words.Plural(t.Shards, "shard", "shards")
	took := t.Took.Round(time.Millisecond)
	var s string
	if t.Role != "" {
		s = fmt.Sprintf("%d %s: %d granted to %s, %d failed (%s)\n", t.Shards, shards, t.Shards-t.Failed, t.Role, t.Failed, took)
	} else {
		s = fmt.Sprintf("%d %s: %d %s, %d unchanged, %d failed (%s)\n", t.Shards, shards, t.Changed, t.Verb, t.Shards-t.Changed-t.Failed, t.Failed, took)
	}
	_, err := io.WriteString(w, s)
	return err
}

// ProgressRow is one shard of the --json document of shardid pg up, down
// and grant.
type ProgressRow struct {
	Schema string  `json:"schema"`
	Shard  int64   `json:"shard"`
	State  string  `json:"state"` // applied, removed, upgraded, granted, current, …, or failed
	MS     float64 `json:"ms"`
	Error  string  `json:"error,omitempty"`
}

// Row is p as a row of that document: its State, or failed with the
// error's text as the error gives it (a caller printing it scrubs
// passwords from it).
func (p Progress) Row() ProgressRow {
	r := p.Result
	row := ProgressRow{Schema: r.Shard.Schema, Shard: r.Shard.ID, State: p.State, MS: float64(r.Duration.Microseconds()) / 1000}
	if r.Err != nil {
		row.State, row.Error = "failed", r.Err.Error()
	}
	return row
}

// Totals are the run's totals in that document: shards, the verb's count
// (applied, removed, granted), unchanged, failed and took.
func (t Tally) Totals() map[string]any {
	return map[string]any{"shards": t.Shards, t.Verb: t.Changed, "unchanged": t.Shards - t.Changed - t.Failed,
		"failed": t.Failed, "took": fmt.Sprint(t.Took.Round(time.Millisecond))}
}
