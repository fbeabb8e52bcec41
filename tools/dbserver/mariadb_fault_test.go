package dbserver_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/dbserver"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestFaults: a paused server answers nothing until it continues; a data
// directory copied while the server is down and put back later takes the
// server back to that moment; a dump reloaded takes a table back.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own, pauses and restores it")
	}
	ctx := context.Background()
	srv := testsrv.NewMariaDB(t)
	dsn := testsrv.Database(t, srv)
	db := testsrv.Open(t, "mysql", dsn)
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	value := func() (v int) {
		t.Helper()
		if err := db.QueryRowContext(ctx, "SELECT v FROM t").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	exec("CREATE TABLE t (v int)")
	exec("INSERT INTO t VALUES (1)")

	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err := db.QueryRowContext(qctx, "SELECT 1").Scan(new(int))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a paused server answered: %v", err)
	}
	if err := srv.Continue(); err != nil {
		t.Fatal(err)
	}
	if v := value(); v != 1 {
		t.Errorf("after continue: %d", v)
	}

	if err := srv.CopyData(filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "running") {
		t.Errorf("copy of a running server: %v", err)
	}
	srv.Crash()
	backup := filepath.Join(t.TempDir(), "copy")
	if err := srv.CopyData(backup); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	exec("UPDATE t SET v = 2")
	srv.Crash()
	if err := srv.RestoreData(backup); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if v := value(); v != 1 {
		t.Errorf("after restoring the copy: %d, want 1", v)
	}

	var name string
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	dump, err := dbserver.DumpMariaDB(ctx, srv.Port(), name, "t")
	if err != nil {
		t.Fatal(err)
	}
	exec("UPDATE t SET v = 3")
	if err := dbserver.LoadMariaDB(ctx, srv.Port(), name, dump); err != nil {
		t.Fatal(err)
	}
	if v := value(); v != 1 {
		t.Errorf("after reloading the dump: %d, want 1", v)
	}
}
