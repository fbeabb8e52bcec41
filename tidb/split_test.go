package tidb_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	rotateid "github.com/shardid/shardid/tidb/rotate"
)

// rotate moves the last k digits of id right behind its first digit, the
// article's rewrite, written here independently of tidb/rotate.
func rotate(id uint64, k int) uint64 {
	s := strconv.FormatUint(id, 10)
	r, _ := strconv.ParseUint(s[:1]+s[len(s)-k:]+s[1:len(s)-k], 10, 64)
	return r
}

// TestRotatedSplitPointsSeparateRanges draws random IDs, rotates them and
// checks that the region each lands in (the last split point ≤ value) is
// determined by exactly its leading digit and its rotated digits: every
// one of the 10^k ranges starts in a region of its own.
func TestRotatedSplitPointsSeparateRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 1; k <= tidb.MaxRotateDigits; k++ {
		for _, d := range []int{12, 18, 19} {
			points, err := tidb.RotatedSplitPoints(k, d, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if !sort.SliceIsSorted(points, func(i, j int) bool { return points[i] < points[j] }) {
				t.Fatalf("k=%d d=%d: points not ascending", k, d)
			}
			lo := uint64(math.Pow10(d - 1))
			hi := min(uint64(math.Pow10(d))-1, math.MaxInt64)
			for range 2000 {
				id := lo + rng.Uint64N(hi-lo)
				v := rotate(id, k)
				if v > math.MaxInt64 {
					continue
				}
				i := sort.Search(len(points), func(i int) bool { return points[i] > v }) - 1
				if i < 0 {
					t.Fatalf("rotated %d below the first point", v)
				}
				s := strconv.FormatUint(v, 10)
				wantLead, _ := strconv.Atoi(s[:1])
				wantR, _ := strconv.Atoi(s[1 : 1+k])
				tens := 1
				for range k {
					tens *= 10
				}
				if i != (wantLead-1)*tens+wantR {
					t.Fatalf("k=%d d=%d: %d (from %d) in region %d, want %d", k, d, v, id, i, (wantLead-1)*tens+wantR)
				}
			}
		}
	}
}

// TestRotatedSplitPointsFitTheColumn checks the points stay within the
// column type, and the count per leading digit is 10^k.
func TestRotatedSplitPointsFitTheColumn(t *testing.T) {
	p, err := tidb.RotatedSplitPoints(1, 19, 9, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 3 || p[2] != 9200000000000000000 { // 9.3e18 > 2^63-1
		t.Errorf("signed lead 9: %v", p)
	}
	p, err = tidb.RotatedSplitPoints(2, 20, 1, true)
	if err != nil || len(p) != 85 || p[84] != 18400000000000000000 { // 2^64-1 ≈ 1.84e19
		t.Errorf("unsigned 20 digits: %d points, %v", len(p), err)
	}
	if _, err := tidb.RotatedSplitPoints(1, 20, 2, true); err == nil {
		t.Error("20-digit IDs led by 2 exceed uint64 but were accepted")
	}
	p, _ = tidb.RotatedSplitPoints(3, 19, 5, false)
	if len(p) != 1000 {
		t.Errorf("k=3: %d points", len(p))
	}
}

// TestShardRowIDSplitPoints checks the boundaries are the shard boundaries.
func TestShardRowIDSplitPoints(t *testing.T) {
	for p := 1; p <= tidb.MaxShardBits; p++ {
		pts := tidb.ShardRowIDSplitPoints(p)
		if len(pts) != 1<<p-1 {
			t.Fatalf("P=%d: %d points", p, len(pts))
		}
		for i, v := range pts {
			if v>>(63-p) != uint64(i+1) || v&(1<<(63-p)-1) != 0 {
				t.Fatalf("P=%d: point %d = %d is not shard %d's start", p, i, v, i+1)
			}
		}
	}
}

// TestRotatedSplitPointsMessage checks the refusal names the column's limit
// rather than a leading digit the user never gave.
func TestRotatedSplitPointsMessage(t *testing.T) {
	_, err := tidb.RotatedSplitPoints(1, 20, 0, false)
	if err == nil || !strings.Contains(err.Error(), "no 20-digit ID fits a signed BIGINT (at most 9223372036854775807, 19 digits)") || strings.Contains(err.Error(), "led by 0") {
		t.Errorf("got %v", err)
	}
}

// TestRotatedSplitPointsUnsignedIDs checks that 20-digit BIGINT UNSIGNED
// IDs rotated by rotate.RotateUnsigned (what shardid rotate --unsigned
// prints) land in every region the --id-digits 20 split points make, and
// never below the first. (A 20-digit ID whose digit rotation passes
// 2^64-1, e.g. one ending in 9 for k=1, is rotated further until it fits:
// it lands in a region too.)
func TestRotatedSplitPointsUnsignedIDs(t *testing.T) {
	for k := 1; k <= tidb.MaxRotateDigits; k++ {
		points, err := tidb.RotatedSplitPoints(k, 20, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		hit := map[int]bool{}
		for id := uint64(1e19 + 123456789); len(hit) < len(points) && id < 1e19+123456789+100000; id++ {
			v, err := rotateid.RotateUnsigned(id, k)
			if err != nil {
				t.Fatalf("RotateUnsigned(%d, %d): %v", id, k, err)
			}
			i := sort.Search(len(points), func(i int) bool { return points[i] > v }) - 1
			if i < 0 {
				t.Fatalf("rotated %d below the first split point %d", v, points[0])
			}
			hit[i] = true
		}
		if len(hit) != len(points) {
			t.Errorf("k=%d: consecutive IDs reached %d of %d regions", k, len(hit), len(points))
		}
	}
}
