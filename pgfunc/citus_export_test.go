package pgfunc

import "testing"

// BreakCitusSlots makes Up render every Citus node's counters with slot
// 0, whatever the ledger gave it (two nodes sharing a slot), until t
// ends: the negative control of the Citus uniqueness tests.
func BreakCitusSlots(t testing.TB) {
	saved := citusSlotOf
	citusSlotOf = func(CitusNode) int { return 0 }
	t.Cleanup(func() { citusSlotOf = saved })
}
