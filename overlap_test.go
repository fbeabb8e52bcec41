package shardid

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// ids lists every ID of s by composing each tick, shard, sequence number
// and route: the definition Overlap must agree with.
func (s Span) ids() map[int64]bool {
	out := map[int64]bool{}
	for t := s.FirstTick; t <= s.LastTick; t++ {
		for q := int64(0); q <= s.Layout.MaxSeq(); q++ {
			for r := int64(0); r <= s.Layout.MaxRoute(); r++ {
				id, err := s.Layout.ComposeTicksRoute(t, s.Shard, q, r)
				if err != nil {
					panic(err)
				}
				out[id] = true
			}
		}
	}
	return out
}

// bruteOverlap is the smallest ID in both spans, by enumeration.
func bruteOverlap(a, b Span) (int64, bool) {
	inA := a.ids()
	best, found := int64(0), false
	for id := range b.ids() {
		if inA[id] && (!found || id < best) {
			best, found = id, true
		}
	}
	return best, found
}

// small returns a valid layout of the given widths.
func small(tb, sb, qb uint) Layout {
	return Layout{Epoch: DefaultEpoch(), TimeUnit: time.Millisecond, TimeBits: tb, ShardBits: sb, SeqBits: qb}
}

// checkAgainstBrute fails t unless Overlap agrees with enumeration on a
// and b, both ways round.
func checkAgainstBrute(t *testing.T, a, b Span) {
	t.Helper()
	want, wantOK := bruteOverlap(a, b)
	for _, pair := range [][2]Span{{a, b}, {b, a}} {
		got, ok, err := Overlap(pair[0], pair[1])
		if err != nil {
			t.Fatalf("Overlap(%+v, %+v): %v", pair[0], pair[1], err)
		}
		if ok != wantOK || got != want {
			t.Fatalf("Overlap(%+v, %+v) = %d, %v; enumeration says %d, %v", pair[0], pair[1], got, ok, want, wantOK)
		}
	}
}

// randomSpan draws a span of a random small layout (at most 11 bits, and
// in a third of the spans 1 or 2 route bits more).
func randomSpan(r *rand.Rand) Span {
	tb, sb := 1+r.UintN(5), 1+r.UintN(3)
	qb := 1 + r.UintN(3)
	l := small(tb, sb, qb)
	if rb := r.UintN(6); rb < 2 {
		l.RouteBits = 1 + rb
	}
	first := r.Int64N(l.MaxTicks() + 1)
	last := first + r.Int64N(l.MaxTicks()-first+1)
	return Span{Layout: l, Shard: r.Int64N(l.MaxShard() + 1), FirstTick: first, LastTick: last}
}

// TestOverlapAgainstEnumeration: on 20,000 random pairs of small layouts
// (widths, shard ids and tick ranges of both drawn at random), Overlap
// finds exactly the smallest common ID that enumerating both spans finds,
// and says there is none exactly when there is none.
func TestOverlapAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	disjoint, common := 0, 0
	for range 20000 {
		a, b := randomSpan(r), randomSpan(r)
		checkAgainstBrute(t, a, b)
		if _, ok, _ := Overlap(a, b); ok {
			common++
		} else {
			disjoint++
		}
	}
	// Both answers must have been exercised, or the property is hollow.
	if disjoint < 1000 || common < 1000 {
		t.Fatalf("%d disjoint and %d overlapping pairs: the random spans do not exercise both answers", disjoint, common)
	}
}

// FuzzOverlap: for any two small spans, Overlap agrees with enumeration.
func FuzzOverlap(f *testing.F) {
	f.Add(uint8(4), uint8(2), uint8(2), int64(1), int64(0), int64(15), uint8(3), uint8(3), uint8(2), int64(4), int64(2), int64(7))
	f.Add(uint8(1), uint8(1), uint8(1), int64(0), int64(0), int64(1), uint8(1), uint8(1), uint8(1), int64(1), int64(0), int64(1))
	f.Fuzz(func(t *testing.T, ta, sa, qa uint8, shardA, firstA, lastA int64, tb, sb, qb uint8, shardB, firstB, lastB int64) {
		a := Span{Layout: small(uint(ta), uint(sa), uint(qa)), Shard: shardA, FirstTick: firstA, LastTick: lastA}
		b := Span{Layout: small(uint(tb), uint(sb), uint(qb)), Shard: shardB, FirstTick: firstB, LastTick: lastB}
		for _, s := range []Span{a, b} {
			l := s.Layout
			if l.TimeBits+l.ShardBits+l.SeqBits > 12 || s.Validate() != nil {
				if s.Validate() != nil {
					if _, _, err := Overlap(a, b); err == nil {
						t.Fatalf("Overlap accepted an invalid span %+v", s)
					}
				}
				return
			}
		}
		checkAgainstBrute(t, a, b)
	})
}

