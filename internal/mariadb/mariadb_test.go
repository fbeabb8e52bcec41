package mariadb_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/shardid/shardid/internal/mariadb"
)

var server *mariadb.Server

func TestMain(m *testing.M) { mariadb.Main(m, &server) }

// TestServerAnswers proves the harness gives a real server that takes DDL
// and data in a database of its own, with parseTime in the DSN.
func TestServerAnswers(t *testing.T) {
	s := mariadb.Need(t, server)
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

// TestStopRemovesEverything starts a second server and checks that Stop
// leaves nothing answering on its port.
func TestStopRemovesEverything(t *testing.T) {
	mariadb.Need(t, server)
	s, err := mariadb.Start(context.Background(), mariadb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dsn := s.DSN("")
	s.Stop()
	s.Stop() // twice is fine
	db, _ := sql.Open("mysql", dsn)
	defer db.Close()
	if err := db.Ping(); err == nil {
		t.Fatal("server still answers after Stop")
	}
}
