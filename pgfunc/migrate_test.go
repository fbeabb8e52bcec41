package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

func shardsFor(t testing.TB, spec string) []pgfunc.Shard {
	t.Helper()
	ids, err := shardid.ParseShards(spec, shardid.Instagram())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]pgfunc.Shard, len(ids))
	for i, id := range ids {
		name, err := pgfunc.SchemaName("", id)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = pgfunc.Shard{Schema: name, ID: id}
	}
	return out
}

// TestUpKeepsHistoryInSchema applies four shards, checks each schema holds
// its own goose history and generator, and that a rerun applies nothing.
func TestUpKeepsHistoryInSchema(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	shards := shardsFor(t, "0-2,7")
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil || !r.Applied {
			t.Fatalf("%s: applied=%v err=%v", r.Shard.Schema, r.Applied, r.Err)
		}
	}
	for _, sh := range shards {
		var version int64
		if err := db.QueryRow("SELECT max(version_id) FROM " + sh.Schema + ".goose_db_version").Scan(&version); err != nil {
			t.Fatalf("%s: no goose history inside the schema: %v", sh.Schema, err)
		}
		if version != 1 {
			t.Fatalf("%s: version %d", sh.Schema, version)
		}
		var shard int64
		if err := db.QueryRow("SELECT " + sh.Schema + ".id_shard(" + sh.Schema + ".next_id())").Scan(&shard); err != nil || shard != sh.ID {
			t.Fatalf("%s: id_shard(next_id()) = %d, %v", sh.Schema, shard, err)
		}
	}
	var public bool
	if err := db.QueryRow("SELECT to_regclass('public.goose_db_version') IS NOT NULL").Scan(&public); err != nil || public {
		t.Fatalf("a goose table appeared in public (%v)", err)
	}
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil || r.Applied {
			t.Fatalf("rerun %s: applied=%v err=%v", r.Shard.Schema, r.Applied, r.Err)
		}
	}
	st, err := m.Status(ctx, append(shards, pgfunc.Shard{Schema: "insta9", ID: 9}))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st[:len(shards)] {
		if s.Version != 1 || s.Installed == nil || !s.Matches {
			t.Fatalf("status %s: %+v", s.Shard.Schema, s)
		}
	}
	if last := st[len(shards)]; last.Version != 0 || last.Installed != nil {
		t.Fatalf("status of a shard never applied: %+v", last)
	}
	found, err := m.Server().Discover(ctx)
	if err != nil || len(found) != len(shards) {
		t.Fatalf("discover: %v, %v", found, err)
	}
}

// TestLockIDsDiffer: each schema migrates under its own goose lock id.
func TestLockIDsDiffer(t *testing.T) {
	t.Parallel()
	seen := map[int64]string{}
	for _, sh := range shardsFor(t, "0-8191") {
		id := migrate.LockID(sh.Schema)
		if other, ok := seen[id]; ok {
			t.Fatalf("%s and %s share lock id %d", sh.Schema, other, id)
		}
		if id < 0 {
			t.Fatalf("negative lock id %d", id)
		}
		seen[id] = sh.Schema
	}
}

