package lease_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/shardid/shardid/lease"
)

// TestSummarize: rows with a holder count as leased; a live row as live,
// or as fenced when a fence holds it (a fence that ended is free);
// consecutive fenced ids make one run from the earliest to the latest end
// of their fence, a gap starts another.
func TestSummarize(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	rows := []lease.Info{
		{Node: 0, Holder: "a", Live: true, Until: t0},
		{Node: 1, Holder: "b", Until: t0},
		{Node: 2, Live: true, Fenced: true, Until: t0.Add(2 * time.Second)},
		{Node: 3, Live: true, Fenced: true, Until: t0.Add(time.Second)},
		{Node: 4, Live: true, Fenced: true, Until: t0.Add(3 * time.Second)},
		{Node: 6, Live: true, Fenced: true, Until: t0},
		{Node: 7, Fenced: true, Until: t0},
	}
	want := lease.Summary{Leased: 2, Live: 1, Fenced: 4, Runs: []lease.FencedRun{
		{First: 2, Last: 4, From: t0.Add(time.Second), Until: t0.Add(3 * time.Second)},
		{First: 6, Last: 6, From: t0, Until: t0},
	}}
	if got := lease.Summarize(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("Summarize:\n got %+v\nwant %+v", got, want)
	}
	for i, state := range []string{"live", "free", "fence", "fence", "fence", "fence", "free"} {
		if got := rows[i].State(); got != state {
			t.Errorf("node %d: State %q, want %q", rows[i].Node, got, state)
		}
	}
}

// TestInfoRow: instants in RFC 3339 with nanoseconds, no last drawn time
// before any draw, fenced only while the fence lasts.
func TestInfoRow(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 16, 0, 0, 5, time.UTC)
	row := lease.Info{Node: 3, Holder: "h", Live: true, Fenced: true, Until: t0, Layout: "41/13/10"}.Row()
	if row.Until != "2026-12-02T16:00:00.000000005Z" || row.LastDrawn != "" || !row.Fenced || row.Node != 3 || row.Holder != "h" || row.Layout != "41/13/10" {
		t.Errorf("Row = %+v", row)
	}
	if row := (lease.Info{Fenced: true, LastDrawn: t0}).Row(); row.Fenced || row.LastDrawn == "" {
		t.Errorf("an ended fence: Row = %+v", row)
	}
}

// TestSummaryTotals: worker status --json counts what Summarize counted.
func TestSummaryTotals(t *testing.T) {
	got := lease.Summary{Leased: 3, Live: 2, Fenced: 1}.Totals()
	if want := map[string]any{"leased": 3, "live": 2, "fenced": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("Totals = %v, want %v", got, want)
	}
}
