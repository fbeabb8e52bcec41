package rotate

import "strconv"

// Converter returns the conversion of IDs in bulk: Rotate or Unrotate
// (reverse) on int64 keys, or RotateUnsigned or UnrotateUnsigned for
// BIGINT UNSIGNED keys (unsigned), every one as a function of uint64 IDs
// (ParseID reads them).
func Converter(unsigned, reverse bool) func(id uint64, k int) (uint64, error) {
	switch {
	case unsigned && reverse:
		return UnrotateUnsigned
	case unsigned:
		return RotateUnsigned
	}
	conv := Rotate
	if reverse {
		conv = Unrotate
	}
	return func(id uint64, k int) (uint64, error) {
		r, err := conv(int64(id), k)
		return uint64(r), err
	}
}

// ParseID reads a decimal ID for Converter: 0 to math.MaxInt64, or to
// math.MaxUint64 when unsigned; ok is false for anything else.
func ParseID(s string, unsigned bool) (id uint64, ok bool) {
	bits := 63
	if unsigned {
		bits = 64
	}
	id, err := strconv.ParseUint(s, 10, bits)
	return id, err == nil
}
