package rotate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Stream converts IDs in bulk, as `shardid rotate` does: given as
// arguments, or one a line of text, each written to its own line.
type Stream struct {
	// Digits is the number of trailing digits moved (MinDigits to
	// MaxDigits).
	Digits int
	// Unsigned takes IDs of a BIGINT UNSIGNED key (up to
	// math.MaxUint64), Reverse undoes the rotation (Converter).
	Unsigned, Reverse bool
}

// InputError is input a Stream cannot convert: not an ID, or an ID that
// has no rotation. Its text says where it is and what is allowed.
type InputError struct{ msg string }

// Error says where the input is and what is wrong with it.
func (e *InputError) Error() string { return e.msg }

// allowed is what the stream takes as an ID.
func (s Stream) allowed() string {
	if s.Unsigned {
		return "decimal integers 0-18446744073709551615"
	}
	return "decimal integers 0-9223372036854775807; --unsigned takes up to 18446744073709551615"
}

// Negative is the *InputError for arg, a negative number given where an
// ID goes: IDs are never negative.
func (s Stream) Negative(arg string) error {
	allowed := "allowed: decimal integers 0-9223372036854775807"
	if s.Unsigned {
		allowed = "allowed with --unsigned: decimal integers 0-18446744073709551615"
	}
	return &InputError{fmt.Sprintf("%s is not an ID (%s; IDs are never negative)", arg, allowed)}
}

// Args writes the conversion of every ID of args to w, one a line. When
// an argument is not an ID it writes nothing; it stops at an ID with no
// rotation. Both errors are an *InputError naming the argument
// ("argument 2").
func (s Stream) Args(w io.Writer, args []string) error {
	ids := make([]uint64, len(args))
	for i, a := range args {
		id, ok := ParseID(a, s.Unsigned)
		if !ok {
			return &InputError{fmt.Sprintf("argument %d %q is not an ID (allowed: %s)", i+1, a, s.allowed())}
		}
		ids[i] = id
	}
	out := bufio.NewWriter(w)
	conv := Converter(s.Unsigned, s.Reverse)
	for i, id := range ids {
		r, err := conv(id, s.Digits)
		if err != nil {
			out.Flush()
			return &InputError{fmt.Sprintf("argument %d: %v", i+1, err)}
		}
		fmt.Fprintln(out, r)
	}
	return out.Flush()
}

// Lines converts the IDs read from r, one a line, to w, one a line, until
// r ends, ctx is done or a line cannot be converted. Blank lines carry no
// ID; a first line that names a column (IsHeader) is written as it is.
// A line that is not an ID, or has no rotation, is an *InputError naming
// it (name line N, e.g. "stdin line 7"); what was converted before it is
// written. A failed read is an error naming r (name: ...).
func (s Stream) Lines(ctx context.Context, r io.Reader, w io.Writer, name string) error {
	out := bufio.NewWriter(w)
	defer out.Flush()
	conv := Converter(s.Unsigned, s.Reverse)
	sc := bufio.NewScanner(r)
	buf := make([]byte, 0, 32)
	for line := 1; sc.Scan(); line++ {
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue // blank lines carry no ID
		}
		id, ok := ParseID(text, s.Unsigned)
		if !ok && line == 1 && IsHeader(text) {
			fmt.Fprintln(out, text) // a header line (e.g. "id") passes through
			continue
		}
		if !ok {
			out.Flush()
			return &InputError{fmt.Sprintf("%s line %d: %q is not an ID (allowed: %s)", name, line, text, s.allowed())}
		}
		rot, err := conv(id, s.Digits)
		if err != nil {
			out.Flush()
			return &InputError{fmt.Sprintf("%s line %d: %v", name, line, err)}
		}
		buf = strconv.AppendUint(buf[:0], rot, 10)
		buf = append(buf, '\n')
		if _, err := out.Write(buf); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: a line is longer than %d bytes: %w", name, bufio.MaxScanTokenSize, err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return out.Flush()
}

// IsHeader reports a first line of input that names a column rather than
// holding a number: it starts with a letter or _.
func IsHeader(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] == '_')
}
