package target

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// TestNamed: a server a DSN names is measured as it is: its DSN kept,
// its password out of Where, nothing started and nothing to stop; a Citus
// coordinator is told from a single server, and a server that cannot be
// asked is taken for a single one (the bench then says why).
func TestNamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, pg := testsrv.PGDB(t)
	withPassword := strings.Replace(pg, "postgres@", "postgres:s3cret@", 1)
	var notes strings.Builder
	tg, err := PG(ctx, withPassword, true, &notes)
	if err != nil || tg.DSN != withPassword || strings.Contains(tg.Where, "s3cret") || !strings.Contains(tg.Where, "xxxxx") || tg.Citus || tg.stop != nil || notes.Len() != 0 {
		t.Errorf("PG(%q) = %+v, %v; notes %q", withPassword, tg, err, notes.String())
	}
	tg.Stop()
	if tg, err := PG(ctx, "postgres://postgres@127.0.0.1:1/x?connect_timeout=2", false, &notes); err != nil || tg.Citus {
		t.Errorf("PG of an unreachable server: %+v, %v", tg, err)
	}
	_, coordinator := testsrv.CitusDB(t)
	if tg, err := PG(ctx, coordinator, false, &notes); err != nil || !tg.Citus {
		t.Errorf("PG of a Citus coordinator: %+v, %v; want Citus", tg, err)
	}
	tidb := "root:s3cret@tcp(127.0.0.1:1)/"
	if tg, err := TiDB(ctx, tidb, "/nonexistent/tidb-server", &notes); err != nil || tg.DSN != tidb || strings.Contains(tg.Where, "s3cret") {
		t.Errorf("TiDB(%q) = %+v, %v", tidb, tg, err)
	}
	if notes.Len() != 0 {
		t.Errorf("notes %q for servers a DSN names", notes.String())
	}
}

// TestThrowaway: without a DSN a throwaway PostgreSQL starts, says so on
// notes, takes connections, and is gone after Stop; a TiDB binary that is
// not there is an error naming it, before anything starts.
func TestThrowaway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own")
	}
	t.Parallel()
	ctx := context.Background()
	var notes strings.Builder
	tg, err := PG(ctx, "", false, &notes)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Stop()
	if !strings.HasPrefix(tg.Where, "a throwaway server on 127.0.0.1:") || !strings.Contains(tg.Where, "fsync on") || tg.Citus ||
		!strings.HasPrefix(notes.String(), "starting a throwaway PostgreSQL") {
		t.Errorf("throwaway: %+v, notes %q", tg, notes.String())
	}
	db, err := sql.Open("pgx", tg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var fsync string
	if err := db.QueryRowContext(ctx, "SHOW fsync").Scan(&fsync); err != nil || fsync != "on" {
		t.Errorf("throwaway server: fsync %q, %v; want on", fsync, err)
	}
	tg.Stop()
	db.Close()
	if db, err = sql.Open("pgx", tg.DSN+"&connect_timeout=2"); err == nil {
		defer db.Close()
		if err = db.PingContext(ctx); err == nil {
			t.Error("the throwaway server still answers after Stop")
		}
	}
	if _, err := TiDB(ctx, "", "/nonexistent/tidb-server", &notes); err == nil || !strings.Contains(err.Error(), "/nonexistent/tidb-server") {
		t.Errorf("TiDB without its binary: %v", err)
	}
}
