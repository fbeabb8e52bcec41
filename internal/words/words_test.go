package words

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "shards"}, {1, "shard"}, {2, "shards"}, {-1, "shards"}} {
		if got := Plural(c.n, "shard", "shards"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := Plural(1, "counter", "counters"); got != "counter" {
		t.Errorf("Plural(int 1) = %q", got)
	}
}

func TestNearest(t *testing.T) {
	flags := []string{"dsn", "shards", "shard-bits", "schema-format", "lock-timeout", "json"}
	for _, c := range []struct{ name, want string }{
		{"shard", "shards"}, // one letter short
		{"dns", "dsn"},      // neighbours swapped
		{"ldsn", "dsn"},     // one letter too many
		{"lock-timout", "lock-timeout"},
		{"shard-bit", "shard-bits"},
		{"js", ""},    // too short to tell
		{"xyzzy", ""}, // nothing close
		{"jsno", "json"},
		{"dsn", "dsn"},
	} {
		if got := Nearest(c.name, flags); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Nearest("abcd", []string{"abce", "abcf"}); got != "" {
		t.Errorf("two equally close names: Nearest = %q, want \"\"", got)
	}
	if got := Nearest("shard", nil); got != "" {
		t.Errorf("no names: Nearest = %q", got)
	}
}

func TestStampAndOneLine(t *testing.T) {
	at := time.Date(2026, 12, 3, 7, 8, 9, 123456789, time.FixedZone("X", 3600))
	if got := Stamp(at); got != "2026-12-03T06:08:09.123Z" {
		t.Errorf("Stamp = %q", got)
	}
	if got := Stamp(time.Time{}); got != "an unknown time" {
		t.Errorf("Stamp(zero) = %q", got)
	}
	if got := OneLine("  dial 127.0.0.1:1: refused\n\tdial [::1]:1:   refused\n"); got != "dial 127.0.0.1:1: refused | dial [::1]:1: refused" {
		t.Errorf("OneLine = %q", got)
	}
}

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n   int
	got []byte
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	f.got = append(f.got, p...)
	return len(p), nil
}

func TestWriterKeepsFirstError(t *testing.T) {
	f := &failAfter{n: 1}
	w := &Writer{W: f}
	fmt.Fprint(w, "one\n")
	fmt.Fprint(w, "two\n")
	f.n = 5 // the destination would take more: the writer writes nothing past the gap
	if _, err := fmt.Fprint(w, "three\n"); err == nil || w.Err == nil || w.Err.Error() != "disk full" {
		t.Fatalf("after a failed write: %v, Err %v", err, w.Err)
	}
	if string(f.got) != "one\n" {
		t.Errorf("written %q, want only the line before the failure", f.got)
	}
}
