package segment_test

import (
	"testing"

	"github.com/shardid/shardid/segment/segmenttest"
)

// TestConformance runs the conformance suite, package segmenttest, on
// every database family the allocator serves.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db, _ := b.open(t)
			segmenttest.Test(t, db, b.dialect)
		})
	}
}
