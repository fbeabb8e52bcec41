package apply_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
)

// lockRounds is how many fresh databases TestConcurrentUps races two runs
// on, per server.
const lockRounds = 10

// TestConcurrentUps starts two runs of up FILE together on a fresh
// database, each with a new step of its own (two deploys at once), ten
// times on TiDB and on MariaDB: both succeed, every step's statements ran
// (its table exists) and every version is recorded once, in goose's
// history and in the steps table. Each run reads the status first, so
// Up must number again under the lock. The negative controls (run by
// hand) drop the run lock from Up, or keep it but let Up reuse the
// numbering Status read: both runs number their step alike, and one
// reports success for a step whose table it never created, or both
// record one version.
func TestConcurrentUps(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			steps := map[string][]apply.Migration{}
			for _, table := range []string{"race_a", "race_b"} {
				p := tidbtest.PlanScript(t, "CREATE TABLE "+table+" (id BIGINT NOT NULL PRIMARY KEY, v INT);", tidb.Options{Target: srv.RenderTarget()})
				steps[table] = tidbtest.PlanMigrations(t, p)
			}
			for round := range lockRounds {
				t.Run(fmt.Sprint("round", round), func(t *testing.T) {
					raceUps(t, srv.Database(t), steps)
				})
			}
		})
	}
}

// raceUps runs one Migrator per table of steps at once over dsn, each on
// a pool of its own, and checks what they left.
func raceUps(t *testing.T, dsn string, steps map[string][]apply.Migration) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := map[string]error{}
	var mu sync.Mutex
	want := 0
	for table, ms := range steps {
		want += len(ms)
		db := tidbtest.Open(t, dsn)
		m, err := apply.NewMigrator(db, ms, apply.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// What a run read before it holds the lock is stale by the
		// time it applies: Up must number again under the lock.
		if _, err := m.Status(context.Background()); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := m.Up(context.Background())
			if err == nil && tidbtest.CountApplied(res) != len(ms) {
				err = fmt.Errorf("%d of %d applied", tidbtest.CountApplied(res), len(ms))
			}
			mu.Lock()
			errs[table] = err
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	for table, err := range errs {
		if err != nil {
			t.Errorf("up of %s: %v", table, err)
		}
		if tidbtest.ShowCreate(t, dsn, table) == "" {
			t.Errorf("up of %s: its table is missing: its statements never ran", table)
		}
	}
	db := tidbtest.Open(t, dsn)
	for what, q := range map[string]string{
		"goose's history": "SELECT version_id, COUNT(*) FROM goose_db_version WHERE is_applied AND version_id > 0 GROUP BY version_id",
		"the steps table": "SELECT version, COUNT(*) FROM shardid_tidb_steps WHERE history = 'goose_db_version' GROUP BY version",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		versions := 0
		for rows.Next() {
			var v, n int64
			if err := rows.Scan(&v, &n); err != nil {
				t.Fatal(err)
			}
			versions++
			if n != 1 {
				t.Errorf("%s records version %d %d times", what, v, n)
			}
		}
		rows.Close()
		if versions != want {
			t.Errorf("%s holds %d versions, want %d (one per step)", what, versions, want)
		}
	}
}

// TestUpWaitsForLock holds Up's run lock from another session: Up with a
// one-second timeout fails with ErrLocked, naming the lock, having applied
// nothing; Status still reads (it takes no lock); once the lock is free,
// Up applies and lets the lock go.
func TestUpWaitsForLock(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := srv.Database(t)
			ms := tidbtest.PlanMigrations(t, tidbtest.PlanScript(t, "CREATE TABLE held (id BIGINT NOT NULL PRIMARY KEY);", tidb.Options{Target: srv.RenderTarget()}))
			m, err := apply.NewMigrator(tidbtest.Open(t, dsn), ms, apply.Options{LockTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			name, err := m.LockName(ctx)
			if err != nil || !strings.HasPrefix(name, "shardid_tidb_up_") || len(name) > 64 {
				t.Fatalf("lock name %q: %v", name, err)
			}
			holder, err := tidbtest.Open(t, dsn).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			lock := func(q string) {
				t.Helper()
				var got sql.NullInt64
				if err := holder.QueryRowContext(ctx, q, name).Scan(&got); err != nil || got.Int64 != 1 {
					t.Fatalf("%s: %v, %v", q, got, err)
				}
			}
			lock("SELECT GET_LOCK(?, 1)")
			res, err := m.Up(ctx)
			if !errors.Is(err, apply.ErrLocked) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "another shardid tidb up") || res != nil {
				t.Fatalf("up while the lock is held: %d results, %v; want ErrLocked naming %s", len(res), err, name)
			}
			t.Logf("up while the lock is held: %v", err)
			if tidbtest.ShowCreate(t, dsn, "held") != "" || stepsTable(t, tidbtest.Open(t, dsn)) {
				t.Fatal("up applied while another session held its lock")
			}
			if st, err := m.Status(ctx); err != nil || len(st) != len(ms) || st[0].Applied {
				t.Fatalf("status while the lock is held: %d, %v", len(st), err)
			}
			lock("SELECT RELEASE_LOCK(?)")
			if res, err := m.Up(ctx); err != nil || tidbtest.CountApplied(res) != len(ms) {
				t.Fatalf("up once the lock is free: %d of %d: %v", tidbtest.CountApplied(res), len(ms), err)
			}
			lock("SELECT GET_LOCK(?, 1)") // up let it go
		})
	}
}

