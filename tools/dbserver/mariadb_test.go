package dbserver_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestMariaDBAnswers proves the harness gives a real server that takes DDL
// and data in a database of its own, with parseTime in the DSN.
func TestMariaDBAnswers(t *testing.T) {
	s := testsrv.MariaDB(t)
	ctx := context.Background()
	dsn, err := s.CreateDatabase(ctx, "harness")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id BIGINT PRIMARY KEY, at DATETIME NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (1, NOW()), (2, NOW())"); err != nil {
		t.Fatal(err)
	}
	var n int
	var dbName string
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), DATABASE() FROM t").Scan(&n, &dbName); err != nil {
		t.Fatal(err)
	}
	if n != 2 || dbName != "harness" {
		t.Fatalf("got %d rows in %q, want 2 in harness (server %s)", n, dbName, version)
	}
	if _, err := s.CreateDatabase(ctx, "bad-name"); err == nil {
		t.Fatal("CreateDatabase accepted a name with a dash")
	}
}

// TestCrashRestartStop kills a server of its own, checks that it is gone,
// restarts it on the same port with its committed rows, and checks that
// Stop leaves nothing answering.
func TestCrashRestartStop(t *testing.T) {
	s := testsrv.NewMariaDB(t)
	ctx := context.Background()
	dsn, err := s.CreateDatabase(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	db := testsrv.Open(t, "mysql", dsn)
	db.SetMaxIdleConns(0)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id BIGINT PRIMARY KEY) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	s.Crash()
	if err := db.PingContext(ctx); err == nil {
		t.Fatal("server still answers after Crash")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 3 {
		t.Fatalf("after restart: %d rows, %v; want the 3 committed", n, err)
	}
	if err := s.Restart(ctx); err == nil {
		t.Fatal("Restart of a running server succeeded")
	}
	_ = s.Stop()
	_ = s.Stop() // twice is fine
	if err := db.PingContext(ctx); err == nil {
		t.Fatal("server still answers after Stop")
	}
}
