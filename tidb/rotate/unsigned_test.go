package rotate

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// rotateStringUnsigned is the string-surgery reference for RotateUnsigned:
// the last k digits moved after the leading one, again while the result
// does not fit a uint64 (cycle walking; a 20-digit ID fits after at most
// 19 rotations).
func rotateStringUnsigned(x uint64, k int) (uint64, error) {
	s := strconv.FormatUint(x, 10)
	if len(s) < k+2 {
		return x, nil
	}
	for range 19 {
		s = s[:1] + s[len(s)-k:] + s[1:len(s)-k]
		if r, err := strconv.ParseUint(s, 10, 64); err == nil {
			return r, nil
		}
	}
	return 0, errors.New("no rotation fits")
}

func unrotateStringUnsigned(x uint64, k int) (uint64, error) {
	s := strconv.FormatUint(x, 10)
	if len(s) < k+2 {
		return x, nil
	}
	for range 19 {
		s = s[:1] + s[k+1:] + s[1:k+1]
		if r, err := strconv.ParseUint(s, 10, 64); err == nil {
			return r, nil
		}
	}
	return 0, errors.New("no rotation fits")
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
		// 1 890 2345678901234567 passes MaxUint64: rotated again.
		{"20 digits k=3 walks", 12345678901234567890, 3, 15678902345678901234, nil},
		{"largest", math.MaxUint64, 1, 15844674407370955161, nil},
		// 1 9 844674407370955160 passes MaxUint64: 1 0 984467440737095516.
		{"20 digits ending in 9", 18446744073709551609, 1, 10984467440737095516, nil},
		{"trial's 20-digit ID", 17000000000000000008, 1, 10870000000000000000, nil},
		{"trial's 20-digit ID ending in 9", 17000000000000000009, 1, 10970000000000000000, nil},
		{"smallest 20 digits", 1e19, 3, 1e19, nil},
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

// TestRotateUnsignedTakesEveryID rotates runs of consecutive 20-digit
// IDs (the trial's stream stopped at its eighth line), the top of the
// range and random ones: every ID gets a 20-digit rotation, no two the
// same, each undone exactly, and consecutive IDs spread over 10^k ranges.
func TestRotateUnsignedTakesEveryID(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := MinDigits; k <= MaxDigits; k++ {
		var starts []uint64
		starts = append(starts, 17000000000000000000, math.MaxUint64-4999, 1e19)
		for range 20 {
			starts = append(starts, 1e19+rng.Uint64N(twenty-5000))
		}
		walked := 0
		for _, start := range starts {
			seen := map[uint64]bool{}
			ranges := map[uint64]bool{}
			for i := range uint64(5000) {
				id := start + i
				r, err := RotateUnsigned(id, k)
				if err != nil || r < 1e19 {
					t.Fatalf("RotateUnsigned(%d, %d) = %d, %v", id, k, r, err)
				}
				if seen[r] {
					t.Fatalf("RotateUnsigned(·, %d) gives %d twice", k, r)
				}
				seen[r] = true
				ranges[(r-1e19)/pow10[19-k]] = true
				if back, err := UnrotateUnsigned(r, k); err != nil || back != id {
					t.Fatalf("UnrotateUnsigned(RotateUnsigned(%d, %d)) = %d, %v", id, k, back, err)
				}
				if single, err := rotateStringSingle(id, k); err != nil {
					walked++
				} else if single != r {
					t.Fatalf("RotateUnsigned(%d, %d) = %d; the digit rotation %d fits", id, k, r, single)
				}
			}
			// r′ starts with 0…8446… of 10^19: at most 84% of the 10^k
			// ranges exist; consecutive IDs must reach nearly all of them.
			if len(ranges) < int(pow10[k])*8/10 {
				t.Errorf("k=%d: 5000 IDs from %d fell in %d ranges, want %d or more", k, start, len(ranges), pow10[k]*8/10)
			}
		}
		if walked == 0 {
			t.Errorf("k=%d: no ID needed more than one rotation: the walk was never tested", k)
		}
	}
}

// rotateStringSingle is the single digit rotation, which fails where it
// passes MaxUint64.
func rotateStringSingle(x uint64, k int) (uint64, error) {
	s := strconv.FormatUint(x, 10)
	return strconv.ParseUint(s[:1]+s[len(s)-k:]+s[1:len(s)-k], 10, 64)
}

// TestRotateUnsignedNegativeControl checks that the reference the fuzz
// target compares with does catch a wrong rotation: a result off by one
// digit position differs from it, and a walk that stops one step early
// (the single rotation) does not fit.
func TestRotateUnsignedNegativeControl(t *testing.T) {
	x := uint64(12345678901234567890)
	want, _ := rotateStringUnsigned(x, 1)
	wrong, _ := rotateStringUnsigned(x, 2)
	if want == wrong {
		t.Fatal("the reference cannot tell k=1 from k=2")
	}
	if _, err := rotateStringSingle(18446744073709551609, 1); err == nil {
		t.Fatal("the single rotation of 18446744073709551609 fits: the walk is not exercised")
	}
}

// FuzzRotateUnsigned checks RotateUnsigned and UnrotateUnsigned against the
// string reference for any uint64 and k: every uint64 is taken, the digit
// count is kept, the result equals the reference's, and each undoes the
// other in both directions (a bijection).
func FuzzRotateUnsigned(f *testing.F) {
	f.Add(uint64(12345678901234567890), uint8(0))
	f.Add(uint64(math.MaxUint64), uint8(1))
	f.Add(uint64(18446744073709551609), uint8(2))
	f.Add(uint64(9999999999999999999), uint8(0))
	f.Add(uint64(10000000000000000000), uint8(2))
	f.Add(uint64(17000000000000000009), uint8(0))
	f.Fuzz(func(t *testing.T, x uint64, kb uint8) {
		k := int(kb%3) + 1
		for _, op := range []struct {
			name      string
			f, inv    func(uint64, int) (uint64, error)
			reference func(uint64, int) (uint64, error)
		}{
			{"RotateUnsigned", RotateUnsigned, UnrotateUnsigned, rotateStringUnsigned},
			{"UnrotateUnsigned", UnrotateUnsigned, RotateUnsigned, unrotateStringUnsigned},
		} {
			r, err := op.f(x, k)
			want, wantErr := op.reference(x, k)
			if wantErr != nil {
				t.Fatalf("reference refuses %d, k=%d: %v", x, k, wantErr)
			}
			if err != nil || r != want {
				t.Fatalf("%s(%d, %d) = %d, %v; reference %d", op.name, x, k, r, err, want)
			}
			if len(strconv.FormatUint(r, 10)) != len(strconv.FormatUint(x, 10)) {
				t.Fatalf("%s(%d, %d) = %d changed the digit count", op.name, x, k, r)
			}
			if back, err := op.inv(r, k); err != nil || back != x {
				t.Fatalf("inverse of %s(%d, %d) = %d gives %d, %v", op.name, x, k, r, back, err)
			}
		}
	})
}
