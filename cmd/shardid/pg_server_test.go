package main

import (
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// dbName is the database a DSN names.
func dbName(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// asUser is dsn with another user.
func asUser(t *testing.T, dsn, user string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(user)
	return u.String()
}

// TestPGStockGooseRefusesACopy: pg gen's migration, applied by the stock
// goose CLI, refuses a second schema for a shard id its database already
// holds, naming the schema in the way. (Before: goose created other0
// beside insta0; SELECT insta0.next_id(), other0.next_id() returned one
// value, 1,114 duplicates in 40,000 draws.)
func TestPGStockGooseRefusesACopy(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	goose := testsrv.GooseCLI(t)
	first, second := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, gen := range [][]string{{"--dir", first}, {"--dir", second, "--schema-format", "other%d"}} {
		if code, out, errOut := runCLI(t, "", nil, append([]string{"pg", "gen", "--shards", "0"}, gen...)...); code != 0 {
			t.Fatalf("gen %v: exit %d %s%s", gen, code, out, errOut)
		}
	}
	if out, err := exec.Command(goose, "-dir", first, "postgres", dsn, "up").CombinedOutput(); err != nil {
		t.Fatalf("goose up insta0: %v\n%s", err, out)
	}
	out, err := exec.Command(goose, "-dir", second, "-table", "other_version", "postgres", dsn, "up").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "SHR03") || !strings.Contains(string(out), "shard 0 is already held by schema insta0") {
		t.Fatalf("goose up other0 beside insta0: %v\n%s", err, out)
	}
	var exists bool
	if err := openPG(t, dsn).QueryRow("SELECT to_regnamespace('other0') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("the refused migration left schema other0 (%v)", err)
	}
}

// TestPGStatusReadsTheWholeServer: status, as a role that cannot connect
// to some database, exits 1 naming it, and up refuses to run until told
// to accept the risk; generators of two kinds that the stock goose CLI
// put in two databases (the migration sees its own database only) are
// reported as able to hand out the same IDs.
func TestPGStatusReadsTheWholeServer(t *testing.T) {
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	app, secret := testsrv.Database(t, srv), testsrv.Database(t, srv)
	admin := openPG(t, srv.DSN("postgres"))
	for _, q := range []string{
		"REVOKE CONNECT ON DATABASE " + dbName(t, secret) + " FROM PUBLIC",
		"CREATE ROLE deployer LOGIN",
		"GRANT CREATE ON DATABASE " + dbName(t, app) + " TO deployer",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"SHARDID_PG_DSN": asUser(t, app, "deployer")}
	code, out, errOut := runCLI(t, "", env, "pg", "status")
	if code != 1 || !strings.Contains(out, "NOT READ: "+dbName(t, secret)) || !strings.Contains(errOut, "1 database of the server could not be read") {
		t.Fatalf("status as deployer: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "up", "--shards", "1")
	if code != 1 || !strings.Contains(out, "databases the role cannot read: "+dbName(t, secret)) || !strings.Contains(out, "--allow-unread-databases") {
		t.Fatalf("up as deployer: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "", env, "pg", "up", "--shards", "1", "--allow-unread-databases"); code != 0 || !strings.Contains(out, "1 applied") {
		t.Fatalf("up as deployer, --allow-unread-databases: exit %d\n%s%s", code, out, errOut)
	}

	// Two kinds through goose, one per database.
	goose := testsrv.GooseCLI(t)
	jsDB, igDB := testsrv.Database(t, srv), testsrv.Database(t, srv)
	jsDir, igDir := filepath.Join(t.TempDir(), "js"), filepath.Join(t.TempDir(), "ig")
	recent := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	for _, gen := range [][]string{
		{"--dir", jsDir, "--layout", "js53", "--shards", "0", "--schema-format", "js%d"},
		{"--dir", igDir, "--epoch", recent, "--shards", "64", "--schema-format", "ig%d"},
	} {
		if code, out, errOut := runCLI(t, "", nil, append([]string{"pg", "gen"}, gen...)...); code != 0 {
			t.Fatalf("gen %v: exit %d %s%s", gen, code, out, errOut)
		}
	}
	for _, apply := range [][2]string{{jsDir, jsDB}, {igDir, igDB}} {
		if out, err := exec.Command(goose, "-dir", apply[0], "postgres", apply[1], "up").CombinedOutput(); err != nil {
			t.Fatalf("goose up %s: %v\n%s", apply[0], err, out)
		}
	}
	code, out, errOut = runCLI(t, "", nil, "pg", "status", "--dsn", igDB)
	if code != 1 || !strings.Contains(out, "MIXED: "+dbName(t, igDB)+".ig64") && !strings.Contains(out, "MIXED: "+dbName(t, jsDB)+".js0") ||
		!strings.Contains(out, "can both hand out ID") || !strings.Contains(errOut, "can hand out the same IDs") {
		t.Fatalf("status with js53 and instagram generators that meet: exit %d\n%s%s", code, out, errOut)
	}
}