// TestFailedSchemaLeavesOthers: one schema fails (an object in the way);
// the others are applied, the failed one is rolled back whole, and a rerun
// after the obstacle is gone completes it.
func TestFailedSchemaLeavesOthers(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	if _, err := db.Exec(`CREATE SCHEMA insta1; CREATE FUNCTION insta1.next_id_jump_1() RETURNS text LANGUAGE sql AS 'SELECT 1::text'`); err != nil {
		t.Fatal(err)
	}
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	shards := shardsFor(t, "0-2")
	var reported int
	res, _ := m.Up(ctx, shards, func(pgfunc.Result) { reported++ })
	if reported != len(shards) {
		t.Fatalf("progress callback ran %d times for %d shards", reported, len(shards))
	}
	if res[0].Err != nil || res[2].Err != nil {
		t.Fatalf("healthy shards failed: %v / %v", res[0].Err, res[2].Err)
	}
	if res[1].Err == nil || !strings.Contains(res[1].Err.Error(), "insta1") {
		t.Fatalf("shard 1 should fail naming its schema: %v", res[1].Err)
	}
	var half bool
	if err := db.QueryRow("SELECT to_regclass('insta1.next_id_seq') IS NOT NULL").Scan(&half); err != nil || half {
		t.Fatalf("failed shard left objects behind (%v)", err)
	}
	if _, err := db.Exec("DROP FUNCTION insta1.next_id_jump_1()"); err != nil {
		t.Fatal(err)
	}
	res, _ = m.Up(ctx, shards, nil)
	if res[1].Err != nil || !res[1].Applied || res[0].Applied || res[2].Applied {
		t.Fatalf("rerun: %+v", res)
	}
}

