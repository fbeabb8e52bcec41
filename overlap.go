package shardid

import (
	"fmt"
	"math/bits"
)

// Span is every ID one generator can hand out over a stretch of its life:
// IDs of its layout carrying its shard id, with any sequence number (and
// any route), whose time field lies from FirstTick to LastTick (both
// included, in ticks of the layout since its epoch). A generator made now covers the ticks from
// the clock's to the layout's last (Layout.MaxTicks); one that has been
// handing out IDs for a while, unless its first ID is known, from 0.
type Span struct {
	Layout              Layout
	Shard               int64
	FirstTick, LastTick int64
}

// Validate returns an error wrapping ErrInvalidLayout, ErrShardRange or
// ErrTimeRange when the span cannot be one generator's.
func (s Span) Validate() error {
	if err := s.Layout.Validate(); err != nil {
		return err
	}
	if err := s.Layout.CheckShard(s.Shard); err != nil {
		return err
	}
	if s.FirstTick < 0 || s.LastTick > s.Layout.MaxTicks() || s.FirstTick > s.LastTick {
		return fmt.Errorf("%w: ticks %d to %d (allowed: from 0 to %d, first not after last)", ErrTimeRange, s.FirstTick, s.LastTick, s.Layout.MaxTicks())
	}
	return nil
}

// bounds describes the span's IDs as the values x with lo <= x <= hi and
// x&mask == value: the time field is the bits above shard, sequence and
// route, so a range of ticks is a range of IDs whatever the lower bits
// hold, and the shard field is a run of bits fixed to the shard id.
func (s Span) bounds() (lo, hi, mask, value uint64) {
	low := s.Layout.timeShift()
	lo = uint64(s.FirstTick) << low
	hi = uint64(s.LastTick)<<low | (1<<low - 1)
	mask = uint64(s.Layout.MaxShard()) << s.Layout.shardShift()
	value = uint64(s.Shard) << s.Layout.shardShift()
	return lo, hi, mask, value
}

// Overlap returns an ID that both spans contain and true, or 0 and false
// when no ID lies in both: then the two generators cannot hand out the same
// ID, whatever their sequence numbers, counters and clocks within their
// spans. The answer is exact, not a heuristic: each span is the set of
// integers in one interval whose shard bits are fixed, and Overlap finds
// the smallest integer in both intervals that has both fixings, if any.
// The ID returned is that smallest one; decode it with each span's layout
// to see how each generator would make it. It returns the spans' Validate
// errors.
func Overlap(a, b Span) (int64, bool, error) {
	if err := a.Validate(); err != nil {
		return 0, false, err
	}
	if err := b.Validate(); err != nil {
		return 0, false, err
	}
	loA, hiA, maskA, valA := a.bounds()
	loB, hiB, maskB, valB := b.bounds()
	lo, hi := max(loA, loB), min(hiA, hiB)
	if lo > hi || maskA&maskB&(valA^valB) != 0 {
		return 0, false, nil // apart in time, or a bit that both fix, differently
	}
	x, ok := nextMatching(lo, maskA|maskB, valA|valB)
	if !ok || x > hi {
		return 0, false, nil
	}
	return int64(x), true, nil
}

// nextMatching returns the smallest x >= lo below 2^63 with x&mask ==
// value (value within mask), and false if there is none. The candidates
// are value with some subset of the free bits set; spreading a counter k
// over the free bits (deposit) is increasing in k, so a binary search on k
// finds the first candidate at or above lo.
func nextMatching(lo, mask, value uint64) (uint64, bool) {
	free := ^mask &^ (1 << 63)
	n := bits.OnesCount64(free)
	top := uint64(1)<<n - 1 // the largest k: every free bit set
	if value|deposit(top, free) < lo {
		return 0, false
	}
	k0, k1 := uint64(0), top
	for k0 < k1 {
		mid := k0 + (k1-k0)/2
		if value|deposit(mid, free) >= lo {
			k1 = mid
		} else {
			k0 = mid + 1
		}
	}
	return value | deposit(k0, free), true
}

// deposit spreads the low bits of k over the set bits of mask, lowest
// first (the PDEP instruction).
func deposit(k, mask uint64) uint64 {
	var out uint64
	for m := mask; m != 0; m &= m - 1 {
		if k&1 != 0 {
			out |= m & -m
		}
		k >>= 1
	}
	return out
}
