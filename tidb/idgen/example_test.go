package idgen_test

import (
	"fmt"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tidb/idgen"
)

func Example() {
	node, err := idgen.NodeID(1, 3) // datacenter 1, worker 3
	if err != nil {
		panic(err)
	}
	// A fixed clock keeps the output stable; leave Clock nil in real use.
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	g, err := idgen.New(idgen.Settings{
		Node:         node,
		RotateDigits: 1,
		Clock:        func() time.Time { return now },
	})
	if err != nil {
		panic(err)
	}
	// Raw IDs 153833648947343360, …61, …62 would sit side by side; rotated,
	// each starts a different key range (10…, 11…, 12…).
	for range 3 {
		id, err := g.Next()
		if err != nil {
			panic(err)
		}
		p, _ := g.Decompose(id)
		fmt.Println(id, p.Time.Format(time.RFC3339), "node", p.Shard, "seq", p.Seq)
	}
	fmt.Println(g.Layout() == pgfunc.Snowflake())
	// Output:
	// 105383364894734336 2026-03-01T12:00:00Z node 35 seq 0
	// 115383364894734336 2026-03-01T12:00:00Z node 35 seq 1
	// 125383364894734336 2026-03-01T12:00:00Z node 35 seq 2
	// true
}
