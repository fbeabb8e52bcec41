// Package idcheck holds the checks the uniqueness tests of several packages
// share: counting repeated IDs across streams, and waiting for a condition
// that a concurrent load will reach.
package idcheck

import (
	"testing"
	"time"
)

// Repeats counts the IDs that occur more than once across all lists (an ID
// seen k times counts k-1).
func Repeats(lists ...[]int64) int {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	seen := make(map[int64]struct{}, n)
	repeats := 0
	for _, l := range lists {
		for _, id := range l {
			if _, ok := seen[id]; ok {
				repeats++
			}
			seen[id] = struct{}{}
		}
	}
	return repeats
}

// WaitFor polls cond every 5 ms until it holds, failing t after three
// minutes: a safety net for a load that never gets there, not a timing
// assertion.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
