// Package idcheck holds the checks the uniqueness tests of several packages
// share: counting repeated IDs across streams, and waiting for a condition
// that a concurrent load will reach.
package idcheck

import (
	"testing"
	"time"

	"github.com/shardid/shardid/internal/idbench"
)

// Repeats counts the IDs that occur more than once across all lists (an
// ID seen k times counts k-1): idbench.Repeats, the count the bench uses.
func Repeats(lists ...[]int64) int { return idbench.Repeats(lists...) }

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
