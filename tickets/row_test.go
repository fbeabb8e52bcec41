package tickets_test

import (
	"testing"

	"github.com/shardid/shardid/tickets"
)

// TestServerRow: a table server has its counter and how many tickets of
// its class it stands behind top (never below 0); a sequence that knows
// its most handed out has that as last and no behind; one that does not,
// neither.
func TestServerRow(t *testing.T) {
	table := tickets.ServerStatus{Name: "t1", Settings: tickets.ServerSettings{Kind: tickets.KindTable, Increment: 2, Offset: 1, Last: 11}, Class: tickets.ClassRow{Seen: 9}}
	row := table.Row(21)
	if row.Server != "t1" || row.Kind != "table" || row.Last == nil || *row.Last != 11 || row.Behind == nil || *row.Behind != 5 || row.Recorded != 9 {
		t.Errorf("table: %+v", row)
	}
	if row := table.Row(3); row.Behind == nil || *row.Behind != 0 {
		t.Errorf("table ahead of top: %+v", row)
	}
	seq := tickets.ServerStatus{Name: "s", Settings: tickets.ServerSettings{Kind: tickets.KindSequence, Increment: 2, Offset: 2, Last: 40, LastKnown: true}}
	if row := seq.Row(21); row.Last == nil || *row.Last != 40 || row.Behind != nil {
		t.Errorf("sequence: %+v", row)
	}
	seq.Settings.LastKnown = false
	if row := seq.Row(21); row.Last != nil || row.Behind != nil {
		t.Errorf("sequence, last not known: %+v", row)
	}
}
