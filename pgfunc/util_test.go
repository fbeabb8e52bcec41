package pgfunc_test

import (
	"database/sql"
	"testing"
)

// dbNameOf returns the name of the database db is connected to.
func dbNameOf(t testing.TB, db *sql.DB) string {
	t.Helper()
	var name string
	if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}
