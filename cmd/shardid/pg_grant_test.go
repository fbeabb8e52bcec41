package main

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPGGrantBadInput: a missing or impossible role is refused before any
// connection, with one line.
func TestPGGrantBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pg", "grant", "--dsn", "postgres://x", "--shards", "0"}, "--role is required"},
		{[]string{"pg", "grant", "--dsn", "postgres://x", "--shards", "0", "--role", "pg_write_all_data"}, "--role: invalid role \"pg_write_all_data\": pg_* roles are PostgreSQL's own"},
		{[]string{"pg", "grant", "--dsn", "postgres://x", "--shards", "0", "--role", "public"}, "--role: invalid role \"public\": reserved by PostgreSQL"},
		{[]string{"pg", "grant", "--dsn", "postgres://x", "--role", "app"}, "--shards is required"},
		{[]string{"pg", "grant", "--shards", "0", "--role", "app"}, "--dsn is required"},
		{[]string{"pg", "grant", "--shards", "0", "--role", "app", "extra"}, "pg grant: unexpected argument \"extra\""},
	} {
		code, _, stderr := runCLI(t, "", nil, c.args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
}

// TestPGGrant drives pg grant and pg status on a real server: the granted
// role inserts with DEFAULT next_id() and can move no counter; a wider
// grant shows up in pg status, and a rerun of pg grant takes it back; a
// shard without a generator fails alone; an unknown role is refused.
func TestPGGrant(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	db := openPG(t, dsn)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	app := strings.TrimPrefix(u.Path, "/") + "_app"
	if _, err := db.Exec("CREATE ROLE " + app + " LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP OWNED BY " + app)
		_, _ = db.Exec("DROP ROLE " + app)
	})
	env := map[string]string{"SHARDID_PG_DSN": dsn}
	if code, out, stderr := runCLI(t, "", env, "pg", "up", "--shards", "0-2"); code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := db.Exec("CREATE TABLE insta1.photos (id bigint PRIMARY KEY DEFAULT insta1.next_id(), caption text); GRANT SELECT, INSERT ON insta1.photos TO " + app); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", env, "pg", "grant", "--shards", "0-2", "--role", app)
	if code != 0 || !strings.Contains(out, "granted insta1") || !strings.Contains(out, "3 shards: 3 granted to "+app+", 0 failed") {
		t.Fatalf("grant: exit %d\n%s%s", code, out, stderr)
	}
	u.User = url.User(app)
	appDB := openPG(t, u.String())
	var shard int
	if err := appDB.QueryRow("INSERT INTO insta1.photos (caption) VALUES ('x') RETURNING insta1.id_shard(id)").Scan(&shard); err != nil || shard != 1 {
		t.Fatalf("insert as %s: shard %d, %v", app, shard, err)
	}
	var pgErr *pgconn.PgError
	_, err = appDB.Exec("SELECT setval('insta1.next_id_seq', 1)")
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("setval as %s: %v, want permission denied", app, err)
	}
	if code, out, _ := runCLI(t, "", env, "pg", "status", "--shards", "0-2"); code != 0 || strings.Contains(out, "break") {
		t.Fatalf("status after grant: exit %d\n%s", code, out)
	}

	if _, err := db.Exec("GRANT ALL ON ALL SEQUENCES IN SCHEMA insta2 TO " + app); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", env, "pg", "status", "--shards", "0-2")
	if code != 1 || !strings.Contains(out, `role `+app+` has UPDATE on "insta2".next_id_seq: can move the counter back with setval: IDs repeat`) ||
		!strings.Contains(stderr, "5 privileges let roles break the generators") {
		t.Fatalf("status after GRANT ALL: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, "", env, "pg", "grant", "--shards", "2", "--role", app); code != 0 {
		t.Fatalf("grant again: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, "", env, "pg", "status", "--shards", "0-2"); code != 0 {
		t.Fatalf("status after the second grant: exit %d\n%s", code, out)
	}

	code, out, _ = runCLI(t, "", env, "pg", "grant", "--shards", "2-3", "--role", app)
	if code != 1 || !strings.Contains(out, "FAILED  insta3") || !strings.Contains(out, "no shardid generator in schema insta3") ||
		!strings.Contains(out, "2 shards: 1 granted to "+app+", 1 failed") {
		t.Fatalf("grant with a shard without a generator: exit %d\n%s", code, out)
	}
	code, _, stderr = runCLI(t, "", env, "pg", "grant", "--shards", "0", "--role", app+"_nobody")
	if code != 2 || !strings.Contains(stderr, "--role: invalid role") || !strings.Contains(stderr, "no such role on the server") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("grant to an unknown role: exit %d %q; want exit 2 (bad input)", code, stderr)
	}
	code, _, stderr = runCLI(t, "", env, "pg", "grant", "--shards", "0", "--role", "postgres")
	if code != 2 || !strings.Contains(stderr, "a superuser can move any counter") {
		t.Fatalf("grant to a superuser: exit %d %q; want exit 2 (bad input)", code, stderr)
	}
}
