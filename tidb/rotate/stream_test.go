package rotate

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestStream: shardid rotate's conversion of arguments and lines: a
// header passes, blank lines go, bad input is an *InputError naming its
// place, and what came before it is written.
func TestStream(t *testing.T) {
	s := Stream{Digits: 1}
	var b strings.Builder
	if err := s.Args(&b, []string{"12", "345"}); err != nil || b.String() != "12\n354\n" {
		t.Errorf("Args: %q, %v", b.String(), err)
	}
	b.Reset()
	var ie *InputError
	if err := s.Args(&b, []string{"12", "x"}); !errors.As(err, &ie) || err.Error() != `argument 2 "x" is not an ID (allowed: decimal integers 0-9223372036854775807; --unsigned takes up to 18446744073709551615)` || b.Len() != 0 {
		t.Errorf("Args bad: %q, %v", b.String(), err)
	}
	err := s.Lines(context.Background(), strings.NewReader("id\n12\n\n345\nnope\n9\n"), &b, "stdin")
	if !errors.As(err, &ie) || err.Error() != `stdin line 5: "nope" is not an ID (allowed: decimal integers 0-9223372036854775807; --unsigned takes up to 18446744073709551615)` || b.String() != "id\n12\n354\n" {
		t.Errorf("Lines: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := s.Lines(context.Background(), strings.NewReader(""), &b, "stdin"); err != nil || b.Len() != 0 {
		t.Errorf("empty: %q, %v", b.String(), err)
	}
	back := Stream{Digits: 1, Reverse: true}
	if err := back.Lines(context.Background(), strings.NewReader("12\n354\n"), &b, "in"); err != nil || b.String() != "12\n345\n" {
		t.Errorf("reverse: %q, %v", b.String(), err)
	}
	if err := (Stream{Unsigned: true}).Negative("-1"); !errors.As(err, &ie) || err.Error() != "-1 is not an ID (allowed with --unsigned: decimal integers 0-18446744073709551615; IDs are never negative)" {
		t.Errorf("Negative: %v", err)
	}
	if IsHeader("12") || !IsHeader("_id") || IsHeader("") {
		t.Error("IsHeader")
	}
}
