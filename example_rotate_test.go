package shardid_test

import (
	"fmt"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tidb/rotate"
)

// Example_rotate is the package doc's pairing of a Generator with
// tidb/rotate: each ID Next returns is rotated by one digit before it is
// written to TiDB, so consecutive IDs land in different regions, and
// Unrotate gives the ID back.
func Example_rotate() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	g, err := shardid.NewGenerator(shardid.Settings{Node: 35, Clock: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	for range 3 {
		id, err := g.Next()
		if err != nil {
			panic(err)
		}
		key, err := rotate.Rotate(id, 1)
		if err != nil {
			panic(err)
		}
		back, _ := rotate.Unrotate(key, 1)
		fmt.Println(id, "→", key, "region range", rotate.Range(key, 1), back == id)
	}
	// Output:
	// 153833648947343360 → 105383364894734336 region range 10 true
	// 153833648947343361 → 115383364894734336 region range 11 true
	// 153833648947343362 → 125383364894734336 region range 12 true
}
