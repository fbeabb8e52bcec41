package shardid

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseShards reads a shard list such as "0-3,8,10-12" into ascending,
// distinct shard ids, each within the layout's shard range.
func ParseShards(s string, l Layout) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty shard list (want e.g. 0-3,8,10-12)", ErrShardRange)
	}
	seen := map[int64]bool{}
	var out []int64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.ParseInt(lo, 10, 64)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseInt(hi, 10, 64)
		}
		if err1 != nil || err2 != nil || lo == "" {
			return nil, fmt.Errorf("%w: bad shard list item %q (want N or N-M, e.g. 0-3,8,10-12)", ErrShardRange, part)
		}
		if b < a {
			return nil, fmt.Errorf("%w: range %q runs backwards", ErrShardRange, part)
		}
		for _, v := range []int64{a, b} {
			if err := l.CheckShard(v); err != nil {
				return nil, err
			}
		}
		for v := a; v <= b; v++ {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
