// Package words holds the wording helpers every package's reports share,
// so that a sentence reads the same whichever package prints it.
package words

import (
	"strings"
	"time"
)

// Plural returns one when n is 1 and many otherwise: the wording of a
// count, e.g. Plural(n, "shard", "shards").
func Plural[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Stamp writes an instant in messages, in UTC to the millisecond, or "an
// unknown time" for the zero time.
func Stamp(t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// OneLine folds msg (a server's error, say, which may span lines) onto one
// line: line breaks become " | " and runs of spaces one space.
func OneLine(msg string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(msg), "\n", " | ")), " ")
}
