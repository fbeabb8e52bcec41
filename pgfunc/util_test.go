package pgfunc_test

import (
	"context"
	"database/sql"
	"net/url"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
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

// newRole creates a login role for this test (named after its database, so
// reruns and parallel tests never collide) with the given extra
// attributes, and drops it and what it owns when the test ends.
func newRole(t testing.TB, db *sql.DB, suffix, attributes string) string {
	t.Helper()
	name := dbNameOf(t, db) + "_" + suffix
	if _, err := db.Exec("CREATE ROLE " + name + " LOGIN " + attributes); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP OWNED BY " + name)
		_, _ = db.Exec("DROP ROLE " + name)
	})
	return name
}

// dsnAs returns dsn with role as its user (the test servers trust local
// connections).
func dsnAs(t testing.TB, dsn, role string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// asRole returns a connection to the database of dsn as role.
func asRole(t testing.TB, dsn, role string) *sql.Conn {
	t.Helper()
	db := testsrv.Open(t, "pgx", dsnAs(t, dsn, role))
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// newConn returns a connection of its own from db, closed when the test
// ends.
func newConn(t testing.TB, db *sql.DB) *sql.Conn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// backendPID returns the process id of conn's server backend.
func backendPID(t testing.TB, conn *sql.Conn) int {
	t.Helper()
	var pid int
	if err := conn.QueryRowContext(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}
