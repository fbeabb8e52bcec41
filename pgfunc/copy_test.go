package pgfunc_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCopiesKeepIdentity: a database holding shard 3 (mode unique) and
// shard 4 (classic) is dumped before a burst and copied back onto its
// server in the ways copies are made (pg_restore with --no-comments,
// --no-owner, --no-privileges and --no-security-labels; of a pg_dump -n;
// --schema-only;
// then ALTER SCHEMA ... RENAME) and onto another server by a pg_dumpall
// --no-comments round trip. Every copy has lost the counter's comment,
// which discovery read alone before (its negative control: the comment is
// checked gone), and every copy is still found through next_id_meta():
// by Census (status, verify), by Up in another database (refused), by the
// migration's own guard (a second schema for shard 3 or 4 refused, SHR03),
// by Grant, Down and Resume. A copy restored before the burst and resumed
// by the runbook repeats none of the origin's IDs; the same copy not
// resumed (what resume's skip left before: it exited 0) repeats them. A
// copy without next_id_meta() (a copy made without comments of an earlier
// release's generator) is a problem everywhere, never skipped.
func TestCopiesKeepIdentity(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("copies made with pg_dump, pg_restore and pg_dumpall on servers of its own")
	}
	ctx := context.Background()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	run := func(name string, args ...string) {
		t.Helper()
		if out, err := exec.Command(filepath.Join(srv.BinDir(), name), args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	runSQL := func(dsn string, statements ...string) {
		t.Helper()
		db := testsrv.Open(t, "pgx", dsn)
		for _, q := range statements {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		db.Close()
	}
	originDSN := testsrv.Database(t, srv)
	origin := testsrv.Open(t, "pgx", originDSN)
	o := burstOptions(5 * time.Second)
	classic := o
	classic.Mode = pgfunc.ModeClassic
	unique, old4 := pgfunc.Shard{Schema: "insta3", ID: 3}, pgfunc.Shard{Schema: "insta4", ID: 4}
	installWith(t, origin, unique, o)
	installWith(t, origin, old4, classic)

	dir := t.TempDir()
	dump := filepath.Join(dir, "origin.dump")
	run("pg_dump", "-Fc", "-f", dump, "-d", originDSN)
	schemas := filepath.Join(dir, "schemas.dump") // pg_dump -n: the schemas with what is in them
	run("pg_dump", "-Fc", "-n", "insta3", "-n", "insta4", "-f", schemas, "-d", originDSN)
	all := filepath.Join(dir, "all.sql")
	run("pg_dumpall", "--no-comments", "-f", all, "-d", srv.DSN("postgres"))

	// The burst, after the dumps.
	t0 := time.Now().UTC().Truncate(time.Second)
	conn := newConn(t, origin)
	oldIDs, last := drawAsAllowed(t, conn, unique.Schema, 12_500, t0)

	copies := []struct {
		db, schema3, schema4 string
		restore              []string // pg_restore's flags and dump
		after                []string // statements run in the copy afterwards
	}{
		{"c_flags", "insta3", "insta4", []string{"--no-comments", "--no-owner", "--no-privileges", "--no-security-labels", dump}, nil},
		{"c_schemas", "insta3", "insta4", []string{"--no-comments", schemas}, nil},
		{"c_ddl", "insta3", "insta4", []string{"--no-comments", "--schema-only", dump}, nil},
		{"c_renamed", "moved3", "moved4", []string{"--no-comments", "--no-acl", dump}, []string{"ALTER SCHEMA insta3 RENAME TO moved3", "ALTER SCHEMA insta4 RENAME TO moved4"}},
	}
	for _, c := range copies {
		runSQL(srv.DSN("postgres"), "CREATE DATABASE "+c.db)
		run("pg_restore", append([]string{"-d", srv.DSN(c.db)}, c.restore...)...)
		runSQL(srv.DSN(c.db), c.after...)
	}
	// The second server, from pg_dumpall --no-comments: origin's database
	// comes back under its own name.
	other := testsrv.NewPG(t, dbserver.PGOptions{})
	run("psql", "-X", "-q", "-v", "ON_ERROR_STOP=0", "-f", all, "-d", other.DSN("postgres"))

	// Every copy lost the comment (what discovery read alone before).
	for _, c := range copies {
		var comments int
		if err := testsrv.Open(t, "pgx", srv.DSN(c.db)).QueryRow(
			"SELECT count(obj_description(c.oid, 'pg_class')) FROM pg_class c WHERE c.relname = 'next_id_seq'").Scan(&comments); err != nil || comments != 0 {
			t.Fatalf("%s: %d counter comments survived the copy (%v): the copy does not test what it should", c.db, comments, err)
		}
	}

	// Census, as status and verify read the server.
	census, err := migrator(t, originDSN, o, migrate.Options{}).Server().Census(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int64{}
	for _, g := range census.Generators {
		found[g.Database+"."+g.Schema] = g.Meta.Shard
	}
	for _, c := range copies {
		if found[c.db+"."+c.schema3] != 3 || found[c.db+"."+c.schema4] != 4 {
			t.Errorf("census: %s's copies not found as shards 3 and 4: %v", c.db, found)
		}
	}
	if len(census.Unreadable) > 0 {
		t.Errorf("census: unreadable %+v; want every copy read", census.Unreadable)
	}
	oc, err := migrator(t, other.DSN("postgres"), o, migrate.Options{}).Server().Census(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var onOther []string
	for _, g := range oc.Generators {
		onOther = append(onOther, fmt.Sprintf("%s.%s=%d", g.Database, g.Schema, g.Meta.Shard))
	}
	if len(oc.Generators) != 2 {
		t.Errorf("the pg_dumpall round trip: %v; want shards 3 and 4 in origin's database", onOther)
	}

	// Up of shard 3 in another database: refused, whichever copy it names.
	newDB := testsrv.Database(t, srv)
	if r := up(migrator(t, newDB, o, migrate.Options{}), pgfunc.Shard{Schema: "again3", ID: 3}); !errors.Is(r.Err, pgfunc.ErrShardConflict) {
		t.Errorf("up of shard 3 beside its copies: %+v; want ErrShardConflict", r)
	}
	// The migration's own guard, in a copy: a second schema for shard 3
	// (its jump function's name would tell) and for shard 4 (classic:
	// only next_id_meta() tells, its comment gone).
	copyDB := testsrv.Open(t, "pgx", srv.DSN("c_flags"))
	for _, c := range []struct {
		sh pgfunc.Shard
		o  pgfunc.Options
	}{{pgfunc.Shard{Schema: "dup3", ID: 3}, o}, {pgfunc.Shard{Schema: "dup4", ID: 4}, classic}} {
		_, err := copyDB.Exec(renderedUp(t, c.sh, c.o))
		if sqlState(err) != "SHR03" {
			t.Errorf("the migration of %s in a copy holding shard %d: %v; want SHR03", c.sh.Schema, c.sh.ID, err)
		}
	}
	// Grant and Down find the copy's generator (Down compares it with
	// the options it is given).
	role := newRole(t, origin, "app", "")
	if res, err := privilege.Grant(ctx, copyDB, []pgfunc.Shard{unique}, role, nil); err != nil || res[0].Err != nil {
		t.Errorf("grant on the copy: %+v, %v", res, err)
	}
	wrong, _ := migrate.New(testsrv.Open(t, "pgx", srv.DSN("c_schemas")), pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if r := results(wrong.Down(ctx, []pgfunc.Shard{unique}, nil))[0]; !errors.Is(r.Err, pgfunc.ErrGeneratorMismatch) {
		t.Errorf("down with the default layout over the copy's js53 generator: %+v; want ErrGeneratorMismatch (the copy's own metadata read)", r)
	}

	// The runbook on the copy restored before the burst: resume, then
	// draw a second after the origin's last draw. Its negative control,
	// the copy whose counter stays (what resume's skip left): repeats.
	start := last.Add(time.Second)
	for _, name := range []string{"c_flags", "c_schemas"} {
		runSQL(srv.DSN(name), fmt.Sprintf("ALTER DATABASE %s SET shardid_test.now = '%s'", name, start.Format(time.RFC3339Nano)))
	}
	rm, _ := migrate.New(testsrv.Open(t, "pgx", srv.DSN("c_flags")), o, migrate.Options{OwnDatabaseOnly: true})
	res, err := resume.Run(ctx, rm, nil, resume.Options{Lead: 5 * time.Second}, nil)
	moved := map[string]bool{}
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("resume of the copy: %s: %v", r.Schema, r.Err)
		}
		moved[r.Schema] = r.Moved
	}
	if err != nil || !moved["insta3"] {
		t.Fatalf("resume of the copy: %+v, %v; want insta3 moved", res, err)
	}
	resumed, _ := drawAsAllowed(t, newConn(t, testsrv.Open(t, "pgx", srv.DSN("c_flags"))), "insta3", 12_500, start)
	control, _ := drawAsAllowed(t, newConn(t, testsrv.Open(t, "pgx", srv.DSN("c_schemas"))), "insta3", 12_500, start)
	n, nControl := repeats(oldIDs, resumed), repeats(oldIDs, control)
	t.Logf("a --no-comments copy restored from before a burst of 12,500 IDs, drawing a second after the origin's last draw: %d repeated after pg resume, %d without it (what resume's skip left)", n, nControl)
	if n > 0 {
		t.Errorf("%d of the origin's IDs handed out again by the resumed copy", n)
	}
	if nControl == 0 {
		t.Error("the copy not resumed repeats nothing: the test would not catch a skipped counter")
	}

	// A copy without next_id_meta(), as one made without comments of an
	// earlier release's generator: a problem everywhere, its shard told
	// by its jump function's name.
	runSQL(srv.DSN("c_renamed"), "DROP FUNCTION moved3.next_id_meta()")
	census, err = migrator(t, originDSN, o, migrate.Options{}).Server().Census(ctx)
	if err != nil || len(census.Unreadable) != 1 || census.Unreadable[0].Schema != "moved3" || census.Unreadable[0].Meta.Shard != 3 {
		t.Fatalf("census beside a copy without metadata: unreadable %+v, %v; want c_renamed.moved3, shard 3", census.Unreadable, err)
	}
	if r := up(migrator(t, newDB, o, migrate.Options{}), pgfunc.Shard{Schema: "insta9", ID: 9}); !errors.Is(r.Err, pgfunc.ErrUnreadableGenerator) || !strings.Contains(r.Err.Error(), "c_renamed.moved3 (shard 3)") {
		t.Errorf("up beside a generator whose metadata cannot be read: %+v; want ErrUnreadableGenerator naming it", r)
	}
	res, err = resume.Run(ctx, migrator(t, srv.DSN("c_renamed"), o, migrate.Options{OwnDatabaseOnly: true}), nil, resume.Options{Lead: 5 * time.Second}, nil)
	var failed bool
	for _, r := range res {
		if r.Schema == "moved3" {
			failed = errors.Is(r.Err, pgfunc.ErrUnreadableGenerator) && r.Shard == 3
		}
	}
	if !pgfunc.IsPartial(err) || !failed {
		t.Errorf("resume beside a counter whose metadata cannot be read: %+v, %v; want it failed (ErrUnreadableGenerator, shard 3), never skipped", res, err)
	}
}
