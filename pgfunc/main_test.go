package pgfunc_test

import (
	"context"
	"database/sql"
	"flag"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/shardid/shardid/internal/pgserver"
)

// update rewrites the golden files under testdata/ instead of comparing.
var update = flag.Bool("update", false, "rewrite golden files")

// srv is the package's throwaway PostgreSQL server (nil when none could be
// started outside CI).
var srv *pgserver.Server

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(pgserver.RunTests(m, &srv, pgserver.Options{}))
}

// newDB creates a fresh database for one test and returns a pool over it.
func newDB(t testing.TB) (*sql.DB, string) {
	t.Helper()
	s := pgserver.Need(t, srv)
	name := dbName(t)
	ctx := context.Background()
	if err := s.CreateDatabase(ctx, name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	dsn := s.DSN(name)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}
