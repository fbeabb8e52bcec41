// Package quote keeps error messages that repeat what a user wrote on one
// line.
package quote

import (
	"strconv"
	"strings"
	"unicode"
)

// Controls returns msg with its control characters (newlines, tabs, NULs)
// and Unicode line and paragraph separators written as Go escapes (\n, \t,
// \x00, \u2028); every other character is kept as it is.
func Controls(msg string) string {
	if strings.IndexFunc(msg, hidden) < 0 {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		if hidden(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hidden(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
