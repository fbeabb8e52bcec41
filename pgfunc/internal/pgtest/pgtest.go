// Package pgtest holds the helpers the pgfunc packages' tests share: a
// fresh database on the package's test server, roles, connections as
// them. It is imported by tests only.
package pgtest

import (
	"context"
	"database/sql"
	"net/url"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

// NewDB creates a fresh database for one test on the package's shared
// PostgreSQL server and returns a pool over it and its DSN.
func NewDB(t testing.TB) (*sql.DB, string) {
	t.Helper()
	return testsrv.PGDB(t)
}

// DBNameOf returns the name of the database db is connected to.
func DBNameOf(t testing.TB, db *sql.DB) string {
	t.Helper()
	var name string
	if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

// NewRole creates a login role for this test (named after its database, so
// reruns and parallel tests never collide) with the given extra
// attributes, and drops it and what it owns when the test ends.
func NewRole(t testing.TB, db *sql.DB, suffix, attributes string) string {
	t.Helper()
	name := DBNameOf(t, db) + "_" + suffix
	if _, err := db.Exec("CREATE ROLE " + name + " LOGIN " + attributes); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP OWNED BY " + name)
		_, _ = db.Exec("DROP ROLE " + name)
	})
	return name
}

// DSNAs returns dsn with role as its user (the test servers trust local
// connections).
func DSNAs(t testing.TB, dsn, role string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// AsRole returns a connection to the database of dsn as role.
func AsRole(t testing.TB, dsn, role string) *sql.Conn {
	t.Helper()
	db := testsrv.Open(t, "pgx", DSNAs(t, dsn, role))
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// NewConn returns a connection of its own from db, closed when the test
// ends.
func NewConn(t testing.TB, db *sql.DB) *sql.Conn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// BackendPID returns the process id of conn's server backend.
func BackendPID(t testing.TB, conn *sql.Conn) int {
	t.Helper()
	var pid int
	if err := conn.QueryRowContext(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}
