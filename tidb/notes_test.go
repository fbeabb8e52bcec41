package tidb_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
)

// TestNoteGroups renders twelve tables that each get the same change and
// the same hotspot warning: NoteGroups gives one group a kind, each
// counting twelve notes over twelve tables, the hotspot first; AllNotes
// keeps every note. The negative control is a table whose note differs in
// more than a name: it makes a group of its own.
func TestNoteGroups(t *testing.T) {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "CREATE TABLE t%d (id BIGINT AUTO_INCREMENT PRIMARY KEY, at%d DATETIME DEFAULT CURRENT_TIMESTAMP, KEY by_at%d (at%d));\n", i, i, i, i)
	}
	p := tidbtest.PlanScript(t, b.String(), tidb.Options{})
	groups := p.NoteGroups()
	if len(groups) == 0 || groups[0].First.Kind != "warning" || groups[0].Count != 12 || len(groups[0].Tables) != 12 {
		t.Fatalf("first group %+v, want the hotspot warning of 12 tables", groups)
	}
	total := 0
	for _, g := range groups {
		total += g.Count
	}
	if all := p.AllNotes(); total != len(all) || len(groups) >= len(all) {
		t.Fatalf("%d groups count %d notes, AllNotes has %d", len(groups), total, len(all))
	}
	other := tidbtest.PlanScript(t, b.String()+"CREATE TABLE u (id INT PRIMARY KEY, v INT);\n", tidb.Options{NoWiden: true})
	if len(other.NoteGroups()) <= len(groups) {
		t.Fatalf("a table with other notes joined the groups: %d groups, before %d", len(other.NoteGroups()), len(groups))
	}
}