// TestRefusals: a different layout or mode on an applied schema, and a
// shard id already held by another schema, are refused per shard.
func TestRefusals(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if r, _ := m.Up(ctx, shardsFor(t, "3"), nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	classic, _ := migrate.New(db, pgfunc.Options{Mode: pgfunc.ModeClassic}, migrate.Options{OwnDatabaseOnly: true})
	if r, _ := classic.Up(ctx, shardsFor(t, "3"), nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) {
		t.Fatalf("mode change: %v", r[0].Err)
	}
	snow, _ := migrate.New(db, pgfunc.Options{Layout: shardid.Snowflake()}, migrate.Options{OwnDatabaseOnly: true})
	if r, _ := snow.Up(ctx, shardsFor(t, "3"), nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) {
		t.Fatalf("layout change: %v", r[0].Err)
	}
	// An epoch one millisecond off: the message must show the difference.
	off := shardid.Instagram()
	off.Epoch = off.Epoch.Add(time.Millisecond)
	offBy1, _ := migrate.New(db, pgfunc.Options{Layout: off}, migrate.Options{OwnDatabaseOnly: true})
	if r, _ := offBy1.Up(ctx, shardsFor(t, "3"), nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) ||
		!strings.Contains(r[0].Err.Error(), "since 2025-01-01T00:00:00Z;") || !strings.Contains(r[0].Err.Error(), "since 2025-01-01T00:00:00.001Z") {
		t.Fatalf("epoch change by 1 ms: %v", r[0].Err)
	}
	if r, _ := m.Up(ctx, []pgfunc.Shard{{Schema: "other", ID: 3}}, nil); !errors.Is(r[0].Err, pgfunc.ErrShardConflict) {
		t.Fatalf("shard id in two schemas: %v", r[0].Err)
	}
	var exists bool
	if err := db.QueryRow("SELECT to_regnamespace('other') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("refused shard created its schema (%v)", err)
	}
}

// TestOlderGenerator: a schema applied by an older shardid (which recorded
// the generator's metadata on next_id(), not on the counter, and rendered
// an older body) is neither reported current nor invisible: Up refuses
// it and refuses its shard id elsewhere, and Status flags it.
func TestOlderGenerator(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if r, _ := m.Up(ctx, shardsFor(t, "10"), nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	// What every shardid before the metadata moved to the counter left.
	if _, err := db.Exec(`DO $$ BEGIN
		EXECUTE format('COMMENT ON FUNCTION insta10.next_id() IS %L', obj_description('insta10.next_id_seq'::regclass, 'pg_class'));
		COMMENT ON SEQUENCE insta10.next_id_seq IS NULL;
		DROP FUNCTION insta10.next_id_meta(); -- which no release before the comment moved had
	END $$`); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Up(ctx, shardsFor(t, "10"), nil); !errors.Is(r[0].Err, pgfunc.ErrOutdatedGenerator) {
		t.Fatalf("rerun over an older generator: applied=%v note=%q err=%v; want ErrOutdatedGenerator", r[0].Applied, r[0].Note, r[0].Err)
	}
	if r, _ := m.Up(ctx, []pgfunc.Shard{{Schema: "s10", ID: 10}}, nil); !errors.Is(r[0].Err, pgfunc.ErrShardConflict) {
		t.Fatalf("shard id of an older generator in a second schema: applied=%v err=%v; want ErrShardConflict", r[0].Applied, r[0].Err)
	}
	st, err := m.Status(ctx, shardsFor(t, "10"))
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Installed == nil || !st[0].Outdated || st[0].Matches || st[0].Installed.Shard != 10 {
		t.Fatalf("status of an older generator: %+v", st[0])
	}
	found, err := m.Server().Discover(ctx)
	if err != nil || len(found) != 1 || !found[0].Outdated {
		t.Fatalf("Discover: %+v, %v", found, err)
	}
	role := newRole(t, db, "old", "")
	res, err := privilege.Grant(ctx, m.Server().DB(), shardsFor(t, "10"), role, nil)
	if !pgfunc.IsPartial(err) || !errors.Is(res[0].Err, pgfunc.ErrOutdatedGenerator) {
		t.Fatalf("Grant on an older generator: %+v, %v", res, err)
	}
}

// TestDown removes a generator, refuses while a table uses it (ErrInUse,
// naming the table as the server does), and Up
// brings it back with IDs above the old ones.
func TestDown(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	shards := shardsFor(t, "4")
	m.Up(ctx, shards, nil)
	if _, err := db.Exec("CREATE TABLE insta4.t (id bigint DEFAULT insta4.next_id())"); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Down(ctx, shards, nil); !errors.Is(r[0].Err, migrate.ErrInUse) || !strings.Contains(r[0].Err.Error(), "table insta4.t depends on function insta4.next_id()") {
		t.Fatalf("down while a table uses next_id(): %v; want ErrInUse naming the table", r[0].Err)
	}
	if _, err := db.Exec("DROP TABLE insta4.t"); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Down(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("down: %+v", r[0])
	}
	if r, _ := m.Down(ctx, shards, nil); r[0].Err != nil || r[0].Applied || r[0].Note != "no generator applied" {
		t.Fatalf("second down should be a no-op saying why: %+v", r[0])
	}
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("up after down: %+v", r[0])
	}
}

// TestHistoryWithoutGenerator: a schema whose goose history records the
// migration but whose generator is gone (dropped by hand) is not
// "current": Up says what is wrong, and Down still clears the history so
// that Up can apply it again.
func TestHistoryWithoutGenerator(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	shards := shardsFor(t, "11")
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	if _, err := db.Exec("DROP FUNCTION insta11.next_id(), insta11.next_id_bulk(); DROP SEQUENCE insta11.next_id_seq"); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Up(ctx, shards, nil); !errors.Is(r[0].Err, pgfunc.ErrNoGenerator) {
		t.Fatalf("up over a history without a generator: applied=%v note=%q err=%v; want ErrNoGenerator", r[0].Applied, r[0].Note, r[0].Err)
	}
	if r, _ := m.Down(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("down: %+v", r[0])
	}
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("up after down: %+v", r[0])
	}
}

// clockAt returns a function that sets the test clock of db's database
// (its default for shardid_test.now, read by pgfunc.WithClock's nowClock)
// to ts and opens a pool whose sessions all read it.
func clockAt(t *testing.T, db *sql.DB, dsn string) func(ts time.Time) *sql.DB {
	return func(ts time.Time) *sql.DB {
		t.Helper()
		if _, err := db.Exec(fmt.Sprintf("ALTER DATABASE %s SET shardid_test.now = '%s'", dbNameOf(t, db), ts.Format(time.RFC3339Nano))); err != nil {
			t.Fatal(err)
		}
		return testsrv.Open(t, "pgx", dsn)
	}
}

