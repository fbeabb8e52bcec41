package rotate

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// MinDigits and MaxDigits bound the number of trailing digits Rotate and
// Unrotate move.
const (
	MinDigits = 1
	MaxDigits = 3
)

// Sentinel errors returned by Rotate and Unrotate. Check them with
// errors.Is; the wrapped message names the offending value and what is
// allowed. On error the returned ID is always 0, never a truncated or
// wrapped-around value.
var (
	// ErrDigits is returned by Rotate and Unrotate when k is not between
	// MinDigits and MaxDigits.
	ErrDigits = errors.New("digit count out of range")
	// ErrNegative is returned by Rotate and Unrotate when the ID is negative.
	ErrNegative = errors.New("negative id")
	// ErrOverflow is returned by Rotate and Unrotate when the result would
	// not fit in an int64. Only 19-digit IDs (≥ 10^18) can overflow.
	// RotateUnsigned and UnrotateUnsigned never return it: they take
	// every uint64.
	ErrOverflow = errors.New("result overflows")
)

// Read-only lookup tables filled once at package initialisation:
// pow10[i] = 10^i, recip10[i] = ⌊2^64 / 10^i⌋ (i ≥ 1), and for a bit length
// b of x, lenDigits[b] and lenPow[b] give x's digit count as
// lenDigits[b] + (x ≥ lenPow[b]).
var (
	pow10     [32]uint64
	recip10   [32]uint64
	lenDigits [64]uint8
	lenPow    [64]uint64
)

func init() {
	p := uint64(1)
	for i := 0; i < 20; i++ {
		pow10[i] = p
		if i > 0 {
			recip10[i], _ = bits.Div64(1, 0, p)
		}
		p *= 10
	}
	for b := range lenPow {
		// The smallest b-bit number has t digits; some b-bit numbers
		// reach 10^t and so have t+1.
		lo := uint64(1) << b >> 1
		t := 0
		for t < 19 && pow10[t] <= lo {
			t++
		}
		lenDigits[b] = uint8(t)
		lenPow[b] = pow10[t]
		if t == 19 || (b > 0 && pow10[t] > uint64(1)<<b-1) {
			lenPow[b] = math.MaxUint64 // no b-bit number has t+1 digits
		}
	}
}

// digits returns the number of decimal digits of x < 2^63 (0 for x == 0).
func digits(x uint64) int {
	b := bits.Len64(x) & 63
	n := int(lenDigits[b])
	if x >= lenPow[b] {
		n++
	}
	return n
}

// div10 returns ⌊x / 10^i⌋ for 1 ≤ i ≤ 19 with a multiply by the
// reciprocal: the estimate is exact or one too low, and one compare fixes
// it. It also returns the remainder.
func div10(x uint64, i int) (q, r uint64) {
	p := pow10[i&31]
	q, _ = bits.Mul64(x, recip10[i&31])
	r = x - q*p
	if r >= p {
		q++
		r -= p
	}
	return q, r
}

// Rotate moves the last k decimal digits of id (k = 1, 2 or 3) to just
// after its leading digit:
//
//	Rotate(561632371728711681, 1) = 516163237172871168
//	Rotate(561632371728711681, 2) = 581616323717287116
//
// The result has as many digits as id. IDs with fewer than k+2 digits are
// returned unchanged. Rotate returns ErrDigits for k outside 1..3,
// ErrNegative for a negative id and ErrOverflow when the rotated 19-digit
// value exceeds math.MaxInt64. Unrotate undoes it exactly.
func Rotate(id int64, k int) (int64, error) {
	if id < 0 || uint(k-MinDigits) > MaxDigits-MinDigits {
		return 0, inputError("rotate", id, k)
	}
	x := uint64(id)
	// Snowflake IDs have 18 or 19 digits. For those, every power of ten is
	// a constant in its own case, so each division compiles to a multiply
	// and a shift, with no table loads; the digit count is two compares.
	var r uint64
	switch {
	case x >= 1e18: // 19 digits, the only ones that can overflow
		switch k {
		case 1:
			r = rotateConst(x, 1e1, 1e18)
		case 2:
			r = rotateConst(x, 1e2, 1e18)
		default:
			r = rotateConst(x, 1e3, 1e18)
		}
		if r > math.MaxInt64 {
			return 0, overflowError("rotate", id, k, r)
		}
	case x >= 1e17: // 18 digits
		switch k {
		case 1:
			r = rotateConst(x, 1e1, 1e17)
		case 2:
			r = rotateConst(x, 1e2, 1e17)
		default:
			r = rotateConst(x, 1e3, 1e17)
		}
	default:
		r = rotateTable(x, k, digits(x))
	}
	return int64(r), nil
}

