package rotate

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

// The pairs measured in the digit-rotation article (k = 1).
var seedPairs = []struct{ in, out int64 }{
	{561632371724517376, 566163237172451737},
	{561632371728711680, 506163237172871168},
	{561632371728711681, 516163237172871168},
	{561632371728711682, 526163237172871168},
	{561632371732905984, 546163237173290598},
	{561632371732905988, 586163237173290598},
	{561632371737100288, 586163237173710028},
}

func TestRotateSeedPairs(t *testing.T) {
	for _, p := range seedPairs {
		got, err := Rotate(p.in, 1)
		if err != nil || got != p.out {
			t.Errorf("Rotate(%d, 1) = %d, %v; want %d", p.in, got, err, p.out)
		}
		back, err := Unrotate(p.out, 1)
		if err != nil || back != p.in {
			t.Errorf("Unrotate(%d, 1) = %d, %v; want %d", p.out, back, err, p.in)
		}
	}
}

func TestRotateTable(t *testing.T) {
	tests := []struct {
		in   int64
		k    int
		want int64
	}{
		{561632371728711681, 2, 581616323717287116},
		{561632371728711681, 3, 568161632371728711},
		{1234, 1, 1423},
		{1234, 2, 1342},
		{12345, 3, 13452},
		// A moved block that starts with zero lands behind the leading
		// digit, so the digit count stays: 10 digits in, 10 digits out.
		{1234567880, 1, 1023456788},
		{1234567800, 2, 1002345678},
		{9000000000, 3, 9000000000},
		// Fewer than k+2 digits: unchanged.
		{0, 1, 0},
		{7, 1, 7},
		{42, 1, 42},
		{42, 2, 42},
		{999, 2, 999},
		{999, 3, 999},
		{1000, 3, 1000},
		// 19 digits that fit after rotation.
		{9000000000000000002, 1, 9200000000000000000},
		{9223372036854775800, 1, 9022337203685477580},
		{1000000000000000009, 1, 1900000000000000000},
	}
	for _, tt := range tests {
		got, err := Rotate(tt.in, tt.k)
		if err != nil || got != tt.want {
			t.Errorf("Rotate(%d, %d) = %d, %v; want %d", tt.in, tt.k, got, err, tt.want)
			continue
		}
		if len(strconv.FormatInt(got, 10)) != len(strconv.FormatInt(tt.in, 10)) {
			t.Errorf("Rotate(%d, %d) = %d changed the digit count", tt.in, tt.k, got)
		}
		back, err := Unrotate(got, tt.k)
		if err != nil || back != tt.in {
			t.Errorf("Unrotate(%d, %d) = %d, %v; want %d", got, tt.k, back, err, tt.in)
		}
	}
}

func TestRotateErrors(t *testing.T) {
	tests := []struct {
		name string
		f    func(int64, int) (int64, error)
		id   int64
		k    int
		want error
	}{
		{"rotate k=0", Rotate, 12345, 0, ErrDigits},
		{"rotate k=4", Rotate, 12345, 4, ErrDigits},
		{"unrotate k=-1", Unrotate, 12345, -1, ErrDigits},
		{"rotate negative", Rotate, -1, 1, ErrNegative},
		{"unrotate negative", Unrotate, math.MinInt64, 2, ErrNegative},
		{"rotate max int64", Rotate, math.MaxInt64, 1, ErrOverflow}, // 9 7 22337203685477580
		{"rotate 9223372036854775799", Rotate, 9223372036854775799, 2, ErrOverflow},
		{"unrotate max int64", Unrotate, math.MaxInt64, 1, ErrOverflow}, // 9 23372036854775807 2
		{"unrotate 9130000000000000000", Unrotate, 9130000000000000000, 1, ErrOverflow},
	}
	for _, tt := range tests {
		got, err := tt.f(tt.id, tt.k)
		if !errors.Is(err, tt.want) || got != 0 {
			t.Errorf("%s: got %d, %v; want 0 and %v", tt.name, got, err, tt.want)
		}
	}
}

// TestDigitsBoundaries checks the digit count at every power of ten and
// every power of two, where the bit-length table changes its answer.
func TestDigitsBoundaries(t *testing.T) {
	var xs []uint64
	for p := uint64(1); p <= 1e18; p *= 10 {
		xs = append(xs, p-1, p, p+1)
	}
	for b := 0; b < 63; b++ {
		xs = append(xs, 1<<b-1, 1<<b, 1<<b+1)
	}
	xs = append(xs, math.MaxInt64)
	for _, x := range xs {
		want := len(strconv.FormatUint(x, 10))
		if x == 0 {
			want = 0
		}
		if got := digits(x); got != want {
			t.Errorf("digits(%d) = %d; want %d", x, got, want)
		}
	}
}

// TestConstPathsMatchTables checks the 18- and 19-digit fast paths of
// Rotate and Unrotate, which divide by constants, against the table-driven
// arithmetic used for every other digit count, at the digit-count
// boundaries, at the overflow edge and on pseudo-random IDs.
func TestConstPathsMatchTables(t *testing.T) {
	xs := []uint64{
		1e17 - 1, 1e17, 1e17 + 1, 1e18 - 1, 1e18, 1e18 + 1,
		9000000000000000002, 9022337203685477580, 9223372036854775800,
		math.MaxInt64 - 1, math.MaxInt64, 199999999999999999, 999999999999999999,
	}
	// A fixed linear congruential sequence, spread over 17-19 digits.
	v := uint64(88172645463325252)
	for range 20000 {
		v = v*6364136223846793005 + 1442695040888963407
		xs = append(xs, v>>1, (v>>1)%9e18, (v>>1)%9e17)
	}
	for _, x := range xs {
		n := digits(x)
		for k := MinDigits; k <= MaxDigits; k++ {
			want := rotateTable(x, k, n)
			got, err := Rotate(int64(x), k)
			switch {
			case want > math.MaxInt64:
				if !errors.Is(err, ErrOverflow) || got != 0 {
					t.Errorf("Rotate(%d, %d) = %d, %v; want ErrOverflow", x, k, got, err)
				}
			case err != nil || uint64(got) != want:
				t.Errorf("Rotate(%d, %d) = %d, %v; tables say %d", x, k, got, err, want)
			}
			want = unrotateTable(x, k, n)
			got, err = Unrotate(int64(x), k)
			switch {
			case want > math.MaxInt64:
				if !errors.Is(err, ErrOverflow) || got != 0 {
					t.Errorf("Unrotate(%d, %d) = %d, %v; want ErrOverflow", x, k, got, err)
				}
			case err != nil || uint64(got) != want:
				t.Errorf("Unrotate(%d, %d) = %d, %v; tables say %d", x, k, got, err, want)
			}
		}
	}
}