// TestDownWaitsForTheClock: in mode unique the counter can run ahead of
// the clock (a burst borrows the following ticks), and a generator made
// anew starts at the clock. Down therefore refuses while the counter is
// ahead, and once the clock has passed it, Up and the next draws give IDs
// above every ID handed out before. (Without the check, Down, Up and a
// draw at the same clock hand the burst's IDs out again.)
func TestDownWaitsForTheClock(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	at := clockAt(t, db, dsn)
	o := pgfunc.WithClock(pgfunc.Options{}, nowClock)
	shards := shardsFor(t, "6")
	t0 := time.Now().UTC().Truncate(time.Second)
	frozen := at(t0)
	m, err := migrate.New(frozen, o, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	// 5,000 IDs at a frozen clock: the first jump lands 8 ticks past the
	// clock's, and the counter ends 12 ticks past it.
	var last int64
	if err := frozen.QueryRow("SELECT max(id) FROM (SELECT insta6.next_id() AS id FROM generate_series(1, 5000)) s").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Down(ctx, shards, nil); r[0].Err == nil || !strings.Contains(r[0].Err.Error(), "ahead of the clock") {
		t.Fatalf("down with the counter ahead of the clock: applied=%v err=%v; want a refusal", r[0].Applied, r[0].Err)
	}
	// Down given other options would read the counter by another layout
	// (or, for a classic mode, not at all) and let it pass: each refused.
	earlier := shardid.Instagram()
	earlier.Epoch = earlier.Epoch.Add(-time.Hour)
	for name, other := range map[string]pgfunc.Options{
		"layout": {Layout: shardid.Snowflake()}, "epoch": {Layout: earlier}, "mode": {Mode: pgfunc.ModeClassic},
	} {
		mo, _ := migrate.New(frozen, pgfunc.WithClock(other, nowClock), migrate.Options{OwnDatabaseOnly: true})
		if r, _ := mo.Down(ctx, shards, nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) || r[0].Applied {
			t.Fatalf("down with another %s: applied=%v err=%v; want ErrGeneratorMismatch", name, r[0].Applied, r[0].Err)
		}
	}
	later := at(t0.Add(20 * time.Millisecond))
	m, _ = migrate.New(later, o, migrate.Options{OwnDatabaseOnly: true})
	if r, _ := m.Down(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("down once the clock passed the counter: %+v", r[0])
	}
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("up again: %+v", r[0])
	}
	var first int64
	if err := later.QueryRow("SELECT min(id) FROM (SELECT insta6.next_id() AS id FROM generate_series(1, 1000)) s").Scan(&first); err != nil {
		t.Fatal(err)
	}
	if first <= last {
		t.Fatalf("after down and up the generator handed out %d, at or below %d from before", first, last)
	}
}

