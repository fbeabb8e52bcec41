package citus

import "testing"

// BreakSlots makes Up render every node's counters with slot 0, whatever
// the ledger gave it (two nodes sharing a slot), until t ends: the
// negative control of the Citus uniqueness tests.
func BreakSlots(t testing.TB) {
	saved := slotOf
	slotOf = func(Node) int { return 0 }
	t.Cleanup(func() { slotOf = saved })
}
