// Package suite is what the counters' conformance suites (lease/leasetest,
// segment/segmenttest, tickets/ticketstest) share: each check a parallel
// subtest with a table of its own, dropped before and after it, created
// through the package's Up, which must apply the first time and nothing
// the second; and the count of repeated IDs their checks judge by. Only
// those suites import it (they are test code: it imports testing).
package suite

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// Check is one conformance check: a property the counter needs of the
// database, run on an environment E of the suite's.
type Check[E any] struct {
	Name string
	Run  func(E)
}

// Run runs every check as a parallel subtest of t (each has tables of its
// own), on the environment env makes for it from the subtest and the
// check's table name: prefix and the check's name in lower case.
func Run[E any](t *testing.T, prefix string, checks []Check[E], env func(t *testing.T, table string) E) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			c.Run(env(t, prefix+strings.ToLower(c.Name)))
		})
	}
}

// Fresh drops tables on every db (what an earlier run left), drops them
// again when the check ends, and creates the check's tables with up,
// twice: up(1) must apply the migrations, up(2) nothing (up fails t itself
// when its run does not do what it should).
func Fresh(t *testing.T, dbs []*sql.DB, tables []string, up func(run int)) {
	t.Helper()
	drop := func() {
		for _, db := range dbs {
			for _, table := range tables {
				if _, err := db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
					t.Errorf("drop %s: %v", table, err)
				}
			}
		}
	}
	drop()
	t.Cleanup(drop)
	up(1)
	up(2)
}

// Repeats counts the IDs that occur more than once across lists.
func Repeats(lists ...[]int64) int {
	seen := map[int64]bool{}
	n := 0
	for _, ids := range lists {
		for _, id := range ids {
			if seen[id] {
				n++
			}
			seen[id] = true
		}
	}
	return n
}
