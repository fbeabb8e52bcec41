package explain

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
)

// plan renders text (no server needed).
func plan(t *testing.T, text string) *tidb.Plan {
	t.Helper()
	s, err := script.ParseScript(text, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// twelve is twelve tables with the same hotspot and the same change.
func twelve() string {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "CREATE TABLE t%d (id BIGINT AUTO_INCREMENT PRIMARY KEY, at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, KEY by_at (at));\n", i)
	}
	return b.String()
}

// TestChoicesWriteText: a line per table under the header, then the notes
// grouped (one example each, the tables the others are about, a count
// line) or, with AllNotes, every one under its table; a nil plan writes
// nothing.
func TestChoicesWriteText(t *testing.T) {
	p := plan(t, twelve())
	var b bytes.Buffer
	if err := (Choices{Plan: p}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[0], "table  strategy") || !strings.HasPrefix(lines[1], "t0 ") || !strings.Contains(lines[1], "auto-random") {
		t.Errorf("header and first table:\n%s", b.String())
	}
	for _, want := range []string{
		"warning ×12: t0: index by_at leads with at, which defaults to the current time",
		"[also t1, t2, t3, t4, t5, t6, … (5 more)]",
		"changed ×12: t0: AUTO_INCREMENT on id replaced",
		"\n36 notes in 3 kinds, one example each: --notes all prints every one\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("grouped notes lack %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := (Choices{Plan: p, AllNotes: true}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "warning: index by_at"); n != 12 || strings.Contains(b.String(), "notes in") {
		t.Errorf("AllNotes: %d warnings, want 12, and no count line:\n%s", n, b.String())
	}
	// The second cost of a kind points at the first table's explanation.
	if !strings.Contains(b.String(), "; as for t0 above") {
		t.Errorf("AllNotes: costs not shortened:\n%s", b.String())
	}
	b.Reset()
	if err := (Choices{}).WriteText(&b); err != nil || b.Len() != 0 {
		t.Errorf("nil plan: %q, %v", b.String(), err)
	}
	if err := (Choices{Plan: &tidb.Plan{}}).WriteText(&b); err != nil || b.Len() != 0 {
		t.Errorf("empty plan: %q, %v", b.String(), err)
	}
	if err := (Choices{Plan: p}).WriteText(failing{}); !errors.Is(err, errFull) {
		t.Errorf("a failing writer: %v", err)
	}
}

var errFull = errors.New("disk full")

// failing is a writer whose every write fails.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errFull }

// TestShortCost: a cost whose explanation was given for an earlier table
// (its column aside) is written without it, pointing at that table; other
// costs, and the first of each kind, in full.
func TestShortCost(t *testing.T) {
	explained := map[string]string{}
	long := func(col string) string {
		return col + " no longer rises in insert order (why): a reader paging with `" + col + " > ?` skips rows"
	}
	for _, c := range []struct{ name, cost, table, want string }{
		{"first in full", long("a_id"), "ta", long("a_id")},
		{"same kind shortened", long("b_id"), "tb", "b_id no longer rises in insert order (why); as for ta above"},
		{"no explanation", "x reaches 2^63: past 2^53 rounds", "tc", "x reaches 2^63: past 2^53 rounds"},
		{"another kind in full", "c_id other (why): other words", "td", "c_id other (why): other words"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := shortCost(c.cost, c.table, explained); got != c.want {
				t.Fatalf("shortCost(%q) = %q, want %q", c.cost, got, c.want)
			}
		})
	}
}

// TestDocument: the document carries the statements, each table's
// choice with its key warnings before the others, and the by-hand file
// only when there are statements to apply by hand.
func TestDocument(t *testing.T) {
	p := plan(t, "CREATE TABLE t (id BIGINT PRIMARY KEY AUTO_INCREMENT, x INT);\n")
	doc := Document(p, "hand.sql")
	if doc.Statements != p.SQL() || doc.Target != "tidb" || len(doc.Tables) != 1 || doc.Tables[0].Table != "t" || doc.Tables[0].Strategy != "auto-random" || doc.Tables[0].Why == "" {
		t.Errorf("Document: %+v", doc)
	}
	if doc.ByHand != 0 || doc.ByHandFile != "" {
		t.Errorf("no statements by hand, yet ByHand %d, ByHandFile %q", doc.ByHand, doc.ByHandFile)
	}
	if doc := Document(&tidb.Plan{}, "hand.sql"); doc.Tables != nil || doc.ByHandFile != "" || doc.Statements != "\n" {
		t.Errorf("empty plan: %+v", doc)
	}
}
