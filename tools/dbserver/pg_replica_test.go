package dbserver_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/shardid/shardid/tools/dbserver"

	"github.com/shardid/shardid/tools/testsrv"
)

// count returns how many rows table t holds on the server of dsn, and
// whether that server is in recovery.
func count(t *testing.T, dsn string) (rows int, recovering bool) {
	t.Helper()
	db := testsrv.Open(t, "pgx", dsn)
	if err := db.QueryRow("SELECT (SELECT count(*) FROM t), pg_is_in_recovery()").Scan(&rows, &recovering); err != nil {
		t.Fatal(err)
	}
	return rows, recovering
}

// TestBackupAndStandby: a restored base backup holds what the origin had
// when it was taken and nothing later, and takes writes; a standby
// follows its origin until isolated, stays in recovery, and takes writes
// once promoted; all three keep the origin's system identifier.
func TestBackupAndStandby(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers")
	}
	ctx := context.Background()
	origin := testsrv.NewPG(t, dbserver.PGOptions{})
	dsn := testsrv.Database(t, origin)
	db := testsrv.Open(t, "pgx", dsn)
	exec := func(db *sql.DB, q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(db, "CREATE TABLE t (i int); INSERT INTO t VALUES (1)")
	backup, err := origin.BaseBackup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer backup.Remove()
	standby, err := origin.StartStandby(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Stop()
	exec(db, "INSERT INTO t VALUES (2)")
	if err := origin.WaitReplay(ctx, standby); err != nil {
		t.Fatal(err)
	}
	var dbName string
	if err := db.QueryRow("SELECT current_database()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	if rows, rec := count(t, standby.DSN(dbName)); rows != 2 || !rec {
		t.Fatalf("standby: %d rows, in recovery %v; want 2, true", rows, rec)
	}
	if err := standby.Isolate(ctx); err != nil {
		t.Fatal(err)
	}
	exec(db, "INSERT INTO t VALUES (3)")
	restored, err := backup.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Stop()
	if rows, rec := count(t, restored.DSN(dbName)); rows != 1 || rec {
		t.Fatalf("restored backup: %d rows, in recovery %v; want 1, false", rows, rec)
	}
	exec(testsrv.Open(t, "pgx", restored.DSN(dbName)), "INSERT INTO t VALUES (4)")
	if rows, rec := count(t, standby.DSN(dbName)); rows != 2 || !rec {
		t.Fatalf("isolated standby: %d rows, in recovery %v; want 2, true", rows, rec)
	}
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	exec(testsrv.Open(t, "pgx", standby.DSN(dbName)), "INSERT INTO t VALUES (5)")
	if rows, rec := count(t, standby.DSN(dbName)); rows != 3 || rec {
		t.Fatalf("promoted standby: %d rows, in recovery %v; want 3, false", rows, rec)
	}
	ids := map[string]bool{}
	for _, s := range []*dbserver.PG{origin, restored, standby} {
		var id string
		if err := testsrv.Open(t, "pgx", s.DSN("postgres")).QueryRow("SELECT system_identifier::text FROM pg_control_system()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	if len(ids) != 1 {
		t.Fatalf("system identifiers %v; want the origin's on all three", ids)
	}
}
