package shardid

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrShardList is returned by ParseShards for text that is not a shard
// list; ids outside the layout's shard field give ErrShardRange.
var ErrShardList = errors.New("invalid shard list")

// ParseShards reads a shard list such as "0-3,8,10-12" into ascending,
// distinct shard ids, each within the layout's shard range. A shard id
// listed twice ("0-3,2") is refused with ErrShardList, naming both items:
// a list that says one thing twice most likely meant something else.
func ParseShards(s string, l Layout) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: it is empty (want e.g. 0-3,8,10-12)", ErrShardList)
	}
	seen := map[int64]string{} // shard id: the item that listed it
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
			return nil, fmt.Errorf("%w: bad item %q (want N or N-M, e.g. 0-3,8,10-12)", ErrShardList, part)
		}
		if b < a {
			return nil, fmt.Errorf("%w: range %q runs backwards (want N-M with N ≤ M)", ErrShardList, part)
		}
		for _, v := range []int64{a, b} {
			if err := l.CheckShard(v); err != nil {
				return nil, err
			}
		}
		for v := a; v <= b; v++ {
			if first, dup := seen[v]; dup {
				return nil, fmt.Errorf("%w: shard %d is listed twice, in %q and %q (list each id once)", ErrShardList, v, first, part)
			}
			seen[v] = part
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out, nil
}
