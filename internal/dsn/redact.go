package dsn

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// This file is the one place that knows where a DSN's password sits and
// how it may reach a message. A password can show up whole, percent- or
// backslash-decoded, or in pieces: pgx cuts a URL's user info at the
// first @ and prints the rest as a host name, net/url and
// go-sql-driver/mysql cut at the last @, and pgx's own masking of an
// unparsable DSN stops at the first space or quote. Redact shows a DSN
// with its passwords masked; a Redactor scrubs every such form from any
// message derived from the DSNs it was given.

// mask replaces a password.
const mask = "xxxxx"

// minSecret is the length of the shortest piece of a password a redactor
// scrubs from messages on its own. A shorter piece ("a" of "a@b…") would
// mask letters all over a message, and by where the masks fall show the
// very characters it hides. redactDSN masks passwords of any length, by
// where they stand in the DSN.
const minSecret = 4

// maxCuts bounds the cut points whose every span becomes a candidate
// piece (the count of spans grows with its square).
const maxCuts = 32

// cutChars are where some parser may cut a password into pieces: URL and
// MySQL DSN delimiters, key=value quoting and escapes, white space.
const cutChars = "@:/?#&=()'\"\\ \t\n\r\v\f"

// kvStart tells key=value words (host=db1 user=app) from URLs and MySQL
// DSNs (user:pw@tcp(host)/db).
var kvStart = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)

// schemePrefix is a URL's scheme://.
var schemePrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// passwordSpans returns where dsn's passwords stand, as [start, end) byte
// ranges in order: the user-info password of a URL or MySQL DSN (from the
// first : before the first @ to the last @, so that a password with an
// unescaped @ is covered whichever @ a parser cuts at), URL query values
// of password and sslpassword (keys percent-decoded, as pgx does), and the
// values of password and sslpassword words (any case, spaces around =,
// quoted or backslash-escaped).
func passwordSpans(dsn string) [][2]int {
	if kvStart.MatchString(dsn) {
		return kvPasswordSpans(dsn)
	}
	var spans [][2]int
	off := 0
	if m := schemePrefix.FindStringIndex(dsn); m != nil {
		off = m[1]
	}
	rest := dsn[off:]
	first, last := strings.IndexByte(rest, '@'), strings.LastIndexByte(rest, '@')
	userEnd := 0
	if first >= 0 {
		userEnd = last + 1
		if colon := strings.IndexByte(rest[:first], ':'); colon >= 0 && colon+1 < last {
			spans = append(spans, [2]int{off + colon + 1, off + last})
		}
	}
	if q := strings.IndexByte(rest[userEnd:], '?'); q >= 0 {
		pos := off + userEnd + q + 1
		for _, kv := range strings.Split(dsn[pos:], "&") {
			k, v, ok := strings.Cut(kv, "=")
			if dk, err := url.QueryUnescape(k); ok && v != "" && err == nil && isPasswordKey(dk) {
				start := pos + len(k) + 1
				spans = append(spans, [2]int{start, start + len(v)})
			}
			pos += len(kv) + 1
		}
	}
	return spans
}

// kvPasswordSpans finds the password values of key=value words, read as
// libpq and pgx read them: a value is quoted ('…', with \' and \\) or runs
// to the next white space, a backslash escaping the next character. An
// unterminated quote runs to the end.
func kvPasswordSpans(dsn string) [][2]int {
	var spans [][2]int
	i := 0
	for i < len(dsn) {
		eq := strings.IndexByte(dsn[i:], '=')
		if eq < 0 {
			break
		}
		key := strings.Fields(dsn[i : i+eq])
		i += eq + 1
		for i < len(dsn) && isSpace(dsn[i]) {
			i++
		}
		start := i
		if i < len(dsn) && dsn[i] == '\'' {
			for i++; i < len(dsn) && dsn[i] != '\''; i++ {
				if dsn[i] == '\\' {
					i++
				}
			}
			i = min(i+1, len(dsn))
		} else {
			for ; i < len(dsn) && !isSpace(dsn[i]); i++ {
				if dsn[i] == '\\' {
					i++
				}
			}
			i = min(i, len(dsn))
		}
		if len(key) > 0 && isPasswordKey(key[len(key)-1]) && i > start {
			spans = append(spans, [2]int{start, i})
		}
	}
	return spans
}

func isSpace(c byte) bool { return strings.IndexByte(" \t\n\r\v\f", c) >= 0 }

// isPasswordKey reports whether a connection parameter holds a password.
func isPasswordKey(k string) bool {
	k = strings.ToLower(k)
	return k == "password" || k == "sslpassword"
}

// Redact returns dsn with every password replaced by "xxxxx", for
// progress lines and errors: a PostgreSQL URL (postgres://user:pw@host/db,
// ?password=pw), key=value words (password=pw) or a go-sql-driver/mysql
// DSN (user:pw@tcp(host)/db).
func Redact(dsn string) string {
	var b strings.Builder
	at := 0
	for _, s := range passwordSpans(dsn) {
		b.WriteString(dsn[at:s[0]])
		b.WriteString(mask)
		at = s[1]
	}
	b.WriteString(dsn[at:])
	return NewRedactor(dsn).Scrub(b.String())
}

// Redactor scrubs the passwords of the DSNs it was given from messages.
// The zero value scrubs nothing; add DSNs as they become known. A nil
// *Redactor scrubs nothing either.
type Redactor struct {
	secrets []string // longest first
}

// NewRedactor returns a Redactor for dsns.
func NewRedactor(dsns ...string) *Redactor {
	r := &Redactor{}
	for _, d := range dsns {
		r.Add(d)
	}
	return r
}

// Add makes r scrub every form of dsn's passwords: each whole, decoded
// and undecoded, and every span of it between two points where a parser
// may cut it, when at least minSecret bytes long.
func (r *Redactor) Add(dsn string) {
	if r == nil || dsn == "" {
		return
	}
	seen := map[string]bool{}
	for _, s := range r.secrets {
		seen[s] = true
	}
	for _, sp := range passwordSpans(dsn) {
		raw := dsn[sp[0]:sp[1]]
		forms := []string{raw, unquote(raw)}
		if dec, err := url.PathUnescape(raw); err == nil {
			forms = append(forms, dec)
		}
		for _, f := range forms {
			for _, p := range pieces(f) {
				if !seen[p] {
					seen[p] = true
					r.secrets = append(r.secrets, p)
				}
			}
		}
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// unquote reads a key=value value: without its quotes, escapes resolved.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		v = v[1 : len(v)-1]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// pieces returns s and every span of it between two cut characters (or
// its ends), trimmed of cut characters, at least minSecret bytes long.
func pieces(s string) []string {
	bounds := []int{0}
	for i := 0; i < len(s) && len(bounds) <= maxCuts; i++ {
		if strings.IndexByte(cutChars, s[i]) >= 0 {
			bounds = append(bounds, i)
		}
	}
	bounds = append(bounds, len(s))
	out := []string{s}
	for i, from := range bounds {
		for _, to := range bounds[i+1:] {
			if p := strings.Trim(s[from:to], cutChars); len(p) >= minSecret && p != s {
				out = append(out, p)
			}
		}
	}
	if len(s) < minSecret {
		out = out[1:]
	}
	return out
}

// Scrub returns msg with every password r knows masked.
func (r *Redactor) Scrub(msg string) string {
	if r == nil {
		return msg
	}
	for _, s := range r.secrets {
		msg = strings.ReplaceAll(msg, s, mask)
	}
	return msg
}
