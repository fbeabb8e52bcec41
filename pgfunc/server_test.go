package pgfunc_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/testsrv"
)

// gooseUp applies the shards' pg gen files to db as the stock goose CLI
// does (goose up over the directory, one transaction per file), with the
// history table table: the route that has only the migration's own
// checks.
func gooseUp(t *testing.T, db *sql.DB, table string, shards []pgfunc.Shard, o pgfunc.Options) error {
	t.Helper()
	_, err := gooseProvider(t, db, table, shards, o).Up(context.Background())
	return err
}

// gooseDown undoes the last migration gooseUp applied with table.
func gooseDown(t *testing.T, db *sql.DB, table string, shards []pgfunc.Shard, o pgfunc.Options) error {
	t.Helper()
	_, err := gooseProvider(t, db, table, shards, o).Down(context.Background())
	return err
}

// gooseProvider is a goose Provider over the shards' pg gen files.
func gooseProvider(t *testing.T, db *sql.DB, table string, shards []pgfunc.Shard, o pgfunc.Options) *goose.Provider {
	t.Helper()
	files, err := pgfunc.Files(shards, o)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: text, Mode: 0o644}
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithTableName(table), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sqlState is err's SQLSTATE, or "".
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// up applies shards with m and returns the first shard's result.
func up(m *migrate.Migrator, shards ...pgfunc.Shard) pgfunc.Result {
	return results(m.Up(context.Background(), shards, nil))[0]
}