// rotateConst is Rotate for an x of exactly n digits, given pk = 10^k and
// top = 10^(n-1); called with constants it inlines to a few multiplies.
// With x = lead·10^(n-1) + mid·10^k + tail and q = x/10^k = lead·p + mid
// (p = 10^(n-k-1)), the result lead·10^(n-1) + tail·p + mid equals
// x·p − q·(10^(n-1) − 1) + lead·(10^(n-1) − p). That form needs no
// remainder and its x·p starts before either division is done. The uint64
// terms may wrap, but the true result is below 10^19 < 2^64, so the
// wrapped sum is exact.
func rotateConst(x, pk, top uint64) uint64 {
	p := top / pk
	lead, q := x/top, x/pk
	return x*p - q*(top-1) + lead*(top-p)
}

// rotateTable is rotateConst for any digit count n of x, with the powers of
// ten and their reciprocals read from tables. Short IDs (n < k+2) come back
// unchanged.
func rotateTable(x uint64, k, n int) uint64 {
	if n < k+2 {
		return x
	}
	lead, _ := div10(x, n-1)
	q, tail := div10(x, k)
	p := pow10[(n-k-1)&31]
	return q + lead*(pow10[(n-1)&31]-p) + tail*p
}

// Unrotate moves the k decimal digits after the leading digit of id back to
// the end: Unrotate(Rotate(x, k), k) == x for every x Rotate accepts, and
// Rotate(Unrotate(y, k), k) == y for every y Unrotate accepts. IDs with
// fewer than k+2 digits are returned unchanged. Unrotate returns ErrDigits
// for k outside 1..3, ErrNegative for a negative id and ErrOverflow when
// the original 19-digit value would exceed math.MaxInt64 (so id cannot be
// the rotation of any int64).
func Unrotate(id int64, k int) (int64, error) {
	if id < 0 || uint(k-MinDigits) > MaxDigits-MinDigits {
		return 0, inputError("unrotate", id, k)
	}
	x := uint64(id)
	// The same split as in Rotate: constants for 18 and 19 digits, tables
	// for the rest.
	var r uint64
	switch {
	case x >= 1e18: // 19 digits, the only ones that can overflow
		switch k {
		case 1:
			r = unrotateConst(x, 1e1, 1e18)
		case 2:
			r = unrotateConst(x, 1e2, 1e18)
		default:
			r = unrotateConst(x, 1e3, 1e18)
		}
		if r > math.MaxInt64 {
			return 0, overflowError("unrotate", id, k, r)
		}
	case x >= 1e17: // 18 digits
		switch k {
		case 1:
			r = unrotateConst(x, 1e1, 1e17)
		case 2:
			r = unrotateConst(x, 1e2, 1e17)
		default:
			r = unrotateConst(x, 1e3, 1e17)
		}
	default:
		r = unrotateTable(x, k, digits(x))
	}
	return int64(r), nil
}

// unrotateConst is Unrotate for an x of exactly n digits, given pk = 10^k
// and top = 10^(n-1), in the same form as rotateConst: with
// x = lead·10^(n-1) + tail·p + mid (p = 10^(n-k-1)) and
// q = x/p = lead·10^k + tail, the result lead·10^(n-1) + mid·10^k + tail
// equals x·10^k − q·(10^(n-1) − 1) + lead·(10^(n-1) − 10^k), exact in
// wrapping uint64 arithmetic because it is below 10^19 < 2^64.
func unrotateConst(x, pk, top uint64) uint64 {
	p := top / pk
	lead, q := x/top, x/p
	return x*pk - q*(top-1) + lead*(top-pk)
}

// unrotateTable is unrotateConst for any digit count n of x, with the
// powers of ten and their reciprocals read from tables. Short IDs
// (n < k+2) come back unchanged.
func unrotateTable(x uint64, k, n int) uint64 {
	if n < k+2 {
		return x
	}
	lead, rest := div10(x, n-1) // rest = tail·10^(n-k-1) + mid
	tail, mid := div10(rest, n-k-1)
	return lead*pow10[(n-1)&31] + mid*pow10[k&31] + tail
}

// twenty is how many 20-digit uint64 values there are: 10^19 to
// math.MaxUint64. A 20-digit ID is 10^19 + r with r below twenty.
const twenty = math.MaxUint64 - 1e19 + 1

// MaxWalk is the most steps RotateUnsigned and UnrotateUnsigned take for
// one 20-digit ID: the 19 digits after its leading 1, rotated 19 times
// by k, come back to themselves (19 is prime).
const MaxWalk = 19

