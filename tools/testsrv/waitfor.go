package testsrv

import (
	"testing"
	"time"
)

// The uniqueness tests of several packages wait for a condition that a
// concurrent load will reach; they count repeated IDs with bench.Repeats,
// the count the bench uses.

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