// migrator builds a Migrator over dsn with mo, failing the test on error.
func migrator(t *testing.T, dsn string, o pgfunc.Options, mo migrate.Options) *migrate.Migrator {
	t.Helper()
	m, err := migrate.New(testsrv.Open(t, "pgx", dsn), o, mo)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// execOn runs statements on the database dsn names.
func execOn(t *testing.T, dsn string, statements ...string) {
	t.Helper()
	db := testsrv.Open(t, "pgx", dsn)
	for _, s := range statements {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestMigrationRefusesOnItsOwn: the migration pg gen writes, applied by
// goose alone (no migrate.Migrator to look first), refuses a shard id
// another schema of its database holds and another mode, each with its
// SQLSTATE and the schema in the way named, and creates nothing. (Before:
// goose created other0 beside insta0, and the two returned the same IDs,
// 1,114 duplicates in 40,000 draws.)
func TestMigrationRefusesOnItsOwn(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	if err := gooseUp(t, db, "goose_a", []pgfunc.Shard{{Schema: "insta0", ID: 0}}, pgfunc.Options{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		shard pgfunc.Shard
		o     pgfunc.Options
		state string
		names string
	}{
		{"shard 0 in another schema", pgfunc.Shard{Schema: "other0", ID: 0}, pgfunc.Options{}, "SHR03", "schema insta0"},
		{"shard 0 in another schema, classic", pgfunc.Shard{Schema: "other0", ID: 0}, pgfunc.Options{Mode: pgfunc.ModeClassic}, "SHR03", "schema insta0"},
		{"another mode", pgfunc.Shard{Schema: "classic1", ID: 1}, pgfunc.Options{Mode: pgfunc.ModeClassic}, "SHR05", "schema insta0"},
		{"another layout", pgfunc.Shard{Schema: "js1", ID: 1}, pgfunc.Options{Layout: shardid.JS53()}, "SHR05", "schema insta0"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := gooseUp(t, db, fmt.Sprintf("goose_%d", i), []pgfunc.Shard{tc.shard}, tc.o)
			if sqlState(err) != tc.state || !strings.Contains(fmt.Sprint(err), tc.names) {
				t.Fatalf("goose up: %v; want SQLSTATE %s naming %s", err, tc.state, tc.names)
			}
			var exists bool
			if err := db.QueryRow("SELECT to_regnamespace($1) IS NOT NULL", tc.shard.Schema).Scan(&exists); err != nil || exists {
				t.Fatalf("the refused migration left schema %s (%v)", tc.shard.Schema, err)
			}
		})
	}
	// A classic database refuses a classic copy of its shard id: its
	// check reads the counters' comments, there being no jump function.
	classic, _ := newDB(t)
	o := pgfunc.Options{Mode: pgfunc.ModeClassicSQL}
	if err := gooseUp(t, classic, "goose_a", []pgfunc.Shard{{Schema: "c2", ID: 2}}, o); err != nil {
		t.Fatal(err)
	}
	if err := gooseUp(t, classic, "goose_b", []pgfunc.Shard{{Schema: "d2", ID: 2}}, o); sqlState(err) != "SHR03" || !strings.Contains(err.Error(), "schema c2") {
		t.Fatalf("a classic copy of shard 2: %v; want SHR03 naming c2", err)
	}
	// Kept counters, through goose alone: shard 4 brought up again under
	// another name carries on from insta4's kept counter, or is refused
	// with a later epoch; a kept counter of another kind is in the way.
	keptDB, keptDSN := newDB(t)
	at := clockAt(t, keptDB, keptDSN)
	t0 := time.Now().UTC().Truncate(time.Second)
	kept := at(t0)
	o4 := pgfunc.WithClock(pgfunc.Options{}, nowClock)
	four := []pgfunc.Shard{{Schema: "insta4", ID: 4}}
	if err := gooseUp(t, kept, "goose_a", four, o4); err != nil {
		t.Fatal(err)
	}
	var last int64
	if err := kept.QueryRow("SELECT max(id) FROM (SELECT insta4.next_id() AS id FROM generate_series(1, 3000)) s").Scan(&last); err != nil {
		t.Fatal(err)
	}
	kept = at(t0.Add(time.Second))
	if err := gooseDown(t, kept, "goose_a", four, o4); err != nil {
		t.Fatal(err)
	}
	later := shardid.Instagram()
	later.Epoch = later.Epoch.Add(10 * time.Second)
	renamed := []pgfunc.Shard{{Schema: "other4", ID: 4}}
	if err := gooseUp(t, kept, "goose_b", renamed, pgfunc.WithClock(pgfunc.Options{Layout: later}, nowClock)); sqlState(err) != "SHR02" || !strings.Contains(err.Error(), "schema insta4 held shard 4") {
		t.Fatalf("goose up of shard 4 as other4, a later epoch: %v; want SHR02 naming insta4", err)
	}
	if err := gooseUp(t, kept, "goose_c", []pgfunc.Shard{{Schema: "js9", ID: 9}}, pgfunc.Options{Layout: shardid.JS53()}); sqlState(err) != "SHR05" || !strings.Contains(err.Error(), "insta4 (a counter kept by pg down)") {
		t.Fatalf("goose up of a js53 generator beside instagram's kept counter: %v; want SHR05 naming it", err)
	}
	// The clock set back a minute, below every ID insta4 handed out, and
	// other4 rendered with a lead of 10 s where insta4 had 5 s (the
	// carry-on leaves the lead out: it bounds how far ahead of the clock
	// draws go, not which IDs a generator makes). other4 carries on from
	// insta4's counter, a minute ahead of the clock, past its lead: the
	// draw waits (20 ms here), then raises SHR10 and hands out nothing;
	// once the clock is back within the lead (2 s behind the counter),
	// draws go on above every ID insta4 handed out.
	kept = at(t0.Add(-time.Minute))
	ten := pgfunc.WithLeadWait(pgfunc.WithClock(pgfunc.Options{Lead: 10 * time.Second}, nowClock), 20*time.Millisecond)
	if err := gooseUp(t, kept, "goose_d", renamed, ten); err != nil {
		t.Fatalf("goose up of shard 4 as other4: %v", err)
	}
	var first int64
	var gone bool
	if err := kept.QueryRow("SELECT other4.next_id()").Scan(&first); sqlState(err) != pgfunc.LeadExceededState {
		t.Fatalf("other4 at a clock a minute behind insta4's last ID: %d, %v; want SQLSTATE %s (carried on past the lead)", first, err, pgfunc.LeadExceededState)
	}
	kept = at(t0.Add(-2 * time.Second))
	if err := kept.QueryRow("SELECT min(id), to_regclass('insta4.next_id_retired_seq') IS NULL FROM (SELECT other4.next_id() AS id FROM generate_series(1, 500)) s").Scan(&first, &gone); err != nil {
		t.Fatal(err)
	}
	if first <= last || !gone {
		t.Fatalf("other4 handed out %d (insta4 reached %d); insta4's kept counter gone: %v", first, last, gone)
	}
	// Through a Migrator the same refusals read as its sentinels.
	m, err := migrate.New(classic, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := up(m, pgfunc.Shard{Schema: "u3", ID: 3}); !errors.Is(r.Err, pgfunc.ErrMixedGenerators) {
		t.Fatalf("a unique generator beside classic ones: %v; want ErrMixedGenerators", r.Err)
	}
}

// TestKeptCounterUnderAnyName: after a down, the shard id brought up in
// another schema (of the same database, or of another) carries on from
// the kept counter, above every ID handed out, with the clock set back
// (a minute: the generator brought up has a lead of two minutes, where
// the one taken down had the default 5 s, which the carry-on leaves out);
// brought up with a later epoch it is refused. (Before: the kept counter
// was looked up by schema name, and down then up under another name with
// a later epoch repeated 12,730 IDs.)
func TestKeptCounterUnderAnyName(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Second)
	epoch10s := shardid.Instagram()
	epoch10s.Epoch = epoch10s.Epoch.Add(10 * time.Second)
	for _, where := range []string{"same database", "another database"} {
		t.Run(where, func(t *testing.T) {
			dsnA := testsrv.Database(t, srv)
			dsnB := dsnA
			if where == "another database" {
				dsnB = testsrv.Database(t, srv)
			}
			dbA := testsrv.Open(t, "pgx", dsnA)
			dbB := testsrv.Open(t, "pgx", dsnB)
			atA, atB := clockAt(t, dbA, dsnA), clockAt(t, dbB, dsnB)
			id := int64(map[string]int{"same database": 21, "another database": 22}[where])
			old := pgfunc.Shard{Schema: fmt.Sprintf("insta%d", id), ID: id}
			renamed := pgfunc.Shard{Schema: fmt.Sprintf("other%d", id), ID: id}
			o := pgfunc.WithClock(pgfunc.Options{}, nowClock)
			now := atA(t0)
			if r := up(migrator(t, dsnA, o, migrate.Options{}), old); r.Err != nil {
				t.Fatal(r.Err)
			}
			var last int64
			q := fmt.Sprintf("SELECT max(id) FROM (SELECT %s.next_id() AS id FROM generate_series(1, 3000)) s", old.Schema)
			if err := now.QueryRow(q).Scan(&last); err != nil {
				t.Fatal(err)
			}
			atA(t0.Add(time.Second))
			if r := results(migrator(t, dsnA, o, migrate.Options{}).Down(ctx, []pgfunc.Shard{old}, nil))[0]; r.Err != nil || !r.Applied {
				t.Fatalf("down: %+v", r)
			}
			st, err := migrator(t, dsnB, o, migrate.Options{}).Status(ctx, []pgfunc.Shard{renamed})
			if err != nil || len(st[0].Retired) != 1 || st[0].Retired[0].Schema != old.Schema {
				t.Fatalf("status of shard %d: %+v, %v; want the kept counter in %s", id, st, err, old.Schema)
			}
			// A later epoch restarts the time field below the old IDs.
			later := pgfunc.WithClock(pgfunc.Options{Layout: epoch10s}, nowClock)
			r := up(migrator(t, dsnB, later, migrate.Options{}), renamed)
			if !errors.Is(r.Err, pgfunc.ErrGeneratorMismatch) || !strings.Contains(r.Err.Error(), old.Schema) || r.Applied {
				t.Fatalf("up of shard %d as %s with a later epoch: %+v; want ErrGeneratorMismatch naming %s", id, renamed.Schema, r, old.Schema)
			}
			// The same generator but for its lead, with the clock set back
			// below its IDs.
			long := pgfunc.WithClock(pgfunc.Options{Lead: 2 * time.Minute}, nowClock)
			earlier := atB(t0.Add(-time.Minute))
			if r := up(migrator(t, dsnB, long, migrate.Options{}), renamed); r.Err != nil || !r.Applied {
				t.Fatalf("up of shard %d as %s: %+v", id, renamed.Schema, r)
			}
			var first int64
			q = fmt.Sprintf("SELECT min(id) FROM (SELECT %s.next_id() AS id FROM generate_series(1, 1000)) s", renamed.Schema)
			if err := earlier.QueryRow(q).Scan(&first); err != nil {
				t.Fatal(err)
			}
			if first <= last {
				t.Fatalf("shard %d under %s handed out %d, at or below %d from %s", id, renamed.Schema, first, last, old.Schema)
			}
			var kept bool
			if err := dbA.QueryRow("SELECT to_regclass($1) IS NOT NULL", old.Schema+".next_id_retired_seq").Scan(&kept); err != nil || kept {
				t.Fatalf("the kept counter of %s is still there (%v): a later up would carry on from it again", old.Schema, err)
			}
		})
	}
}

// otherDriver is pgx's driver under another type: a pool that is not a
// pgx stdlib pool, whose settings a Migrator cannot read.
type otherDriver struct{ driver.Driver }

// otherConnector opens pgx connections through otherDriver.
type otherConnector struct{ dsn string }

func (c otherConnector) Connect(context.Context) (driver.Conn, error) {
	return stdlib.GetDefaultDriver().Open(c.dsn)
}
func (c otherConnector) Driver() driver.Driver { return otherDriver{stdlib.GetDefaultDriver()} }

// TestZeroOptionsLookAfterTheServer: the ten lines of the library's
// simplest use (sql.Open("pgx", …), NewMigrator with zero MigrateOptions,
// Up) refuse a shard id another database of the server holds. (Before:
// applied=true err=<nil>.) A pool the Migrator cannot derive a connector
// from is refused unless the caller opts out explicitly.
func TestZeroOptionsLookAfterTheServer(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	dsnA, dsnB := testsrv.Database(t, srv), testsrv.Database(t, srv)
	if r := up(migrator(t, dsnA, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "insta3", ID: 3}); r.Err != nil {
		t.Fatal(r.Err)
	}
	// The program of the report, as written there.
	db, err := sql.Open("pgx", dsnB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := results(m.Up(context.Background(), []pgfunc.Shard{{Schema: "s3", ID: 3}}, nil))[0]
	if !errors.Is(r.Err, pgfunc.ErrShardConflict) || r.Applied {
		t.Fatalf("applied=%v err=%v; want ErrShardConflict", r.Applied, r.Err)
	}
	other := sql.OpenDB(otherConnector{dsnB})
	defer other.Close()
	if _, err := migrate.New(other, pgfunc.Options{}, migrate.Options{}); !errors.Is(err, inventory.ErrNoConnect) ||
		!strings.Contains(err.Error(), "Connect") || !strings.Contains(err.Error(), "OwnDatabaseOnly") {
		t.Fatalf("NewMigrator over a pool of another driver: %v; want ErrNoConnect naming both ways out", err)
	}
	// The explicit opt-out: this database only, the copy unseen.
	own, err := migrate.New(other, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := up(own, pgfunc.Shard{Schema: "s3", ID: 3}); r.Err != nil || !r.Applied {
		t.Fatalf("with OwnDatabaseOnly: %+v", r)
	}
}

// TestTemplateDatabases: up refuses to apply into a template (through the
// Migrator and through goose alone), and a generator in a template,
// template1 or one of the user's, is seen by up, status and census: every
// CREATE DATABASE copies it. (Before: up into template1 was applied, and
// three databases created from it then handed out 50,000 repeated values.)
func TestTemplateDatabases(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	app := testsrv.Database(t, srv)
	template1 := srv.DSN("template1")
	// Every pool on template1 is closed at once: CREATE DATABASE copies
	// it only while nobody else is connected.
	onTemplate1 := func(f func(db *sql.DB)) {
		db, err := sql.Open("pgx", template1)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		f(db)
	}
	onTemplate1(func(db *sql.DB) {
		m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := up(m, pgfunc.Shard{Schema: "insta5", ID: 5})
		if !errors.Is(r.Err, pgfunc.ErrTemplateDatabase) || !strings.Contains(r.Err.Error(), "template1") {
			t.Fatalf("up into template1: %+v; want ErrTemplateDatabase", r)
		}
		// Even told to look after its own database only.
		own, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if r := up(own, pgfunc.Shard{Schema: "insta5", ID: 5}); !errors.Is(r.Err, pgfunc.ErrTemplateDatabase) {
			t.Fatalf("up into template1, own database only: %+v; want ErrTemplateDatabase", r)
		}
		if err := gooseUp(t, db, "goose_t", []pgfunc.Shard{{Schema: "insta5", ID: 5}}, pgfunc.Options{}); sqlState(err) != "SHR04" {
			t.Fatalf("goose up into template1: %v; want SQLSTATE SHR04", err)
		}
	})
	// A database made a template after it got a generator.
	tmpl := testsrv.Database(t, srv)
	if r := up(migrator(t, tmpl, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "insta7", ID: 7}); r.Err != nil {
		t.Fatal(r.Err)
	}
	tmplName := dbNameOf(t, testsrv.Open(t, "pgx", tmpl))
	execOn(t, srv.DSN("postgres"), "ALTER DATABASE "+tmplName+" IS_TEMPLATE true")
	m := migrator(t, app, pgfunc.Options{}, migrate.Options{})
	if r := up(m, pgfunc.Shard{Schema: "s7", ID: 7}); !errors.Is(r.Err, pgfunc.ErrShardConflict) || !strings.Contains(r.Err.Error(), tmplName) {
		t.Fatalf("up of shard 7 beside the template %s: %+v; want ErrShardConflict naming it", tmplName, r)
	}
	// template1 given a generator behind shardid's back (the migration's
	// Up without its checks, as a superuser's psql would run an older one).
	text, err := pgfunc.Render(pgfunc.Shard{Schema: "insta9", ID: 9}, pgfunc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(text), "-- +goose Up\n")
	body, _, _ = strings.Cut(body, "-- +goose Down\n")
	body = stripChecks(t, body)
	onTemplate1(func(db *sql.DB) {
		if _, err := db.Exec(body); err != nil {
			t.Fatal(err)
		}
	})
	t.Cleanup(func() { onTemplate1(func(db *sql.DB) { _, _ = db.Exec("DROP SCHEMA insta9 CASCADE") }) })
	copied := testsrv.Database(t, srv) // CREATE DATABASE copies template1
	for _, dsn := range []string{app, copied} {
		r := up(migrator(t, dsn, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "s9", ID: 9})
		if !errors.Is(r.Err, pgfunc.ErrShardConflict) || r.Applied {
			t.Fatalf("up of shard 9 with a copy in template1: %+v; want ErrShardConflict", r)
		}
	}
	c, err := m.Server().Census(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(c.Templates, ","), "template1") || !strings.Contains(strings.Join(c.Templates, ","), tmplName) ||
		strings.Contains(strings.Join(c.Templates, ","), "template0") || len(c.Closed) != 0 {
		t.Fatalf("census: templates %v, closed %v; want template1 and %s read, template0 neither read nor listed unread", c.Templates, c.Closed, tmplName)
	}
	st, err := m.Status(context.Background(), []pgfunc.Shard{{Schema: "insta9", ID: 9}})
	if err != nil || len(st[0].Elsewhere) != 2 {
		t.Fatalf("status of shard 9: %+v, %v; want the copies in template1 and in the database made from it", st, err)
	}
}

// stripChecks removes the migration's check block (the DO block that
// raises SHR04) from an Up, failing unless it was there.
func stripChecks(t *testing.T, up string) string {
	t.Helper()
	at := strings.Index(up, "'SHR04'")
	start := strings.LastIndex(up[:max(at, 0)], "DO $shardid$")
	end := strings.Index(up[max(at, 0):], "END\n$shardid$;")
	if at < 0 || start < 0 || end < 0 {
		t.Fatal("no check block in the Up: the template changed")
	}
	guard := up[start : at+end]
	creates := strings.Index(guard, "    CREATE SCHEMA IF NOT EXISTS")
	if creates < 0 {
		t.Fatal("the check block creates no schema: the template changed")
	}
	// The guard creates the schema and the counter once its checks pass:
	// they stay, as statements of their own.
	return up[:start] + strings.ReplaceAll(guard[creates:], "\n    ", "\n") + up[at+end+len("END\n$shardid$;"):]
}

// TestUnreadDatabases: a role without CONNECT on some database of the
// server (or a database that allows no connections) cannot see what it
// holds: up fails naming them, unless told to accept the risk, and census
// lists them; template0, which PostgreSQL ships closed, is not listed.
// (Before: a non-superuser's up applied a shard id held in such a
// database.)
func TestUnreadDatabases(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	app, secret, closed := testsrv.Database(t, srv), testsrv.Database(t, srv), testsrv.Database(t, srv)
	if r := up(migrator(t, secret, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "insta5", ID: 5}); r.Err != nil {
		t.Fatal(r.Err)
	}
	secretName := dbNameOf(t, testsrv.Open(t, "pgx", secret))
	closedName := dbNameOf(t, testsrv.Open(t, "pgx", closed))
	appName := dbNameOf(t, testsrv.Open(t, "pgx", app))
	execOn(t, srv.DSN("postgres"),
		"REVOKE CONNECT ON DATABASE "+secretName+" FROM PUBLIC",
		"ALTER DATABASE "+closedName+" ALLOW_CONNECTIONS false",
		"CREATE ROLE deployer LOGIN",
		"GRANT CREATE ON DATABASE "+appName+" TO deployer")
	asDeployer := dsnAs(t, app, "deployer")
	r := up(migrator(t, asDeployer, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "s5", ID: 5})
	if !errors.Is(r.Err, pgfunc.ErrUnreadDatabases) || !strings.Contains(r.Err.Error(), secretName) || !strings.Contains(r.Err.Error(), closedName) || r.Applied {
		t.Fatalf("up as a role that cannot read %s and %s: %+v; want ErrUnreadDatabases naming both", secretName, closedName, r)
	}
	c, err := migrator(t, asDeployer, pgfunc.Options{}, migrate.Options{}).Server().Census(context.Background())
	if err != nil || strings.Join(c.Closed, ",") != strings.Join([]string{secretName, closedName}, ",") && strings.Join(c.Closed, ",") != strings.Join([]string{closedName, secretName}, ",") {
		t.Fatalf("census as deployer: closed %v, %v; want %s and %s, not template0", c.Closed, err, secretName, closedName)
	}
	// Accepted explicitly, the risk is what it says: the copy goes unseen.
	r = up(migrator(t, asDeployer, pgfunc.Options{}, migrate.Options{AllowUnreadDatabases: true}), pgfunc.Shard{Schema: "s6", ID: 6})
	if r.Err != nil || !r.Applied {
		t.Fatalf("up with AllowUnreadDatabases: %+v", r)
	}
}

// TestMixedKinds: a generator of another layout or epoch than those on
// the server (kept counters included) is refused; with AllowMixed it is
// applied only when Overlap shows the two can never hand out one ID, and
// then 100,000 draws of each share none. (Before: a js53 shard 0 and an
// instagram shard 64 with a recent epoch were accepted and handed out
// 1,194 identical IDs.)
func TestMixedKinds(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	ctx := context.Background()
	dsnA, dsnB := testsrv.Database(t, srv), testsrv.Database(t, srv)
	js := pgfunc.Options{Layout: shardid.JS53()}
	if r := up(migrator(t, dsnA, js, migrate.Options{}), pgfunc.Shard{Schema: "js0", ID: 0}); r.Err != nil {
		t.Fatal(r.Err)
	}
	execOn(t, dsnA, "CREATE TABLE js0.items (id bigint DEFAULT js0.next_id())")
	recent := shardid.Instagram()
	recent.Epoch = time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	ig := pgfunc.Options{Layout: recent}
	r := up(migrator(t, dsnB, ig, migrate.Options{}), pgfunc.Shard{Schema: "ig64", ID: 64})
	if !errors.Is(r.Err, pgfunc.ErrMixedGenerators) || !strings.Contains(r.Err.Error(), "schema js0 of database") || r.Applied {
		t.Fatalf("instagram beside js53: %+v; want ErrMixedGenerators naming js0", r)
	}
	// Instagram shard 64 fixes bits 10-22 to 0 at bits 10-15, as js53
	// shard 0 does: an ID of both exists, and is named.
	r = up(migrator(t, dsnB, ig, migrate.Options{AllowMixed: true}), pgfunc.Shard{Schema: "ig64", ID: 64})
	if !errors.Is(r.Err, pgfunc.ErrMixedGenerators) || !strings.Contains(r.Err.Error(), "could hand out ID") || r.Applied {
		t.Fatalf("instagram shard 64 beside js53 shard 0, AllowMixed: %+v; want a refusal naming an ID both make", r)
	}
	// Shard 65 sets bit 10, which js53 shard 0 clears: never one ID.
	if r := up(migrator(t, dsnB, ig, migrate.Options{AllowMixed: true}), pgfunc.Shard{Schema: "ig65", ID: 65}); r.Err != nil || !r.Applied {
		t.Fatalf("instagram shard 65 beside js53 shard 0, AllowMixed: %+v", r)
	}
	execOn(t, dsnB, "CREATE TABLE ig65.items (id bigint DEFAULT ig65.next_id())")
	execOn(t, dsnA, "INSERT INTO js0.items SELECT FROM generate_series(1, 100000)")
	execOn(t, dsnB, "INSERT INTO ig65.items SELECT FROM generate_series(1, 100000)")
	var jsIDs []int64
	rows, err := testsrv.Open(t, "pgx", dsnA).Query("SELECT id FROM js0.items")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		jsIDs = append(jsIDs, id)
	}
	rows.Close()
	var common, total int64
	if err := testsrv.Open(t, "pgx", dsnB).QueryRow("SELECT count(*) FILTER (WHERE id = ANY ($1)), count(*) FROM ig65.items", jsIDs).Scan(&common, &total); err != nil {
		t.Fatal(err)
	}
	if common != 0 || total != 100000 || len(jsIDs) != 100000 {
		t.Fatalf("%d of %d instagram IDs are among %d js53 IDs", common, total, len(jsIDs))
	}
	// A counter a down kept counts as much as a live generator.
	execOn(t, dsnA, "DROP TABLE js0.items")
	for {
		d := results(migrator(t, dsnA, js, migrate.Options{}).Down(ctx, []pgfunc.Shard{{Schema: "js0", ID: 0}}, nil))[0]
		if d.Err == nil {
			break
		}
		if !strings.Contains(d.Err.Error(), "ahead of the clock") {
			t.Fatalf("down: %v", d.Err)
		}
	}
	dsnC := testsrv.Database(t, srv)
	sf := pgfunc.Options{Layout: shardid.Snowflake()}
	r = up(migrator(t, dsnC, sf, migrate.Options{}), pgfunc.Shard{Schema: "sf1", ID: 1})
	if !errors.Is(r.Err, pgfunc.ErrMixedGenerators) {
		t.Fatalf("snowflake beside a kept js53 counter and instagram: %+v; want ErrMixedGenerators", r)
	}
	c, err := migrator(t, dsnC, sf, migrate.Options{}).Server().Census(ctx)
	if err != nil || len(c.Retired) != 1 {
		t.Fatalf("census: %+v, %v; want the kept js53 counter", c, err)
	}
	pairs := inventory.Mixed(append(c.Generators, c.Retired...))
	if len(pairs) != 1 || pairs[0].Meet {
		t.Fatalf("Mixed: %+v; want one pair of kinds that never meets", pairs)
	}
}

// TestDatabasesChangingUnderTheRead: the server's databases change while
// up, status and resume read them, at the worst moments: just before the
// connection to a listed database. One dropped is passed over; one renamed
// is read under its new name, also when that is the name of one dropped
// a moment before (read already, by name); one renamed after it was read
// is not read twice; two that swap names after one was read are each read
// as what they are; one closed to connections while the databases are
// listed is reported as not read even when it is open again by the end;
// one an interrupted DROP DATABASE left invalid is passed over (and named
// in the census); a set that never settles fails with
// ErrDatabasesChanging. (Before: up failed on
// the dropped and the invalid one, and applied the shard id held by the
// renamed, swapped or briefly closed one; an outside trial found each.)
func TestDatabasesChangingUnderTheRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := ownServer(t)
	app := testsrv.Database(t, srv)
	admin := testsrv.Open(t, "pgx", srv.DSN("postgres"))
	exec := func(ctx context.Context, statements ...string) error {
		for _, q := range statements {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}
	// holder creates database name holding shard 5, its counter drawn.
	holder := func(name string) {
		t.Helper()
		if err := exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		db := testsrv.Open(t, "pgx", srv.DSN(name))
		m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if r := up(m, pgfunc.Shard{Schema: "insta5", ID: 5}); r.Err != nil {
			t.Fatal(r.Err)
		}
		if _, err := db.Exec("SELECT insta5.next_id()"); err != nil {
			t.Fatal(err)
		}
		db.Close() // a database in use is neither dropped nor renamed
	}
	// before returns a connector that runs the statements of a name once,
	// just before its first connection to that database.
	before := func(plan map[string][]string) func(context.Context, string) (*sql.DB, error) {
		var mu sync.Mutex
		return func(ctx context.Context, name string) (*sql.DB, error) {
			mu.Lock()
			statements := plan[name]
			delete(plan, name)
			mu.Unlock()
			if err := exec(ctx, statements...); err != nil {
				return nil, err
			}
			db := testsrv.Open(t, "pgx", srv.DSN(name))
			return db, db.PingContext(ctx)
		}
	}
	dropAll := func() error {
		for _, d := range []string{"a_gone", "a_decoy", "b_hold", "c_new", "c_next", "d_later"} {
			if err := exec(ctx, "DROP DATABASE IF EXISTS "+d); err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range []struct {
		name  string
		setup []string            // the databases besides the holder, b_hold
		plan  map[string][]string // what happens before the first connection to a database
		now   string              // the holder's name afterwards
		seen  string              // the name it was read under
		late  bool                // the plan acts after a read: resume, which holds what it read open, is not run
	}{
		{"renamed after it was listed", []string{"a_gone"}, map[string][]string{
			"a_gone": {"DROP DATABASE a_gone"},
			"b_hold": {"ALTER DATABASE b_hold RENAME TO c_new"},
		}, "c_new", "c_new", false},
		{"renamed to a name read before", []string{"a_gone"}, map[string][]string{
			"a_gone": {"DROP DATABASE a_gone"},
			"b_hold": {"ALTER DATABASE b_hold RENAME TO a_gone"},
		}, "a_gone", "a_gone", false},
		{"renamed after it was read", []string{"c_next"}, map[string][]string{
			"c_next": {"ALTER DATABASE b_hold RENAME TO d_later"},
		}, "d_later", "b_hold", true},
		{"two names swapped after one was read", []string{"a_decoy"}, map[string][]string{
			"b_hold": {"ALTER DATABASE a_decoy RENAME TO swap", "ALTER DATABASE b_hold RENAME TO a_decoy", "ALTER DATABASE swap RENAME TO b_hold"},
		}, "a_decoy", "a_decoy", true},
	} {
		reset := func() {
			t.Helper()
			if err := dropAll(); err != nil {
				t.Fatal(err)
			}
			for _, d := range c.setup {
				if err := exec(ctx, "CREATE DATABASE "+d); err != nil {
					t.Fatal(err)
				}
			}
			holder("b_hold")
		}
		copyPlan := func() map[string][]string {
			p := map[string][]string{}
			for k, v := range c.plan {
				p[k] = v
			}
			return p
		}
		reset()
		r := up(migrator(t, app, pgfunc.Options{}, migrate.Options{Connect: before(copyPlan())}), pgfunc.Shard{Schema: "s5", ID: 5})
		if !errors.Is(r.Err, pgfunc.ErrShardConflict) || !strings.Contains(r.Err.Error(), "database "+c.seen) || r.Applied {
			t.Fatalf("%s: up of shard 5, held in %s: %+v; want ErrShardConflict naming %s", c.name, c.now, r, c.seen)
		}
		reset()
		census, err := migrator(t, app, pgfunc.Options{}, migrate.Options{Connect: before(copyPlan())}).Server().Census(ctx)
		var where []string
		for _, g := range census.Generators {
			where = append(where, g.Database+"."+g.Schema)
		}
		if err != nil || strings.Join(where, " ") != c.seen+".insta5" {
			t.Fatalf("%s: census: %v, %v; want the one generator, in %s", c.name, where, err, c.seen)
		}
		if c.late {
			continue
		}
		reset()
		res, err := resume.Run(ctx, migrator(t, app, pgfunc.Options{}, migrate.Options{Connect: before(copyPlan())}), nil, resume.Options{Lead: 5 * time.Second}, nil)
		moved := 0
		for _, x := range res {
			if x.Err != nil {
				t.Errorf("%s: resume: %s: %v", c.name, x.Database, x.Err)
			}
			if x.Database == c.now && x.Schema == "insta5" && x.To > x.From {
				moved++
			}
		}
		if err != nil || moved != 1 {
			t.Fatalf("%s: resume: %+v, %v; want insta5 of %s moved once", c.name, res, err, c.now)
		}
	}
	if err := dropAll(); err != nil {
		t.Fatal(err)
	}

	// A database closed to connections while the databases are listed and
	// open again by the time the last one is read is reported as not
	// read, not missed.
	holder("b_hold")
	if err := exec(ctx, "CREATE DATABASE a_first", "ALTER DATABASE b_hold ALLOW_CONNECTIONS false"); err != nil {
		t.Fatal(err)
	}
	opens := map[string][]string{"a_first": {"ALTER DATABASE b_hold ALLOW_CONNECTIONS true"}}
	r := up(migrator(t, app, pgfunc.Options{}, migrate.Options{Connect: before(opens)}), pgfunc.Shard{Schema: "s5", ID: 5})
	if !errors.Is(r.Err, pgfunc.ErrUnreadDatabases) || !strings.Contains(r.Err.Error(), "b_hold") || r.Applied {
		t.Fatalf("up of shard 5 while b_hold, which holds it, was closed and opened: %+v; want ErrUnreadDatabases naming b_hold", r)
	}
	// Survey reads the shards and the server once, so what it says of
	// them agrees: the database closed when listed is in Census.Closed,
	// while Status, which did not read it, shows no copy. Status, then a
	// Census of its own, as pg status ran them, fall between the two: the
	// Census reads the database after it opened, and neither says that
	// the Status did not read it.
	for _, two := range []bool{true, false} {
		if err := exec(ctx, "ALTER DATABASE b_hold ALLOW_CONNECTIONS false"); err != nil {
			t.Fatal(err)
		}
		m := migrator(t, app, pgfunc.Options{}, migrate.Options{Connect: before(map[string][]string{"a_first": {"ALTER DATABASE b_hold ALLOW_CONNECTIONS true"}})})
		shards := []pgfunc.Shard{{Schema: "mine", ID: 5}}
		var st []migrate.Status
		var census inventory.Census
		var err error
		if two {
			if st, err = m.Status(ctx, shards); err == nil {
				census, err = m.Server().Census(ctx)
			}
		} else {
			st, census, err = m.Survey(ctx, shards)
		}
		if err != nil {
			t.Fatal(err)
		}
		told := len(st[0].Elsewhere) > 0 || slices.Contains(census.Closed, "b_hold")
		if two && told {
			t.Fatalf("Status then Census with b_hold opening between them: elsewhere %v, closed %v; the control no longer falls between the readings", st[0].Elsewhere, census.Closed)
		}
		if !two && !told {
			t.Fatalf("Survey with b_hold closed when listed: elsewhere %v, closed %v; want b_hold named as not read", st[0].Elsewhere, census.Closed)
		}
	}
	// A database an interrupted DROP DATABASE left invalid (PostgreSQL
	// 15.4 and later mark it so) cannot be connected to or used again: it
	// is passed over, not a failure of every run.
	if err := exec(ctx, "DROP DATABASE a_first", "DROP DATABASE b_hold", "CREATE DATABASE invalid",
		"UPDATE pg_catalog.pg_database SET datconnlimit = -2 WHERE datname = 'invalid'"); err != nil {
		t.Fatal(err)
	}
	if r := up(migrator(t, app, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "s5", ID: 5}); r.Err != nil || !r.Applied {
		t.Fatalf("up beside an invalid database: %+v", r)
	}
	if _, err := resume.Run(ctx, migrator(t, app, pgfunc.Options{}, migrate.Options{}), nil, resume.Options{Lead: 5 * time.Second}, nil); err != nil {
		t.Fatalf("resume beside an invalid database: %v", err)
	}
	if c, err := migrator(t, app, pgfunc.Options{}, migrate.Options{}).Server().Census(ctx); err != nil || !slices.Equal(c.Invalid, []string{"invalid"}) || slices.Contains(c.Closed, "invalid") {
		t.Fatalf("census beside an invalid database: %v; invalid %v, closed %v; want it named invalid, not unread", err, c.Invalid, c.Closed)
	}

	// A set that never settles: reading postgres, or a database made so,
	// makes another (from template0, which takes no connections, so that
	// a pool on template1 does not stand in the way).
	n := 0
	growing := func(ctx context.Context, name string) (*sql.DB, error) {
		if name == "postgres" || strings.HasPrefix(name, "new") {
			n++
			if _, err := admin.ExecContext(ctx, fmt.Sprintf("CREATE DATABASE new%d TEMPLATE template0", n)); err != nil {
				return nil, err
			}
		}
		db := testsrv.Open(t, "pgx", srv.DSN(name))
		return db, db.PingContext(ctx)
	}
	r = up(migrator(t, app, pgfunc.Options{}, migrate.Options{Connect: growing}), pgfunc.Shard{Schema: "s6", ID: 6})
	if !errors.Is(r.Err, inventory.ErrDatabasesChanging) || r.Applied {
		t.Fatalf("up while every read created a database: %+v; want ErrDatabasesChanging", r)
	}
	if _, err := resume.Run(ctx, migrator(t, app, pgfunc.Options{}, migrate.Options{Connect: growing}), nil, resume.Options{Lead: 5 * time.Second}, nil); !errors.Is(err, inventory.ErrDatabasesChanging) {
		t.Fatalf("resume while every read created a database: %v; want ErrDatabasesChanging", err)
	}
}
