package apply_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
)

// TestPreviousReleaseVersions applies the seed tables as the previous
// release did (goose at the versions their statements hash to, no steps
// table, out of order), then with a Migrator of this release: up FILE's
// migrations and gen's (numbered 00001… over an empty directory) both find
// every step applied and apply nothing. The negative control (run by hand)
// drops the branch of number that keeps an applied, unrecorded version:
// up FILE then numbers the steps anew and fails on the existing tables.
func TestPreviousReleaseVersions(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := srv.Database(t)
			ddls := tidbtest.RenderSQL(t, tidbtest.SeedInput(t, "global_tx_list"), tidb.Options{Target: srv.RenderTarget()})
			ms := tidbtest.Migrations(t, ddls)
			db, err := apply.Open(dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			old, err := gooseup.NewProvider(db, dialect.TiDB, apply.Files(ms), gooseup.Options{Goose: []goose.ProviderOption{goose.WithAllowOutofOrder(true)}})
			if err != nil {
				t.Fatal(err)
			}
			if res, err := old.Up(ctx); err != nil || len(res) != len(ms) {
				t.Fatalf("the previous release's up: %d of %d: %v", len(res), len(ms), err)
			}
			// Status only reads: it numbers the steps without creating the
			// steps table, so a role that can only read can run it.
			st, err := apply.NewMigrator(db, ms, apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := st.Status(ctx); err != nil || len(got) != len(ms) || !got[0].Applied {
				t.Fatalf("status over the previous release's versions: %d statuses: %v", len(got), err)
			}
			if stepsTable(t, db) {
				t.Fatal("status created the steps table: it must only read")
			}
			if _, res, err := tidbtest.Up(t, dsn, ms, ""); err != nil || tidbtest.CountApplied(res) != 0 {
				t.Fatalf("up FILE over the previous release's versions: %d applied: %v", tidbtest.CountApplied(res), err)
			}
			dir, err := apply.Migrations(&tidb.Plan{Tables: ddls}, apply.Options{Dir: apply.MapFS(nil)})
			if err != nil {
				t.Fatal(err)
			}
			if dir[0].Version != 1 {
				t.Fatalf("gen numbered %s, want 00001_…", dir[0].Name)
			}
			if !stepsTable(t, db) {
				t.Fatal("up did not create the steps table")
			}
			if _, res, err := tidbtest.Up(t, dsn, dir, ""); err != nil || tidbtest.CountApplied(res) != 0 {
				t.Fatalf("gen's files over the previous release's versions: %d applied: %v", tidbtest.CountApplied(res), err)
			}
		})
	}
}

// stepsTable reports whether the database holds shardid's steps table.
func stepsTable(t *testing.T, db *sql.DB) bool {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'shardid_tidb_steps'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}
