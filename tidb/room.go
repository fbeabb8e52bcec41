package tidb

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shardid/shardid/tidb/script"
)

// ErrNoRoom is returned by Render and RenderScript when a table's IDs
// start past the room the strategy leaves them, so the rendered table
// would refuse inserts the input takes: an AUTO_INCREMENT=N table option
// or keys the script's data writes, against the row id SHARD_ROW_ID_BITS
// leaves (ERROR 1467 on TiDB) or the increment AUTO_RANDOM(S, R) leaves
// (ERROR 8059). Render lowers the bits it chose itself; the error comes
// when bits the user gave do not fit, or none do, and names the table,
// the value and what to pass.
var ErrNoRoom = errors.New("IDs start past the room the strategy leaves")

// A start fits a counter of b bits when at least as many IDs remain above
// it as below it: the table keeps most of the room the input had, not a
// few inserts' worth.
func fits(start uint64, b int) bool { return b >= 1 && b <= 64 && start <= 1<<(b-1) }

// idStart is where the counter TiDB's row id shares starts for t, and
// what sets it: the AUTO_INCREMENT=N table option, or (o.dataKeys) past the
// keys the script's data writes into an AUTO_INCREMENT column. With
// AUTO_ID_CACHE=1 an AUTO_INCREMENT column has a counter of its own and
// the option no longer moves the row id (measured on TiDB 8.5): 0.
func idStart(t *Table, o Options) (uint64, string) {
	if autoIDCache(t) == 1 {
		return 0, ""
	}
	var start uint64
	what := ""
	for _, opt := range t.AutoIncrementOptions() {
		start, what = script.AutoIncrementBase(opt), "table option "+opt
	}
	if end := dataStart(o.dataKeys, 64); end > start {
		start, what = end, "the script's data (keys up to "+strconv.FormatUint(end-1, 10)+")"
	}
	return start, what
}

// dataStart is where the data's keys leave a counter of b bits: one past
// the largest of their low b bits (TiDB moves an AUTO_RANDOM increment to
// an explicit key's low bits; a row id counter to the whole key).
func dataStart(keys []uint64, b int) uint64 {
	var end uint64
	mask := uint64(math.MaxUint64)
	if b < 64 {
		mask = 1<<b - 1
	}
	for _, k := range keys {
		end = max(end, k&mask+1)
	}
	return end
}

// autoIDCache returns the input's AUTO_ID_CACHE, 0 when it sets none.
func autoIDCache(t *Table) uint64 {
	for _, opt := range t.Options {
		if strings.Contains(opt, "AUTO_ID_CACHE") {
			_, v, _ := strings.Cut(opt, "=")
			n, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "*/")), 10, 64)
			return n
		}
	}
	return 0
}

// shardRowIDRoom checks the start of the row id against the 63-S bits
// SHARD_ROW_ID_BITS=S leaves it. A table without an AUTO_INCREMENT
// column loses the AUTO_INCREMENT=N option (MySQL does nothing with it;
// on TiDB it only starts the hidden row id); one with such a column gets
// fewer shard bits, unless the user gave them.
func shardRowIDRoom(t *Table, o Options, askedBits bool, v *createView, note func(string, ...any)) (Options, error) {
	start, what := idStart(t, o)
	if start == 0 || fits(start, 63-o.ShardBits) {
		return o, nil
	}
	ai := t.AutoIncrementColumn()
	if ai == nil {
		v.DropTableOptions = append(v.DropTableOptions, t.AutoIncrementOptions()...)
		note("%s left out: no column is AUTO_INCREMENT, so MySQL does nothing with it, and on TiDB it would only start the hidden row id, past the 2^%d SHARD_ROW_ID_BITS=%d leaves it (every insert would fail: ERROR 1467)", what, 63-o.ShardBits, o.ShardBits)
		return o, nil
	}
	b := o.ShardBits - 1
	for ; b >= 1 && !fits(start, 63-b); b-- {
	}
	if b < 1 || askedBits {
		pass := fmt.Sprintf("--table %s=shard-rowid,shard-bits=%d", t.QualifiedName(), b)
		if b < 1 {
			pass = "AUTO_ID_CACHE=1 in the table's options (a counter of its own for the AUTO_INCREMENT column), or a smaller start"
		}
		return o, fmt.Errorf("%w: %s starts the row id at %d, past the 2^%d SHARD_ROW_ID_BITS=%d leaves it (TiDB's row id and AUTO_INCREMENT share one counter; every insert would fail: ERROR 1467): pass %s", ErrNoRoom, what, start, 63-o.ShardBits, o.ShardBits, pass)
	}
	note("SHARD_ROW_ID_BITS=%d, not %d: %s starts the row id at %d, and %d shard bits leave it 2^%d, as much again above the start (every insert would fail with %d: ERROR 1467)", b, o.ShardBits, what, start, b, 63-b, o.ShardBits)
	o.ShardBits = b
	o.PreSplit = min(o.PreSplit, b)
	return o, nil
}

