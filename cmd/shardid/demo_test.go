package main

import (
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// demoSchemas returns the shardid_demoN schemas of the database, in
// order, separated by spaces.
func demoSchemas(t *testing.T, dsn string) string {
	t.Helper()
	var names string
	q := "SELECT coalesce(string_agg(nspname, ' ' ORDER BY nspname), '') FROM pg_namespace WHERE nspname LIKE 'shardid\\_demo%'"
	if err := testsrv.Open(t, "pgx", dsn).QueryRow(q).Scan(&names); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestDemoRefusesLeftoverSchemas: demo --dsn where schemas of its names
// exist refuses in one line naming them all with the statement that drops
// them, leaves them as they were and drops only what it created; once
// they are dropped it runs and leaves nothing.
func TestDemoRefusesLeftoverSchemas(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t) // shards of its own: pg up checks every database of a server
	db := testsrv.Open(t, "pgx", dsn)
	if _, err := db.Exec("CREATE SCHEMA shardid_demo1; CREATE TABLE shardid_demo1.photos (x int); CREATE SCHEMA shardid_demo3"); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", nil, "demo", "--dsn", dsn)
	want := "schemas shardid_demo1, shardid_demo3 exist already"
	drop := "(DROP SCHEMA shardid_demo1, shardid_demo3 CASCADE)"
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, drop) || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("demo over leftovers: exit %d, stderr %q", code, stderr)
	}
	if got := demoSchemas(t, dsn); got != "shardid_demo1 shardid_demo3" {
		t.Fatalf("schemas after the refusal: %v, want the two that were there", got)
	}
	if _, err := db.Exec("SELECT x FROM shardid_demo1.photos"); err != nil {
		t.Fatalf("the existing schema's table: %v", err)
	}
	if _, err := db.Exec("DROP SCHEMA shardid_demo1, shardid_demo3 CASCADE"); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, "", nil, "demo", "--dsn", dsn); code != 0 || !strings.Contains(out, "200000 distinct") {
		t.Fatalf("demo: exit %d\n%s%s", code, out, stderr)
	}
	if got := demoSchemas(t, dsn); got != "" {
		t.Fatalf("schemas after the demo: %v", got)
	}
}

// TestDemoClosedStdout: `shardid demo --dsn … | head -2` still drops the
// demo's schemas: a reader that goes away does not kill the process
// (SIGPIPE) before it cleans up. The command runs as a process of its own
// (the test binary as shardid, see TestMain).
func TestDemoClosedStdout(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t) // shards of its own: pg up checks every database of a server
	if err, stderr := headTwo(t, "demo", "--dsn", dsn); err != nil && !strings.Contains(err.Error(), "exit status") {
		t.Fatalf("demo with its reader gone ended by %v; want an exit, not a signal (%s)", err, stderr)
	}
	if got := demoSchemas(t, dsn); got != "" {
		t.Fatalf("schemas left after the reader went away: %v", got)
	}
}

// TestDemoBesideShards: demo --dsn on a server whose other database holds
// shards 0-3 runs beside them, on the layout's top four shard ids; once
// one of those is held too, it refuses as pg up does, naming where, and
// leaves nothing behind; a counter pg down kept of one of them is refused
// too, and stays. (Before: the demo applied shards 0-3 checking only its
// own database, and for its run two schemas held each of them; a kept
// counter of its shard ids was carried on into its schema and dropped
// with it: 293,049 repeats after a later up of that shard, outside trial.)
func TestDemoBesideShards(t *testing.T) {
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{}) // a server of its own
	dsn, other := testsrv.Database(t, srv), testsrv.Database(t, srv)
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", other, "--shards", "0-3"); code != 0 {
		t.Fatalf("pg up: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "", nil, "demo", "--dsn", dsn)
	if code != 0 || !strings.Contains(out, "$ shardid pg up --shards 8188-8191\n") || !strings.Contains(out, "200000 IDs from one statement on shard 8188") {
		t.Fatalf("demo beside shards 0-3: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", other, "--shards", "8190", "--schema-format", "top%d"); code != 0 {
		t.Fatalf("pg up of shard 8190: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "demo", "--dsn", dsn)
	if code != 1 || !strings.Contains(errOut, "a generator of shard 8190 is in schema top8190 of database") || strings.Contains(out, "applied") {
		t.Fatalf("demo with shard 8190 held: exit %d\n%s%s", code, out, errOut)
	}
	if got := demoSchemas(t, dsn); got != "" {
		t.Fatalf("schemas after the refusal: %v", got)
	}
	// A counter pg down kept is a trace too: the demo must not carry it
	// on into its own schema and drop it with that schema at its end.
	if code, out, errOut := runCLI(t, "", nil, "pg", "down", "--dsn", other, "--shards", "8190", "--schema-format", "top%d"); code != 0 {
		t.Fatalf("pg down of shard 8190: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "demo", "--dsn", dsn)
	if code != 1 || !strings.Contains(errOut, "a counter pg down kept of shard 8190 is in schema top8190 of database") {
		t.Fatalf("demo with shard 8190's counter kept: exit %d\n%s%s", code, out, errOut)
	}
	var kept bool
	if err := openPG(t, other).QueryRow("SELECT to_regclass('top8190.next_id_retired_seq') IS NOT NULL").Scan(&kept); err != nil || !kept {
		t.Fatalf("the kept counter is gone after the demo's refusal (%v)", err)
	}
}
