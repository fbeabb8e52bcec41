package pgfunc_test

import (
	"testing"

	"github.com/shardid/shardid/pgfunc"
)

// BenchmarkRender renders one shard's generator migration, as pg up does
// for every schema it applies.
func BenchmarkRender(b *testing.B) {
	b.ReportAllocs()
	for i := int64(0); b.Loop(); i++ {
		if _, err := pgfunc.Render(pgfunc.Shard{Schema: "insta5", ID: i & 8191}, pgfunc.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