// RotateUnsigned is Rotate for BIGINT UNSIGNED keys: it takes every
// uint64, 0 to math.MaxUint64, and returns a uint64 of the same digit
// count; UnrotateUnsigned undoes it exactly. It returns an error (wrapping
// ErrDigits) only for k outside 1..3.
//
// Up to 19 digits it is Rotate's digit rotation. A 20-digit ID is
// 10^19 + r, its leading digit always 1 and r below 8446744073709551616
// (math.MaxUint64 − 10^19 + 1); moving the last k digits of r (read as 19
// digits, leading zeros kept) to its front gives r′ = tail·10^(19−k) +
// ⌊r/10^k⌋, which for about 15% of IDs (for k=1, every one ending in 9
// and some ending in 8) is too large to keep 10^19 + r′ a uint64. For
// those the rotation is applied again to r′, and again, until the value fits ("cycle walking";
// at most MaxWalk steps, as 19 rotations by k give r back). So the result
// is the digit rotation whenever that fits, the rotation by 2k, 3k, …
// digits otherwise: a bijection of the 20-digit uint64s onto themselves,
// whose inverse, UnrotateUnsigned, walks back the same way. Consecutive
// IDs still differ in the digits that move to the front, so they still
// land in 10^k key ranges.
func RotateUnsigned(id uint64, k int) (uint64, error) {
	if uint(k-MinDigits) > MaxDigits-MinDigits {
		return 0, unsignedError("rotate", id, k)
	}
	switch {
	case id >= 1e19: // 20 digits
		r := id - 1e19
		for range MaxWalk {
			q, tail := div10(r, k)
			if r = tail*pow10[(19-k)&31] + q; r < twenty {
				break
			}
		}
		return 1e19 + r, nil
	case id >= 1e18: // 19 digits: below 10^19, so every result fits
		return rotateTable(id, k, 19), nil
	}
	r, err := Rotate(int64(id), k)
	return uint64(r), err
}

// UnrotateUnsigned is Unrotate for BIGINT UNSIGNED keys: it takes every
// uint64 and undoes RotateUnsigned exactly:
// UnrotateUnsigned(RotateUnsigned(x, k), k) == x and
// RotateUnsigned(UnrotateUnsigned(y, k), k) == y for every uint64 x, y. It
// returns an error (wrapping ErrDigits) only for k outside 1..3.
func UnrotateUnsigned(id uint64, k int) (uint64, error) {
	if uint(k-MinDigits) > MaxDigits-MinDigits {
		return 0, unsignedError("unrotate", id, k)
	}
	switch {
	case id >= 1e19: // 20 digits: the first k of r's 19 digits back to its end, until it fits
		r := id - 1e19
		for range MaxWalk {
			head, rest := div10(r, 19-k)
			if r = rest*pow10[k&31] + head; r < twenty {
				break
			}
		}
		return 1e19 + r, nil
	case id >= 1e18:
		return unrotateTable(id, k, 19), nil
	}
	r, err := Unrotate(int64(id), k)
	return uint64(r), err
}

//go:noinline
func unsignedError(op string, id uint64, k int) error {
	return fmt.Errorf("%s %d: %w: %d (allowed %d-%d)", op, id, ErrDigits, k, MinDigits, MaxDigits)
}

// inputError and overflowError build the error messages out of line, so
// that the fast path of Rotate and Unrotate needs no stack frame for them.
//
//go:noinline
func inputError(op string, id int64, k int) error {
	if k < MinDigits || k > MaxDigits {
		return fmt.Errorf("%s %d: %w: %d (allowed %d-%d)", op, id, ErrDigits, k, MinDigits, MaxDigits)
	}
	return fmt.Errorf("%s %d: %w (allowed 0-%d)", op, id, ErrNegative, int64(math.MaxInt64))
}

//go:noinline
func overflowError(op string, id int64, k int, r uint64) error {
	return fmt.Errorf("%s %d by %d digits: %w int64 (%d > %d)", op, id, k, ErrOverflow, r, int64(math.MaxInt64))
}

// Range returns the key range a rotated ID falls in: its leading digit and
// the k digits after it, read as one number (for k=1, 561632… → 56). IDs of
// one digit count and one leading digit spread over 10^k such ranges. It
// returns the ID itself for IDs with fewer than k+2 digits and -1 for a
// negative ID or a k outside 1..3.
func Range(rotated int64, k int) int64 {
	if rotated < 0 || k < MinDigits || k > MaxDigits {
		return -1
	}
	x := uint64(rotated)
	n := digits(x)
	if n < k+2 {
		return rotated
	}
	q, _ := div10(x, n-k-1)
	return int64(q)
}
