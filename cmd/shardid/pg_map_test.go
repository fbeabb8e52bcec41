package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestPGMap drives up, status and verify over a shard map whose two
// servers are two databases of one server, with passwords in the DSNs
// (the test server trusts local connections, so they are ignored): no
// output may show them.
func TestPGMap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own")
	}
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	withPassword := func(dsn string) string { return strings.Replace(dsn, "postgres@", "postgres:s3cret@", 1) }
	env := map[string]string{
		"DB1_DSN": withPassword(testsrv.Database(t, srv)),
		"DB2_DSN": withPassword(testsrv.Database(t, srv)),
	}
	path := filepath.Join(t.TempDir(), "fleet.toml")
	if err := os.WriteFile(path, []byte(`layout = "js53"
[[servers]]
name = "db1"
dsn_env = "DB1_DSN"
shards = "0-3"
[[servers]]
name = "db2"
dsn_env = "DB2_DSN"
shards = "4-7"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, code, wantCode int, out, errOut string) {
		t.Helper()
		if code != wantCode || strings.Contains(out+errOut, "s3cret") {
			t.Fatalf("%s: exit %d (want %d)\n%s%s", what, code, wantCode, out, errOut)
		}
	}
	code, out, errOut := runCLI(t, "", env, "pg", "up", "--map", path)
	check("up", code, 0, out, errOut)
	if strings.Count(out, " applied ") != 8 || !regexp.MustCompile(`db2\s+\S+\s+4\s+4\s+0\s+0`).MatchString(out) {
		t.Fatalf("up: want 8 applied lines and a summary row for db2:\n%s", out)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "up", "--map", path)
	check("rerun", code, 0, out, errOut)
	if strings.Count(out, " current ") != 8 {
		t.Fatalf("rerun: want 8 current lines:\n%s", out)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "status", "--map", path)
	check("status", code, 0, out, errOut)
	if strings.Count(out, " ok\n") != 8 {
		t.Fatalf("status: want 8 ok rows:\n%s", out)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "verify", "--map", path, "--json")
	check("verify", code, 0, out, errOut)
	var doc report
	err := json.Unmarshal([]byte(out), &doc)
	if servers := rowsOf[fleet.ServerCheck](t, doc); err != nil || doc.Command != "pg verify" || !doc.OK || doc.Totals["shards"] != float64(8) || len(servers) != 2 || !strings.Contains(out, `"problems": []`) {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	// grant over the map: a role that does not exist fails every shard of
	// every server, then each shard is granted once it does.
	code, out, errOut = runCLI(t, "", env, "pg", "grant", "--map", path, "--role", "app")
	if code != 1 || !strings.Contains(errOut, "no such role") || strings.Contains(out+errOut, "s3cret") {
		t.Fatalf("grant to a missing role: exit %d\n%s%s", code, out, errOut)
	}
	// The summary says why each server failed (on a terminal the bars
	// show no errors, so it is the only place a second server's is seen).
	for _, name := range []string{"db1", "db2"} {
		if !regexp.MustCompile(`(?m)^` + name + `: 4 shards failed; the first: .*no such role`).MatchString(out) {
			t.Fatalf("grant to a missing role: no failure line for %s:\n%s", name, out)
		}
	}
	if _, err := testsrv.Open(t, "pgx", testsrv.Database(t, srv)).Exec("CREATE ROLE app LOGIN"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "grant", "--map", path, "--role", "app")
	check("grant", code, 0, out, errOut)
	if strings.Count(out, " granted ") != 8 || !regexp.MustCompile(`db1\s+\S+\s+4\s+4\s+0\s+0`).MatchString(out) {
		t.Fatalf("grant --map: want 8 granted lines and a summary row for db1:\n%s", out)
	}
	// up refuses a copy of shard 2 in a third database of the server, and
	// fails rather than run unlocked when its lock database is not there.
	third := testsrv.Database(t, srv)
	code, out, errOut = runCLI(t, "", nil, "pg", "up", "--dsn", third, "--shards", "2", "--layout", "js53", "--schema-format", "copy%d")
	if code != 1 || !strings.Contains(out, "shard id already used by another schema: shard 2 is already in schema insta2 of database") {
		t.Fatalf("a copy of shard 2 in a third database: exit %d\n%s%s", code, out, errOut)
	}
	// Anybody can hold the server lock (advisory locks need no privilege):
	// up waits --lock-timeout, then fails naming the holder.
	holder := testsrv.Open(t, "pgx", srv.DSN("postgres"))
	holder.SetMaxOpenConns(1)
	if _, err := holder.Exec("SET application_name = 'squatter'; SELECT pg_advisory_lock(1397310514, 0)"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", nil, "pg", "up", "--dsn", third, "--lock-timeout", "300ms", "--shards", "9", "--layout", "js53")
	if code != 1 || !strings.Contains(out, "server lock held by another session for 300ms") || !strings.Contains(out, `application "squatter"`) {
		t.Fatalf("up with the server lock held: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := holder.Exec("SELECT pg_advisory_unlock(1397310514, 0)"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "", nil, "pg", "up", "--dsn", third, "--lock-timeout", "0s", "--shards", "9")
	if code != 2 || !strings.Contains(errOut, "--lock-timeout: 0s is not a positive duration") {
		t.Fatalf("--lock-timeout 0: exit %d %q", code, errOut)
	}
	// A copy planted behind shardid's back is what verify reports.
	mig, err := migrate.New(testsrv.Open(t, "pgx", third), pgfunc.Options{Layout: shardid.JS53()}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := mig.Up(context.Background(), []pgfunc.Shard{{Schema: "copy2", ID: 2}}, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "verify", "--map", path)
	if code != 1 || strings.Count(out, "DUPLICATE") != 1 || !strings.Contains(out, "copy2") || !strings.Contains(errOut, "break the shard map in 1 place") {
		t.Fatalf("verify with a copy: exit %d\n%s%s", code, out, errOut)
	}
	// status counts shard ids, not lines: one copy is one shard, and each
	// shard of a server it could not read is counted as not read.
	code, out, errOut = runCLI(t, "", env, "pg", "status", "--dsn", env["DB1_DSN"], "--shards", "2", "--layout", "js53")
	if code != 1 || !strings.Contains(errOut, "1 shard id is held by more than one schema on the server") {
		t.Fatalf("status of a copied shard: exit %d\n%s%s", code, out, errOut)
	}
	down := filepath.Join(t.TempDir(), "down.toml")
	if err := os.WriteFile(down, append(must(os.ReadFile(path)), "[[servers]]\nname = \"db3\"\ndsn = \"postgres://postgres@127.0.0.1:1/x?connect_timeout=2\"\nshards = \"8-10\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "status", "--map", down)
	if code != 1 || !strings.Contains(out, "UNREACHABLE (3 shards not read)") ||
		!strings.Contains(errOut, "1 shard is missing, outdated, different from the map or copied, and 3 on servers not read (unreachable, clones or standbys") {
		t.Fatalf("status --map with a copy and a server down: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "status", "--map", path, "--dsn", "x")
	if code != 2 || !strings.Contains(errOut, "--map holds the servers, shards and generator; drop --dsn") {
		t.Fatalf("--map with --dsn: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", nil, "pg", "verify", "--map", path)
	if code != 2 || !strings.Contains(errOut, "environment variable DB1_DSN is not set") {
		t.Fatalf("verify without the DSN variables: exit %d %q", code, errOut)
	}
}

// must returns v, failing on err: for test setup that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestMapRefusesGeneratorEnvironment: with --map, the environment
// variables of the flags that decide the generator (layout, epoch, mode,
// schema names) are refused like the flags, naming the variable, before
// the map is read; SHARDID_PG_DSN, often set for the commands without a
// map, is ignored.
func TestMapRefusesGeneratorEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"SHARDID_LAYOUT": "js53"}, []string{"pg", "up", "--map", "fleet.toml"},
			"pg up: --map holds the servers, shards and generator; unset SHARDID_LAYOUT (the map holds the layout, epoch, mode, lead and schema names)"},
		{map[string]string{"SHARDID_LAYOUT": "js53", "SHARDID_EPOCH": "2020-01-01T00:00:00Z", "SHARDID_MODE": "classic", "SHARDID_SCHEMAS": "s%d"}, []string{"pg", "status", "--map", "fleet.toml"},
			"unset SHARDID_LAYOUT, SHARDID_EPOCH, SHARDID_MODE, SHARDID_SCHEMAS (the map"},
		{map[string]string{"SHARDID_MODE": "classic"}, []string{"pg", "down", "--map", "fleet.toml", "--shards", "1"},
			"generator; drop --shards; unset SHARDID_MODE (the map"},
		{map[string]string{"SHARDID_SCHEMAS": "s%d"}, []string{"pg", "grant", "--map", "fleet.toml", "--role", "app"},
			"pg grant: --map holds the servers, shards and generator; unset SHARDID_SCHEMAS"},
		// SHARDID_PG_DSN is no clash: the map is read (here: not there).
		{map[string]string{"SHARDID_PG_DSN": "postgres://u@h/db"}, []string{"pg", "up", "--map", "fleet.toml"}, "--map: "},
	} {
		code, _, stderr := runCLI(t, "", c.env, c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v with %v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, c.env, code, stderr, c.want)
		}
	}
}
