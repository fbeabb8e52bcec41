package rotate

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

// FuzzRotate checks, for any int64 and k, that Rotate and Unrotate are
// exact inverses, keep the digit count and the leading digit, place the
// moved digits right after the leading digit (so the ID's range is its
// leading digit and its last k digits), keep the order of IDs inside one
// range, and agree with a string-surgery reference.
func FuzzRotate(f *testing.F) {
	for _, p := range seedPairs {
		f.Add(p.in, p.in+1, uint8(1))
	}
	f.Add(int64(1234567880), int64(1234567890), uint8(1))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64-1), uint8(2))
	f.Add(int64(9130000000000000000), int64(1000000000000000009), uint8(3))
	f.Add(int64(-5), int64(0), uint8(2))
	f.Add(int64(99), int64(100), uint8(1))
	f.Fuzz(func(t *testing.T, x, y int64, kb uint8) {
		k := int(kb%3) + 1
		for _, v := range []int64{x, y} {
			checkOne(t, v, k)
		}
		// Order inside one range: two IDs with the same digit count,
		// leading digit and last k digits keep their order after rotation.
		// Move y to x's range: same last k digits, a little further on.
		if x >= 0 && x < math.MaxInt64/2 {
			y = x + int64(uint16(y))*int64(pow10[k])
		}
		rx, errx := Rotate(x, k)
		ry, erry := Rotate(y, k)
		if errx != nil || erry != nil || x == y {
			return
		}
		sx, sy := strconv.FormatInt(x, 10), strconv.FormatInt(y, 10)
		if len(sx) != len(sy) || len(sx) < k+2 || sx[0] != sy[0] || sx[len(sx)-k:] != sy[len(sy)-k:] {
			return
		}
		if Range(rx, k) != Range(ry, k) {
			t.Fatalf("%d and %d share digits and tail but Range differs: %d vs %d", x, y, Range(rx, k), Range(ry, k))
		}
		if (x < y) != (rx < ry) {
			t.Fatalf("order changed inside one range: %d<%d is %v, rotated %d<%d is %v", x, y, x < y, rx, ry, rx < ry)
		}
	})
}

func checkOne(t *testing.T, x int64, k int) {
	t.Helper()
	r, err := Rotate(x, k)
	want, wantErr := rotateString(x, k)
	switch {
	case x < 0:
		if !errors.Is(err, ErrNegative) || r != 0 {
			t.Fatalf("Rotate(%d, %d) = %d, %v; want 0, ErrNegative", x, k, r, err)
		}
		return
	case wantErr != nil:
		if !errors.Is(err, ErrOverflow) || r != 0 {
			t.Fatalf("Rotate(%d, %d) = %d, %v; want 0, ErrOverflow", x, k, r, err)
		}
	case err != nil || r != want:
		t.Fatalf("Rotate(%d, %d) = %d, %v; string reference says %d", x, k, r, err, want)
	default:
		sx, sr := strconv.FormatInt(x, 10), strconv.FormatInt(r, 10)
		if len(sx) != len(sr) || sx[0] != sr[0] {
			t.Fatalf("Rotate(%d, %d) = %d changed digit count or leading digit", x, k, r)
		}
		if len(sx) >= k+2 {
			wantRange, _ := strconv.ParseInt(sx[:1]+sx[len(sx)-k:], 10, 64)
			if Range(r, k) != wantRange {
				t.Fatalf("Range(%d, %d) = %d; want %d", r, k, Range(r, k), wantRange)
			}
		}
		back, err := Unrotate(r, k)
		if err != nil || back != x {
			t.Fatalf("Unrotate(Rotate(%d, %d)) = %d, %v", x, k, back, err)
		}
	}
	// The other direction: Unrotate then Rotate is the identity too.
	u, err := Unrotate(x, k)
	if err != nil {
		if !errors.Is(err, ErrOverflow) || u != 0 {
			t.Fatalf("Unrotate(%d, %d) = %d, %v; want a value or 0, ErrOverflow", x, k, u, err)
		}
		return
	}
	again, err := Rotate(u, k)
	if err != nil || again != x {
		t.Fatalf("Rotate(Unrotate(%d, %d)) = %d, %v", x, k, again, err)
	}
}
