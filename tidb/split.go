package tidb

import (
	"fmt"
	"math"
)

// RotatedSplitPoints returns the key values at which a rotated-int table
// should start a new region, ascending.
//
// A rotated ID of D decimal digits keeps its leading digit h and moves its
// last k digits right behind it, so digits 2..k+1 cycle through all 10^k
// values while the rest still grows slowly. The IDs with leading digit h and
// rotated digits r (0 ≤ r < 10^k) are exactly the key range
//
//	[h·10^(D-1) + r·10^(D-1-k), h·10^(D-1) + (r+1)·10^(D-1-k))
//
// and the split points are the starts of those ranges: for each leading
// digit h (lead, or 1–9 when lead is 0) and each r, h·10^(D-1) +
// r·10^(D-1-k). Points above the column's largest value (2^63-1, or 2^64-1
// when unsigned) are left out. One rotated digit of 19-digit IDs led by 5
// gives 5000000000000000000, 5100000000000000000, …, 5900000000000000000.
//
// It returns an error wrapping ErrDigits when no point fits or the digits
// are out of range.
func RotatedSplitPoints(k, idDigits, lead int, unsigned bool) ([]uint64, error) {
	if k < 1 || k > MaxRotateDigits || idDigits <= k || idDigits > 20 || lead < 0 || lead > 9 {
		return nil, fmt.Errorf("%w: k=%d, %d-digit IDs, leading digit %d", ErrDigits, k, idDigits, lead)
	}
	limit := uint64(math.MaxInt64)
	if unsigned {
		limit = math.MaxUint64
	}
	top := pow10(idDigits - 1)      // 10^(D-1)
	step := pow10(idDigits - 1 - k) // 10^(D-1-k)
	ranges := pow10(k)
	leads := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	if lead != 0 {
		leads = []uint64{uint64(lead)}
	}
	var points []uint64
	for _, h := range leads {
		if h > limit/top {
			break
		}
		base := h * top
		for r := uint64(0); r < ranges; r++ {
			off := r * step
			if base > limit-off {
				break
			}
			points = append(points, base+off)
		}
	}
	if len(points) == 0 {
		col, most := "a signed BIGINT", "9223372036854775807, 19 digits"
		if unsigned {
			col, most = "a BIGINT UNSIGNED", "18446744073709551615, 20 digits"
		}
		led := ""
		if lead != 0 {
			led = fmt.Sprintf(" led by %d", lead)
		}
		return nil, fmt.Errorf("%w: no %d-digit ID%s fits %s (at most %s): use fewer ID digits or an UNSIGNED column", ErrDigits, idDigits, led, col, most)
	}
	return points, nil
}

// ShardRowIDSplitPoints returns the _tidb_rowid values at which the
// 2^preSplit pre-split regions of a table with shardBits SHARD_ROW_ID_BITS
// start, leaving out 0: i·2^(63-preSplit) for 1 ≤ i < 2^preSplit. The shard
// bits sit right under the sign bit, so for preSplit ≤ shardBits every
// region holds whole shards. This is what PRE_SPLIT_REGIONS does at CREATE
// TABLE; an existing table gets it from SPLIT TABLE … BY.
func ShardRowIDSplitPoints(preSplit int) []uint64 {
	if preSplit <= 0 || preSplit > MaxShardBits {
		return nil
	}
	n := uint64(1) << preSplit
	points := make([]uint64, 0, n-1)
	for i := uint64(1); i < n; i++ {
		points = append(points, i<<(63-preSplit))
	}
	return points
}

// pow10 returns 10^n for 0 ≤ n ≤ 19.
func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}