// TestUpAfterDownKeepsTheGenerator: after a down, an up with another
// epoch, layout or mode would start below the IDs the schema handed out
// (a later epoch restarts the time field), so it is refused; an up with
// the same options carries on from the old counter, above every earlier
// ID even with the clock set back below them. (Without the kept counter,
// up with an epoch 10 s later handed out earlier IDs again.)
func TestUpAfterDownKeepsTheGenerator(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	at := clockAt(t, db, dsn)
	shards := shardsFor(t, "9")
	t0 := time.Now().UTC().Truncate(time.Second)
	now := at(t0)
	m, _ := migrate.New(now, pgfunc.WithClock(pgfunc.Options{}, nowClock), migrate.Options{OwnDatabaseOnly: true})
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	var last int64
	if err := now.QueryRow("SELECT max(id) FROM (SELECT insta9.next_id() AS id FROM generate_series(1, 3000)) s").Scan(&last); err != nil {
		t.Fatal(err)
	}
	later := at(t0.Add(time.Second))
	m, _ = migrate.New(later, pgfunc.WithClock(pgfunc.Options{}, nowClock), migrate.Options{OwnDatabaseOnly: true})
	if r, _ := m.Down(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("down: %+v", r[0])
	}
	epoch10s := shardid.Instagram()
	epoch10s.Epoch = epoch10s.Epoch.Add(10 * time.Second)
	for name, other := range map[string]pgfunc.Options{
		"a later epoch": {Layout: epoch10s}, "another layout": {Layout: shardid.Snowflake()}, "another mode": {Mode: pgfunc.ModeClassicSQL},
	} {
		mo, _ := migrate.New(later, pgfunc.WithClock(other, nowClock), migrate.Options{OwnDatabaseOnly: true})
		if r, _ := mo.Up(ctx, shards, nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) || r[0].Applied || !strings.Contains(r[0].Err.Error(), "held another generator until pg down") {
			t.Fatalf("up with %s after down: applied=%v err=%v; want a refusal", name, r[0].Applied, r[0].Err)
		}
	}
	// The same generator again, on a clock set back below its old IDs (by
	// less than the lead: further back, draws wait for the clock).
	earlier := at(t0.Add(-2 * time.Second))
	m, _ = migrate.New(earlier, pgfunc.WithClock(pgfunc.Options{}, nowClock), migrate.Options{OwnDatabaseOnly: true})
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("up with the same options: %+v", r[0])
	}
	var first int64
	if err := earlier.QueryRow("SELECT min(id) FROM (SELECT insta9.next_id() AS id FROM generate_series(1, 1000)) s").Scan(&first); err != nil {
		t.Fatal(err)
	}
	if first <= last {
		t.Fatalf("after down and up the generator handed out %d, at or below %d from before", first, last)
	}
}

