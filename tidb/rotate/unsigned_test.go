package rotate

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

// rotateStringUnsigned is the string-surgery reference for RotateUnsigned.
func rotateStringUnsigned(x uint64, k int) (uint64, error) {
	s := strconv.FormatUint(x, 10)
	if len(s) < k+2 {
		return x, nil
	}
	return strconv.ParseUint(s[:1]+s[len(s)-k:]+s[1:len(s)-k], 10, 64)
}

func unrotateStringUnsigned(x uint64, k int) (uint64, error) {
	s := strconv.FormatUint(x, 10)
	if len(s) < k+2 {
		return x, nil
	}
	return strconv.ParseUint(s[:1]+s[k+1:]+s[1:k+1], 10, 64)
}

func TestRotateUnsigned(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      uint64
		k       int
		want    uint64
		wantErr error
	}{
		{"20 digits", 12345678901234567890, 1, 10234567890123456789, nil},
		{"20 digits k=3", 10234567890123456789, 3, 17890234567890123456, nil},
		{"20 digits k=3 overflow", 12345678901234567890, 3, 0, ErrOverflow},
		{"largest", math.MaxUint64, 1, 15844674407370955161, nil},
		{"20 digits overflow", 18446744073709551609, 1, 0, ErrOverflow},
		{"19 digits above int64", 9999999999999999998, 1, 9899999999999999999, nil},
		{"int64 range", 561632371728711681, 1, 516163237172871168, nil},
		{"short", 42, 1, 42, nil},
		{"k too large", 12345, 4, 0, ErrDigits},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RotateUnsigned(tc.in, tc.k)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("RotateUnsigned(%d, %d) = %d, %v; want %d, %v", tc.in, tc.k, got, err, tc.want, tc.wantErr)
			}
			if err != nil {
				return
			}
			back, err := UnrotateUnsigned(got, tc.k)
			if err != nil || back != tc.in {
				t.Fatalf("UnrotateUnsigned(%d, %d) = %d, %v; want %d", got, tc.k, back, err, tc.in)
			}
		})
	}
}

// TestRotateUnsignedNegativeControl checks that the reference the fuzz
// target compares with does catch a wrong rotation: a result off by one
// digit position differs from it.
func TestRotateUnsignedNegativeControl(t *testing.T) {
	x := uint64(12345678901234567890)
	want, _ := rotateStringUnsigned(x, 1)
	wrong, _ := rotateStringUnsigned(x, 2)
	if want == wrong {
		t.Fatal("the reference cannot tell k=1 from k=2")
	}
}

// FuzzRotateUnsigned checks RotateUnsigned and UnrotateUnsigned against the
// string reference for any uint64 and k: the same value or ErrOverflow
// exactly when the reference's result does not fit, and exact inverses.
func FuzzRotateUnsigned(f *testing.F) {
	f.Add(uint64(12345678901234567890), uint8(0))
	f.Add(uint64(math.MaxUint64), uint8(1))
	f.Add(uint64(18446744073709551609), uint8(2))
	f.Add(uint64(9999999999999999999), uint8(0))
	f.Add(uint64(10000000000000000000), uint8(2))
	f.Fuzz(func(t *testing.T, x uint64, kb uint8) {
		k := int(kb%3) + 1
		r, err := RotateUnsigned(x, k)
		want, wantErr := rotateStringUnsigned(x, k)
		switch {
		case wantErr != nil:
			if !errors.Is(err, ErrOverflow) || r != 0 {
				t.Fatalf("RotateUnsigned(%d, %d) = %d, %v; want 0, ErrOverflow", x, k, r, err)
			}
		case err != nil || r != want:
			t.Fatalf("RotateUnsigned(%d, %d) = %d, %v; reference %d", x, k, r, err, want)
		default:
			if back, err := UnrotateUnsigned(r, k); err != nil || back != x {
				t.Fatalf("UnrotateUnsigned(RotateUnsigned(%d, %d)) = %d, %v", x, k, back, err)
			}
		}
		u, err := UnrotateUnsigned(x, k)
		wantU, wantUErr := unrotateStringUnsigned(x, k)
		switch {
		case wantUErr != nil:
			if !errors.Is(err, ErrOverflow) || u != 0 {
				t.Fatalf("UnrotateUnsigned(%d, %d) = %d, %v; want 0, ErrOverflow", x, k, u, err)
			}
		case err != nil || u != wantU:
			t.Fatalf("UnrotateUnsigned(%d, %d) = %d, %v; reference %d", x, k, u, err, wantU)
		}
	})
}
