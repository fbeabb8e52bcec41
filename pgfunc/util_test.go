package pgfunc_test

import (
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

var dbSeq atomic.Int64

// dbName derives a unique, valid database name from the test name.
func dbName(t testing.TB) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name()) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 40 {
		s = s[:40]
	}
	return fmt.Sprintf("t%d_%s", dbSeq.Add(1), s)
}

// dbNameOf returns the name of the database db is connected to.
func dbNameOf(t testing.TB, db *sql.DB) string {
	t.Helper()
	var name string
	if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}