// TestOverlapFullLayouts: the cases that matter on a server, with the
// presets' real widths (too many IDs to enumerate: the witness is checked
// by decoding it in both layouts instead).
func TestOverlapFullLayouts(t *testing.T) {
	ig, js, sf := Instagram(), JS53(), Snowflake()
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	recent := Instagram()
	recent.Epoch = now.Add(-time.Hour)
	monthOld := Instagram()
	monthOld.Epoch = now.AddDate(0, -1, 0)
	// from now to the layout's end: a generator made now.
	fromNow := func(l Layout, shard int64) Span {
		ticks, err := l.Ticks(now)
		if err != nil {
			t.Fatal(err)
		}
		return Span{Layout: l, Shard: shard, FirstTick: ticks, LastTick: l.MaxTicks()}
	}
	// its whole life: a generator whose first ID is not known.
	whole := func(l Layout, shard int64) Span { return Span{Layout: l, Shard: shard, LastTick: l.MaxTicks()} }
	cases := []struct {
		name    string
		a, b    Span
		overlap bool
	}{
		{"same layout, another shard id", whole(ig, 3), whole(ig, 4), false},
		{"same layout, same shard id", whole(ig, 3), fromNow(ig, 3), true},
		{"same widths, another epoch, another shard id", whole(ig, 0), fromNow(recent, 64), false},
		{"same widths, another epoch, same shard id", whole(ig, 0), fromNow(recent, 0), true},
		// js53 shard 0 beside instagram shard 64: bits 10-15 are js53's
		// shard bits 2-7 (0) and instagram's shard bits 0-5 (0 for 64).
		{"js53 shard 0 and instagram shard 64 of an epoch an hour old", whole(js, 0), fromNow(recent, 64), true},
		// Instagram shard 65 fixes bit 10 to 1, js53 shard 0 to 0.
		{"js53 shard 0 and instagram shard 65", whole(js, 0), whole(ig, 65), false},
		// An instagram ID drawn now is above every js53 ID there can be.
		{"js53 whole life below instagram from now", whole(js, 0), fromNow(ig, 64), false},
		// Bits 12-21 are snowflake's shard field and instagram's shard bits
		// 2-11: snowflake shard 1 meets instagram shard 4, not shard 1.
		{"snowflake shard 1 and instagram shard 4", whole(sf, 1), whole(ig, 4), true},
		{"snowflake shard 1 and instagram shard 1", whole(sf, 1), whole(ig, 1), false},
		// An epoch a month old: instagram IDs from now are above 2^53.
		{"js53 shard 0 and instagram shard 64 of an epoch a month old", whole(js, 0), fromNow(monthOld, 64), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, ok, err := Overlap(tc.a, tc.b)
			if err != nil || ok != tc.overlap {
				t.Fatalf("Overlap = %d, %v, %v; want overlap %v", id, ok, err, tc.overlap)
			}
			if !ok {
				return
			}
			for _, s := range []Span{tc.a, tc.b} {
				p, err := s.Layout.Decompose(id)
				if err != nil || p.Shard != s.Shard || p.Ticks < s.FirstTick || p.Ticks > s.LastTick {
					t.Fatalf("witness %d decodes in %s as %+v, %v: not in %+v", id, s.Layout, p, err, s)
				}
			}
		})
	}
}

// TestOverlapRefusesInvalidSpans: a span no generator can have is an
// error, not an answer.
func TestOverlapRefusesInvalidSpans(t *testing.T) {
	ok := Span{Layout: Instagram(), Shard: 1, LastTick: 10}
	for _, tc := range []struct {
		name string
		s    Span
		want error
	}{
		{"shard out of range", Span{Layout: Instagram(), Shard: 8192, LastTick: 1}, ErrShardRange},
		{"ticks backwards", Span{Layout: Instagram(), FirstTick: 5, LastTick: 4}, ErrTimeRange},
		{"ticks past the end", Span{Layout: JS53(), LastTick: JS53().MaxTicks() + 1}, ErrTimeRange},
		{"invalid layout", Span{Layout: Layout{TimeBits: 41}}, ErrInvalidLayout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := Overlap(ok, tc.s); !errors.Is(err, tc.want) {
				t.Fatalf("Overlap: %v; want %v", err, tc.want)
			}
		})
	}
}