// autoRandomRoom checks AUTO_RANDOM_BASE (the input's AUTO_INCREMENT=N)
// and the keys of the script's data against the increment AUTO_RANDOM(S,
// R) leaves: R-S bits, less the sign bit of a signed key. An explicit key
// moves the increment to its own low bits (measured on TiDB 8.5:
// 2^48-710 into AUTO_RANDOM(5, 54) left room for 655 inserts). Where the
// user gave neither S nor R, it widens the range (the keys are past 2^53
// then anyway), then lowers the shard bits.
func autoRandomRoom(t *Table, o Options, c *Column, askedBits, askedRange bool, note func(string, ...any)) (Options, error) {
	var base uint64
	what := ""
	for _, opt := range t.AutoIncrementOptions() {
		base, what = script.AutoIncrementBase(opt), "table option "+opt
	}
	sign := boolInt(!c.Unsigned)
	start := func(s, r int) (uint64, string) {
		if end := dataStart(o.dataKeys, r-s-sign); end > base {
			return end, "the script's data (keys up to " + strconv.FormatUint(slices.Max(o.dataKeys), 10) + ")"
		}
		return base, what
	}
	st, why := start(o.ShardBits, o.RangeBits)
	inc := o.RangeBits - o.ShardBits - sign
	if st == 0 || fits(st, inc) {
		return o, nil
	}
	s, r := 0, 0
	for _, p := range roomCandidates(o.ShardBits, o.RangeBits) {
		if at, _ := start(p[0], p[1]); fits(at, p[1]-p[0]-sign) && p[1]-p[0]-sign >= MinIncrementBits {
			s, r = p[0], p[1]
			break
		}
	}
	if s < 1 || askedRange || (askedBits && s != o.ShardBits) {
		pass := fmt.Sprintf("--table %s=auto-random,shard-bits=%d,range=%d", t.QualifiedName(), s, r)
		if s < 1 {
			pass = fmt.Sprintf("a smaller start, or --table %s=shard-rowid with AUTO_ID_CACHE=1 in the table's options", t.QualifiedName())
		}
		return o, fmt.Errorf("%w: %s starts %s's increment at %d, past the 2^%d AUTO_RANDOM(%d, %d) leaves it (every insert would fail: ERROR 8059): pass %s", ErrNoRoom, why, c.Name, st, inc, o.ShardBits, o.RangeBits, pass)
	}
	at, _ := start(s, r)
	note("AUTO_RANDOM(%d, %d), not (%d, %d): %s starts %s's increment at %d, and %d increment bits keep as much again above it (every insert would fail with (%d, %d): ERROR 8059)", s, r, o.ShardBits, o.RangeBits, why, c.Name, at, r-s-sign, o.ShardBits, o.RangeBits)
	o.ShardBits, o.RangeBits = s, r
	o.PreSplit = min(o.PreSplit, s)
	return o, nil
}

// roomCandidates lists the (shard bits, range) pairs autoRandomRoom
// tries, in order: a wider range with the same shard bits, then fewer
// shard bits with the widest range.
func roomCandidates(s, r int) [][2]int {
	var out [][2]int
	for rr := r + 1; rr <= MaxRangeBits; rr++ {
		out = append(out, [2]int{s, rr})
	}
	for ss := s - 1; ss >= 1; ss-- {
		out = append(out, [2]int{ss, MaxRangeBits})
	}
	return out
}
