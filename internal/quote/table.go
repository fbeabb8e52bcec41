package quote

import (
	"errors"
	"fmt"
	"strings"
)

// MaxIdent is the longest identifier the counters' tables get:
// PostgreSQL's 63 bytes (MySQL, MariaDB and TiDB take 64).
const MaxIdent = 63

// CheckTable is the one table-name rule of the counters (lease, segment,
// tickets): name is name or, with schema, schema.name; each part a
// lower-case letter or _ then lower-case letters, digits and _ (the same
// name quoted or not, which goose's version-table option needs), not
// starting with pg_ (PostgreSQL's own); the table part at most
// MaxIdent-suffix bytes, suffix being the longest a package appends to
// make the names of its other tables (a goose history, a record table). It
// returns an error saying what is allowed, for the package to wrap with
// its sentinel, or nil.
func CheckTable(name string, schema bool, suffix int) error {
	parts := strings.Split(name, ".")
	ok := len(parts) == 1 || schema && len(parts) == 2
	for _, p := range parts {
		ok = ok && ident(p) && !strings.HasPrefix(p, "pg_")
	}
	if ok && len(parts[len(parts)-1]) <= MaxIdent-suffix {
		return nil
	}
	want := "name"
	if schema {
		want = "name or schema.name"
	}
	return fmt.Errorf("want %s, each part a lower-case letter or _ then lower-case letters, digits and _, not pg_*, the name at most %d bytes", want, MaxIdent-suffix)
}

// ident reports whether p is a plain lower-case identifier.
func ident(p string) bool {
	if p == "" || len(p) > MaxIdent || !(p[0] == '_' || p[0] >= 'a' && p[0] <= 'z') {
		return false
	}
	for i := 1; i < len(p); i++ {
		if c := p[i]; c != '_' && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ErrUnchecked is what Table panics with for a name CheckTable refuses:
// a name is checked before it is quoted.
var ErrUnchecked = errors.New("quote: table name not checked")

// Table quotes a name CheckTable accepted (any suffix), part by part:
// "app"."ids" with ansi (PostgreSQL), `app`.`ids` otherwise (MySQL,
// MariaDB, TiDB). The parts hold only [a-z0-9_], so there is nothing to
// escape; a name that does not is a programming error (it panics).
func Table(name string, ansi bool) string {
	if CheckTable(name, true, 0) != nil {
		panic(fmt.Errorf("%w: %q", ErrUnchecked, name))
	}
	q := "`"
	if ansi {
		q = `"`
	}
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = q + p + q
	}
	return strings.Join(parts, ".")
}

// Ident quotes one SQL identifier of any content: "a""b" with ansi
// (PostgreSQL), `a“b` otherwise (MySQL, MariaDB, TiDB), the quote
// character inside doubled as both grammars read it. Callers check a
// name a user gave against their own rules first; Ident only makes any
// name read as one identifier.
func Ident(s string, ansi bool) string {
	q := "`"
	if ansi {
		q = `"`
	}
	return q + strings.ReplaceAll(s, q, q+q) + q
}

// Literal quotes a PostgreSQL string literal (standard_conforming_strings
// on, as from 9.1): 'it”s'.
func Literal(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
