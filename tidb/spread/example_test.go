package spread_test

import (
	"fmt"

	"github.com/shardid/shardid/tidb/spread"
)

func Example() {
	cfg := spread.Config{Writes: 200000, Window: 20000, SplitRows: 64}
	for _, src := range []spread.Source{
		{Kind: spread.Raw},
		{Kind: spread.Rotated, Digits: 1},
		{Kind: spread.Rotated, Digits: 2},
		{Kind: spread.Shard, ShardBits: 4},
	} {
		res, err := spread.Run(src, cfg)
		if err != nil {
			panic(err)
		}
		st := res.Steady()
		fmt.Printf("%-12s %3d regions take writes, the hottest %.0f%%\n", src, st.Written, 100*st.Hottest)
	}
	// Output:
	// snowflake      1 regions take writes, the hottest 100%
	// rotate k=1    10 regions take writes, the hottest 10%
	// rotate k=2   100 regions take writes, the hottest 1%
	// shard S=4     16 regions take writes, the hottest 7%
}