// TestLockTimeoutOption: a lock timeout below zero or above an hour is
// refused, naming what is allowed.
func TestLockTimeoutOption(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, 2 * time.Hour} {
		if err := (apply.Options{LockTimeout: d}).Validate(); !errors.Is(err, apply.ErrInvalidLockTimeout) || !strings.Contains(err.Error(), "1h0m0s") {
			t.Errorf("LockTimeout %s: %v", d, err)
		}
	}
	if err := (apply.Options{LockTimeout: time.Hour}).Validate(); err != nil {
		t.Errorf("an hour: %v", err)
	}
}

// TestVersionTakenMeanwhile: something other than shardid (the goose CLI
// over a gen directory) records a step's version in goose's history while
// Up runs, after Up numbered it and before it applies it. Up fails with
// ErrVersionTaken and reports the step not applied, instead of counting a
// step whose statements never ran as done; the next up numbers it after
// and runs it. The negative control (run by hand): Up's previous handling
// (skip the step as applied meanwhile) returns no error and the table is
// missing.
func TestVersionTakenMeanwhile(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			dsn := srv.Database(t)
			p := tidbtest.PlanScript(t, "CREATE TABLE taken (id BIGINT NOT NULL PRIMARY KEY, v INT);", tidb.Options{Target: srv.RenderTarget()})
			ms := tidbtest.PlanMigrations(t, p)
			first := tidbtest.PlanScript(t, "CREATE TABLE first (id BIGINT NOT NULL PRIMARY KEY);", tidb.Options{Target: srv.RenderTarget()})
			tidbtest.UpAll(t, dsn, tidbtest.PlanMigrations(t, first)) // goose's history table, one step in it
			other := tidbtest.Open(t, dsn)
			struck := false
			apply.SetBeforeApply(func(v int64) {
				if struck {
					return
				}
				struck = true
				if _, err := other.Exec("INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, TRUE)", v); err != nil {
					t.Errorf("record version %d as another writer: %v", v, err)
				}
			})
			defer apply.SetBeforeApply(nil)
			m, err := apply.NewMigrator(tidbtest.Open(t, dsn), ms, apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.Up(context.Background())
			if !errors.Is(err, apply.ErrVersionTaken) {
				t.Fatalf("up with its version taken meanwhile: %v (%d applied), want ErrVersionTaken", err, tidbtest.CountApplied(res))
			}
			if !struck {
				t.Fatal("the hook never ran: Up applied nothing")
			}
			if tidbtest.CountApplied(res) != 0 || tidbtest.ShowCreate(t, dsn, "taken") != "" {
				t.Fatalf("up reported %d applied, table %q", tidbtest.CountApplied(res), tidbtest.ShowCreate(t, dsn, "taken"))
			}
			if !strings.Contains(err.Error(), "did not run") {
				t.Errorf("error does not say the step did not run: %v", err)
			}
			again, err := apply.NewMigrator(tidbtest.Open(t, dsn), ms, apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res, err := again.Up(context.Background()); err != nil || tidbtest.CountApplied(res) != 1 {
				t.Fatalf("up again: %d applied, %v", tidbtest.CountApplied(res), err)
			}
			if tidbtest.ShowCreate(t, dsn, "taken") == "" {
				t.Fatal("up again: the table is still missing")
			}
		})
	}
}
