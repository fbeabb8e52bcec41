package tidb_test

import (
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"testing"

	"github.com/shardid/shardid/tidb"
)

// BenchmarkParseRender parses a seed table with TiDB's parser and renders
// it under the default strategy, as tidb render does per table.
func BenchmarkParseRender(b *testing.B) {
	in := tidbtest.SeedInput(b, "global_tx_list")
	b.ReportAllocs()
	for b.Loop() {
		t, err := tidb.Parse(in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tidb.Render(t, tidb.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
