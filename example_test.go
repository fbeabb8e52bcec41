package shardid_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/shardid/shardid"
)

func ExampleLayout_Decompose() {
	l := shardid.Instagram() // 41 bits of ms since 2025-01-01, 13 shard bits, 10 sequence bits
	p, err := l.Decompose(499680437493301249)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Time.Format(time.RFC3339Nano), p.Shard, p.Seq)
	// Output: 2026-11-21T10:15:49.956Z 0 1
}

func ExampleLayout_Compose() {
	l := shardid.JS53()
	id, err := l.Compose(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), 7, 3)
	if err != nil {
		panic(err)
	}
	p, _ := l.Decompose(id)
	fmt.Println(id, id <= 1<<53-1, p.Time.Format(time.RFC3339), p.Shard, p.Seq)
	// Output: 1034576494593795 true 2030-01-02T03:04:05Z 7 3
}

func ExampleParseShards() {
	ids, err := shardid.ParseShards("0-3,8,10-12", shardid.Instagram())
	if err != nil {
		panic(err)
	}
	fmt.Println(ids)
	_, err = shardid.ParseShards("0-8192", shardid.Instagram())
	fmt.Println(err)
	// Output:
	// [0 1 2 3 8 10 11 12]
	// shard id out of range: 8192 (allowed 0-8191 for 13 shard bits)
}

func ExampleGenerator() {
	node, err := shardid.NodeID(1, 3) // datacenter 1, worker 3
	if err != nil {
		panic(err)
	}
	// A fixed clock keeps the output stable; leave Clock nil in real use.
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	g, err := shardid.NewGenerator(shardid.Settings{
		Node:  node,
		Clock: func() time.Time { return now },
	})
	if err != nil {
		panic(err)
	}
	for range 3 {
		id, err := g.Next()
		if err != nil {
			panic(err)
		}
		p, _ := g.Layout().Decompose(id)
		fmt.Println(id, p.Time.Format(time.RFC3339), "node", p.Shard, "seq", p.Seq)
	}
	fmt.Println(g.Layout() == shardid.Snowflake())
	// Output:
	// 153833648947343360 2026-03-01T12:00:00Z node 35 seq 0
	// 153833648947343361 2026-03-01T12:00:00Z node 35 seq 1
	// 153833648947343362 2026-03-01T12:00:00Z node 35 seq 2
	// true
}

func ExampleParseLayout() {
	for _, spec := range []string{"snowflake", "time:28@1s,node:22,seq:13", "time:41,node:6,seq:12,route:4,epoch=0"} {
		l, err := shardid.ParseLayout(spec)
		if err != nil {
			panic(err)
		}
		fmt.Println(l, "|", l.End().Format("2006-01-02"), l.MaxSeq()+1, "IDs per tick per shard")
	}
	_, err := shardid.ParseLayout("time:41,shard:13,seq:0")
	fmt.Println(err)
	// Output:
	// snowflake | 2094-09-07 4096 IDs per tick per shard
	// time:28@1s,shard:22,seq:13 | 2033-07-04 8192 IDs per tick per shard
	// time:41,shard:6,seq:12,route:4,epoch=1970-01-01T00:00:00Z | 2039-09-07 4096 IDs per tick per shard
	// invalid layout "time:41,shard:13,seq:0": seq:0: a sequence needs at least 1 bit
}

// The Snowflake-layout article's order IDs: 41 bits of milliseconds since
// 1970, 6 node bits, 12 sequence bits and the user id's low 4 bits, so an
// order lies in the same one of 16 tables as its user (id % 16 == uid % 16).
func ExampleGenerator_NextFor() {
	l, err := shardid.ParseLayout("time:41,node:6,seq:12,route:4,epoch=0")
	if err != nil {
		panic(err)
	}
	// A fixed clock keeps the output stable; leave Clock nil in real use.
	g, err := shardid.NewGenerator(shardid.Settings{Layout: l, Node: 1, Clock: func() time.Time { return time.UnixMilli(1572070381000) }})
	if err != nil {
		panic(err)
	}
	for _, uid := range []int64{1820, 5177331} {
		id, err := g.NextFor(uid)
		if err != nil {
			panic(err)
		}
		p, _ := l.Decompose(id)
		fmt.Println(id, p.Time.Format(time.RFC3339), "node", p.Shard, "seq", p.Seq, "route", p.Route, l.RouteOf(id) == l.RouteOf(uid))
	}
	// Output:
	// 6593741087309889548 2019-10-26T06:13:01Z node 1 seq 0 route 12 true
	// 6593741087309889555 2019-10-26T06:13:01Z node 1 seq 1 route 3 true
}

// A node id that comes from elsewhere, fenced through Settings: this
// process was granted node 12 until a deadline (by a scheduler, say), and
// the node's earlier holder drew up to 12:00:00.000. The generator starts
// at a later tick, stops at the deadline with the fence's own error, and
// the highest tick the fence let through is what to hand the next holder
// as its LastDrawn. (Package lease does all this with a database table.)
func ExampleSettings_fence() {
	// A fixed clock, moved only by the generator's waits, keeps the output
	// stable; leave Clock and Sleep nil in real use.
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	grantEnds := now.Add(time.Second)
	errGrantEnded := errors.New("node grant ended")
	drawnUntil := int64(-1) // the highest tick the fence let through
	g, err := shardid.NewGenerator(shardid.Settings{
		Node:      12,
		LastDrawn: now, // the earlier holder drew at 12:00:00.000
		Fence: func(t time.Time, tick int64) error {
			if !t.Before(grantEnds) {
				return errGrantEnded
			}
			drawnUntil = max(drawnUntil, tick)
			return nil
		},
		Clock: func() time.Time { return now },
		Sleep: func(d time.Duration) { now = now.Add(d) },
	})
	if err != nil {
		panic(err)
	}
	id, err := g.Next()
	if err != nil {
		panic(err)
	}
	p, _ := g.Layout().Decompose(id)
	fmt.Println(p.Time.Format("15:04:05.000"), "node", p.Shard, "seq", p.Seq)

	now = grantEnds
	_, err = g.Next()
	fmt.Println(err, errors.Is(err, errGrantEnded))
	fmt.Println("next holder's LastDrawn:", g.Layout().TickTime(drawnUntil+1).Add(-time.Millisecond).Format("15:04:05.000"))
	// Output:
	// 12:00:00.001 node 12 seq 0
	// node grant ended true
	// next holder's LastDrawn: 12:00:00.001
}
