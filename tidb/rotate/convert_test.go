package rotate

import (
	"math"
	"testing"
)

// TestConverter: each of the four conversions is the function it names,
// and reverse undoes forward, on the signed range and past it unsigned;
// ParseID takes 0 to the largest ID of the key's type, nothing else.
func TestConverter(t *testing.T) {
	for _, unsigned := range []bool{false, true} {
		fwd, back := Converter(unsigned, false), Converter(unsigned, true)
		ids := []uint64{0, 7, 561632371732905984, math.MaxInt64 / 10}
		if unsigned {
			ids = append(ids, math.MaxUint64/2+12345)
		}
		for _, id := range ids {
			for k := MinDigits; k <= MaxDigits; k++ {
				r, err := fwd(id, k)
				if err != nil {
					t.Fatalf("unsigned %v: rotate %d, %d: %v", unsigned, id, k, err)
				}
				want := r
				if unsigned {
					want, _ = RotateUnsigned(id, k)
				} else {
					w, _ := Rotate(int64(id), k)
					want = uint64(w)
				}
				if got, err := back(r, k); r != want || err != nil || got != id {
					t.Errorf("unsigned %v, id %d, k %d: rotated %d (want %d), back %d, %v", unsigned, id, k, r, want, got, err)
				}
			}
		}
	}
	for _, c := range []struct {
		s        string
		unsigned bool
		ok       bool
	}{
		{"0", false, true}, {"9223372036854775807", false, true}, {"9223372036854775808", false, false},
		{"18446744073709551615", true, true}, {"18446744073709551616", true, false}, {"-1", true, false}, {"1e3", false, false},
	} {
		if _, ok := ParseID(c.s, c.unsigned); ok != c.ok {
			t.Errorf("ParseID(%q, unsigned %v): ok %v, want %v", c.s, c.unsigned, ok, c.ok)
		}
	}
}
