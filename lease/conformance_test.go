package lease_test

import (
	"testing"

	"github.com/shardid/shardid/lease/leasetest"
)

// TestConformance runs the conformance suite, package leasetest, on every
// database family the lease serves.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, b := range leaseBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db, _ := b.open(t)
			leasetest.Test(t, db, b.dialect)
		})
	}
}
