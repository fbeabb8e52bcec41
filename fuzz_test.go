package shardid

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// FuzzComposeDecompose: for any valid layout (route field or none) and
// in-range parts, Compose and Decompose are inverse, IDs are never
// negative and never above MaxID, and IDs order by time first.
func FuzzComposeDecompose(f *testing.F) {
	f.Add(uint8(41), uint8(13), uint8(10), uint8(0), int64(1234567), int64(5), int64(7), int64(0))
	f.Add(uint8(37), uint8(8), uint8(8), uint8(0), int64(0), int64(255), int64(255), int64(0))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(0), int64(1), int64(1), int64(1), int64(0))
	f.Add(uint8(41), uint8(6), uint8(12), uint8(4), int64(1572070381000), int64(1), int64(0), int64(12))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(60), int64(1), int64(1), int64(1), int64(1)<<60-1)
	f.Fuzz(func(t *testing.T, tb, sb, qb, rb uint8, ticks, shard, seq, route int64) {
		l := Layout{Epoch: DefaultEpoch(), TimeUnit: time.Millisecond, TimeBits: uint(tb), ShardBits: uint(sb), SeqBits: uint(qb), RouteBits: uint(rb)}
		if l.Validate() != nil {
			return
		}
		id, err := l.ComposeTicksRoute(ticks, shard, seq, route)
		inRange := ticks >= 0 && ticks <= l.MaxTicks() && shard >= 0 && shard <= l.MaxShard() && seq >= 0 && seq <= l.MaxSeq() && route >= 0 && route <= l.MaxRoute()
		if !inRange {
			if err == nil {
				t.Fatalf("out-of-range parts %d/%d/%d/%d composed to %d", ticks, shard, seq, route, id)
			}
			return
		}
		if err != nil || id < 0 || id > l.MaxID() {
			t.Fatalf("compose %d/%d/%d/%d: %d, %v (max %d)", ticks, shard, seq, route, id, err, l.MaxID())
		}
		p, err := l.Decompose(id)
		if err != nil || p.Ticks != ticks || p.Shard != shard || p.Seq != seq || p.Route != route {
			t.Fatalf("decompose(%d) = %+v, %v; want %d/%d/%d/%d", id, p, err, ticks, shard, seq, route)
		}
		if l.RouteOf(id) != route {
			t.Fatalf("RouteOf(%d) = %d; want %d", id, l.RouteOf(id), route)
		}
		if ticks < l.MaxTicks() {
			next, err := l.ComposeTicks(ticks+1, 0, 0)
			if err != nil || next <= id {
				t.Fatalf("the next tick's smallest id %d is not above %d", next, id)
			}
		}
		if seq < l.MaxSeq() {
			next, err := l.ComposeTicks(ticks, shard, seq+1)
			if err != nil || next <= id {
				t.Fatalf("the next sequence number's smallest id %d is not above %d", next, id)
			}
		}
	})
}

// FuzzParseShards: any accepted list is sorted, distinct and in range;
// anything refused wraps ErrShardRange or ErrShardList.
func FuzzParseShards(f *testing.F) {
	for _, s := range []string{"0-3,8,10-12", "", "5-1", "0-8191", "1,,2", " 7 "} {
		f.Add(s)
	}
	l := Instagram()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64 { // keep ranges small enough to expand
			return
		}
		ids, err := ParseShards(s, l)
		if err != nil {
			if !errors.Is(err, ErrShardRange) && !errors.Is(err, ErrShardList) {
				t.Fatalf("%q: error %v wraps neither ErrShardRange nor ErrShardList", s, err)
			}
			return
		}
		if len(ids) == 0 || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("%q: %v is not a sorted, distinct, non-empty list", s, ids)
		}
		if ids[0] < 0 || ids[len(ids)-1] > l.MaxShard() {
			t.Fatalf("%q: %v out of range", s, ids)
		}
	})
}
