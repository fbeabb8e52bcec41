package dbserver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shardid/shardid/tools/dbserver"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestOnDiskKeepsData: a server on disk keeps its tables across a kill
// and restart, and a sequence comes back past the values its dead process
// had cached.
func TestOnDiskKeepsData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own and restarts it")
	}
	ctx := context.Background()
	s, err := dbserver.StartTiDBOnDisk(ctx, dbserver.TiDBOptions{})
	switch {
	case errors.Is(err, dbserver.ErrTiDBNotInstalled) && !testsrv.InCI():
		t.Skipf("no TiDB: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	defer s.Stop()
	dsn, err := s.CreateDatabase(ctx, "disk")
	if err != nil {
		t.Fatal(err)
	}
	db := testsrv.Open(t, "mysql", dsn)
	for _, q := range []string{"CREATE TABLE t (v int)", "INSERT INTO t VALUES (7)", "CREATE SEQUENCE s CACHE 100"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	next := func() (v int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, "SELECT NEXTVAL(s)").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := next(); v != 1 {
		t.Fatalf("first NEXTVAL: %d", v)
	}
	if err := s.Restart(ctx); err == nil {
		t.Error("restart of a running server")
	}
	s.Crash()
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := db.QueryRowContext(ctx, "SELECT v FROM t").Scan(&v); err != nil || v != 7 {
		t.Errorf("after a restart: %d, %v; want 7", v, err)
	}
	if n := next(); n != 101 {
		t.Errorf("NEXTVAL after a restart: %d, want 101 (the cache of 100 dropped)", n)
	}
}