// TestDownReportsAndFails: where nothing is applied Down says so and
// creates nothing; where it cannot find out, it fails instead of
// reporting success.
func TestDownReportsAndFails(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	missing := []pgfunc.Shard{{Schema: "nowhere", ID: 7}}
	r, _ := m.Down(ctx, missing, nil)
	if r[0].Err != nil || r[0].Applied || r[0].Note != "no schema" || r[0].Duration < 0 {
		t.Fatalf("down of a missing schema: %+v", r[0])
	}
	if _, err := db.Exec("CREATE SCHEMA empty"); err != nil {
		t.Fatal(err)
	}
	r, _ = m.Down(ctx, []pgfunc.Shard{{Schema: "empty", ID: 8}}, nil)
	if r[0].Err != nil || r[0].Applied || r[0].Note != "no generator applied" {
		t.Fatalf("down of a schema without a generator: %+v", r[0])
	}
	var tables int
	if err := db.QueryRow("SELECT count(*) FROM pg_tables WHERE schemaname IN ('nowhere', 'empty')").Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("down created %d tables (%v); want none", tables, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if r, _ := m.Down(cancelled, missing, nil); !errors.Is(r[0].Err, context.Canceled) {
		t.Fatalf("down with a cancelled context: %+v; want context.Canceled", r[0])
	}
	dead := testsrv.Open(t, "pgx", dsn)
	dm, _ := migrate.New(dead, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	dead.Close()
	if r, _ := dm.Down(ctx, missing, nil); r[0].Err == nil {
		t.Fatalf("down over a closed pool: %+v; want an error", r[0])
	}
	if _, err := dm.Status(ctx, missing); err == nil {
		t.Fatal("status over a closed pool succeeded")
	}
}

// TestUpManyShardsInParallel applies 64 shards 8 at a time: every result
// comes back in request order, applied, and every schema's IDs carry its
// shard id.
func TestUpManyShardsInParallel(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	db.SetMaxOpenConns(20)
	ctx := context.Background()
	if _, err := migrate.New(db, pgfunc.Options{}, migrate.Options{Parallel: -1}); !errors.Is(err, migrate.ErrInvalidParallel) {
		t.Fatalf("Parallel -1: %v", err)
	}
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{Parallel: 8, OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	shards := shardsFor(t, "0-63")
	var calls int
	res, _ := m.Up(ctx, shards, func(pgfunc.Result) { calls++ })
	if calls != len(shards) {
		t.Fatalf("progress called %d times for %d shards", calls, len(shards))
	}
	for i, r := range res {
		if r.Shard != shards[i] || r.Err != nil || !r.Applied {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	for _, sh := range shards {
		var shard int64
		if err := db.QueryRow("SELECT " + sh.Schema + ".id_shard(" + sh.Schema + ".next_id())").Scan(&shard); err != nil || shard != sh.ID {
			t.Fatalf("%s: shard %d, %v", sh.Schema, shard, err)
		}
	}
}

// TestLeastPrivilege: an application role with only USAGE on the schema and
// its sequences (what a bigserial needs) gets IDs, jumps included.
func TestLeastPrivilege(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	sh := install(t, db, "priv", 40, pgfunc.ModeUnique)
	_, err := db.Exec(`CREATE ROLE shardid_app LOGIN;
		GRANT USAGE ON SCHEMA priv TO shardid_app;
		GRANT USAGE ON ALL SEQUENCES IN SCHEMA priv TO shardid_app`)
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	if _, err := db.Exec(`GRANT USAGE ON SCHEMA priv TO shardid_app; GRANT USAGE ON ALL SEQUENCES IN SCHEMA priv TO shardid_app`); err != nil {
		t.Fatal(err)
	}
	app, err := sql.Open("pgx", strings.Replace(dsn, "postgres://postgres@", "postgres://shardid_app@", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	conn, err := app.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	seen := map[int64]bool{}
	for i := range 300 {
		if i%100 == 0 { // step the clock forward so the next call must jump
			if _, err := conn.ExecContext(context.Background(), "SELECT set_config('shardid_test.offset', $1, false)", fmt.Sprintf("%d s", i/100+1)); err != nil {
				t.Fatal(err)
			}
		}
		var id int64
		if err := conn.QueryRowContext(context.Background(), "SELECT priv.next_id()").Scan(&id); err != nil {
			t.Fatalf("call %d as shardid_app: %v", i, err)
		}
		if seen[id] {
			t.Fatalf("duplicate %d", id)
		}
		seen[id] = true
	}
	var jumps int64
	if err := db.QueryRow("SELECT pg_sequence_last_value('priv.next_id_jumps_done')").Scan(&jumps); err != nil || jumps < 3 {
		t.Fatalf("%d jumps (%v): the role never took the slow path", jumps, err)
	}
	for id := range seen {
		if p, err := shardid.Instagram().Decompose(id); err != nil || p.Shard != sh.ID {
			t.Fatalf("id %d decodes to %+v, %v", id, p, err)
		}
	}
}

// serverMigrator returns a Migrator over the database dsn names that sees
// and locks the whole server: the zero MigrateOptions, whose connector to
// the server's other databases is derived from the pgx pool.
func serverMigrator(t *testing.T, dsn string, o pgfunc.Options) *migrate.Migrator {
	t.Helper()
	m, err := migrate.New(testsrv.Open(t, "pgx", dsn), o, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ownServer starts a server of the test's own: a Migrator that reads the
// whole server must not see the other tests' databases.
func ownServer(t *testing.T) *dbserver.PG {
	t.Helper()
	return testsrv.NewPG(t, dbserver.PGOptions{})
}

// TestShardIDUniqueAcrossDatabases: a shard id held in one database of the
// server is refused in another (both ways round), and Status there names
// the copy.
func TestShardIDUniqueAcrossDatabases(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	dsnA, dsnB := testsrv.Database(t, srv), testsrv.Database(t, srv)
	ctx := context.Background()
	a, b := serverMigrator(t, dsnA, pgfunc.Options{}), serverMigrator(t, dsnB, pgfunc.Options{})
	if r, _ := a.Up(ctx, []pgfunc.Shard{{Schema: "insta0", ID: 4100}}, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	r, _ := b.Up(ctx, []pgfunc.Shard{{Schema: "s4100", ID: 4100}}, nil)
	if !errors.Is(r[0].Err, pgfunc.ErrShardConflict) || !strings.Contains(r[0].Err.Error(), "database "+dbNameOf(t, testsrv.Open(t, "pgx", dsnA))) {
		t.Fatalf("up of shard 4100 in a second database: %+v; want ErrShardConflict naming the first", r[0])
	}
	// Without Connect the Migrator sees its own database only: the
	// negative control that the refusal above comes from the server scan.
	own, _ := migrate.New(testsrv.Open(t, "pgx", dsnB), pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if r, _ := own.Up(ctx, []pgfunc.Shard{{Schema: "s4100", ID: 4100}}, nil); r[0].Err != nil {
		t.Fatalf("own-database Migrator: %v", r[0].Err)
	}
	st, err := a.Status(ctx, []pgfunc.Shard{{Schema: "insta0", ID: 4100}})
	if err != nil || len(st[0].Elsewhere) != 1 || st[0].Elsewhere[0].Schema != "s4100" {
		t.Fatalf("status: %+v, %v; want the copy in the other database", st, err)
	}
	if r, _ := a.Up(ctx, []pgfunc.Shard{{Schema: "insta0", ID: 4100}}, nil); !errors.Is(r[0].Err, pgfunc.ErrShardConflict) {
		t.Fatalf("rerun with a copy elsewhere: %+v; want ErrShardConflict", r[0])
	}
}

// TestConcurrentUpOneShardID races two runs creating the same shard id
// under different schema names, in the same database and in two
// databases: each time exactly one may win.
func TestConcurrentUpOneShardID(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("races 10 pairs of runs")
	}
	ctx := context.Background()
	srv := ownServer(t)
	for round := range 10 {
		dsnA := testsrv.Database(t, srv)
		dsnB := dsnA
		if round%2 == 1 {
			dsnB = testsrv.Database(t, srv)
		}
		id := int64(7000 + round)
		runs := []struct {
			m  *migrate.Migrator
			sh pgfunc.Shard
		}{
			{serverMigrator(t, dsnA, pgfunc.Options{}), pgfunc.Shard{Schema: fmt.Sprintf("a%d", id), ID: id}},
			{serverMigrator(t, dsnB, pgfunc.Options{}), pgfunc.Shard{Schema: fmt.Sprintf("b%d", id), ID: id}},
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, r := range runs {
			wg.Go(func() {
				<-start
				errs[i] = results(r.m.Up(ctx, []pgfunc.Shard{r.sh}, nil))[0].Err
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, pgfunc.ErrShardConflict):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d (two databases: %v): %d runs created shard %d; want exactly 1 (%v)", round, dsnA != dsnB, won, id, errs)
		}
	}
}

// TestServerLockedNamesHolder: while another session holds Up's server
// lock, Up waits LockTimeout and fails with ErrServerLocked naming it.
func TestServerLockedNamesHolder(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET application_name = 'holder'; SELECT pg_advisory_lock(1397310514, 0)"); err != nil {
		t.Fatal(err)
	}
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{LockTimeout: 300 * time.Millisecond, OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Up(ctx, []pgfunc.Shard{{Schema: "locked", ID: 42}}, nil)
	if !errors.Is(r[0].Err, inventory.ErrServerLocked) || !strings.Contains(r[0].Err.Error(), `application "holder"`) {
		t.Fatalf("up under a held lock: %v; want ErrServerLocked naming the holder", r[0].Err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock(1397310514, 0)"); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Up(ctx, []pgfunc.Shard{{Schema: "locked", ID: 42}}, nil); r[0].Err != nil {
		t.Fatalf("up once the lock is free: %v", r[0].Err)
	}
}
