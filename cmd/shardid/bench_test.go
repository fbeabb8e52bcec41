package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// tinyBench are the flags of a run small enough for tests: every body,
// table and method once.
var tinyBench = []string{"--rounds", "1", "--calls", "2000", "--rows", "5", "--ids", "20"}

// pgJSON is the document of bench pg --json.
type pgJSON struct {
	Where string `json:"where"`
	bench.PGReport
}

// checkPGReport checks the shape of a bench pg report and that nothing
// that must be unique repeated.
func checkPGReport(t *testing.T, rep *pgJSON) {
	t.Helper()
	var bodies []string
	for _, c := range rep.Cost {
		bodies = append(bodies, c.Body)
		if c.NsPerID.Median <= 0 || (c.MustBeUnique && c.Duplicates != 0) {
			t.Errorf("cost of %s: %+v", c.Body, c)
		}
	}
	if got := strings.Join(bodies, ","); got != "nextval,unique,unique-bulk,unique-ids,classic,classic-sql,published,uuid-v4,uuid-v7" {
		t.Errorf("bodies %s", got)
	}
	if !rep.Cost[1].MustBeUnique || rep.Cost[1].Duplicates != 0 {
		t.Errorf("mode unique: %+v", rep.Cost[1])
	}
	if len(rep.Insert) != 4 {
		t.Fatalf("insert phases %+v", rep.Insert)
	}
	for _, ph := range rep.Insert {
		if len(ph.Keys) != 7 || ph.Keys[1].Key != "unique" || ph.Keys[1].DuplicateKeys != 0 || ph.Keys[1].RowsPerSecond.Median <= 0 || ph.Keys[1].SlowPath == nil {
			t.Errorf("%s: %+v", ph.Name, ph.Keys)
		}
	}
	if len(rep.Planning) != 7 || len(rep.IDs) != 4 {
		t.Errorf("planning %+v, IDs %+v", rep.Planning, rep.IDs)
	}
	for _, r := range rep.IDs {
		if r.Duplicates != 0 || r.PerClient.Median <= 0 {
			t.Errorf("IDs from %s: %+v", r.Method, r)
		}
	}
}

// TestBenchPG runs bench pg with tiny counts and a peer against the test
// server, as tables and as JSON: every section and row is there (the
// peer's too), mode unique repeated nothing, the figures come with how to
// read them and no verdicts, progress goes to stderr, and the password of
// the DSN appears nowhere.
func TestBenchPG(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.PGDB(t)
	if _, err := db.Exec("CREATE SEQUENCE theirs"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", nil, append([]string{"bench", "pg", "--dsn", dsn, "--peer", "seq=nextval('theirs')"}, tinyBench...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Single-row INSERT, 2 clients at once", "SIMPLE, SYNC OFF", "PREPARED, SYNC OFF", "SIMPLE, SYNC ON", "PREPARED, SYNC ON",
		"Server CPU per row (the clients' server processes, /proc/", "Slow path: rows whose draw jumped", "Planning a single-row INSERT",
		"Server-side cost per ID", "IDs for a client", "How to read it:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, verdict := range []string{"Goals", "NOT met", "met "} {
		if strings.Contains(out, verdict) {
			t.Errorf("output judges the figures (%q); it gives the user's figures only:\n%s", verdict, out)
		}
	}
	for _, name := range []string{"nextval()", "next_id() unique (default)", "next_id_bulk() unique", "next_ids(n) unique, per ID", "next_id() classic-sql", "Instagram's published body", "gen_random_uuid()", "UUID v7 in PL/pgSQL",
		"DEFAULT next_id() unique", "DEFAULT next_id_bulk() unique", "uuid DEFAULT UUID v7", "DEFAULT nextval('theirs') (peer seq)", "nextval('theirs') (peer seq)", "segments", "leased app-side generator"} {
		if !strings.Contains(out, "\n"+name+" ") {
			t.Errorf("no row %q:\n%s", name, out)
		}
	}
	// The unique body's last column, its repeated IDs, is 0.
	if !regexp.MustCompile(`(?m)^next_id\(\) unique \(default\) .* 0$`).MatchString(out) {
		t.Errorf("mode unique's row does not end in 0 repeats:\n%s", out)
	}
	if !strings.Contains(errOut, "round 1/1: server-side cost of") {
		t.Errorf("no progress on stderr: %q", errOut)
	}

	// The test server trusts local connections, so any password works:
	// it must not be shown.
	withPassword := strings.Replace(dsn, "postgres@", "postgres:s3cret@", 1)
	code, out, errOut = runCLI(t, "", nil, append([]string{"bench", "pg", "--json", "--dsn", withPassword}, tinyBench...)...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, "s3cret") || !strings.Contains(out, "xxxxx") {
		t.Errorf("the DSN's password is shown, or the DSN is not:\n%s", out)
	}
	var rep pgJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not one JSON document: %v\n%s", err, out)
	}
	checkPGReport(t, &rep)
	if rep.Where == "" || rep.Settings.Calls != 2000 || rep.Settings.Clients != bench.DefaultClients {
		t.Errorf("where %q, settings %+v", rep.Where, rep.Settings)
	}
}

// TestBenchBadInput: bad flags exit 2 with one line naming the flag,
// before anything connects; a server of the wrong kind exits 1 and says so.
func TestBenchBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "pg", "--rounds", "0"}, "bench pg: --rounds 0 (allowed: 1-1000)\n"},
		{[]string{"bench", "tidb", "--clients", "-1"}, "bench tidb: --clients -1 (allowed: 1-64)\n"},
		{[]string{"bench", "pg", "--clients", "65"}, "bench pg: --clients 65 (allowed: 1-64)\n"},
		{[]string{"bench", "pg", "extra"}, `unexpected argument "extra"`},
		{[]string{"bench", "tidb", "--calls", "5"}, "bench tidb: unknown flag --calls (see shardid bench tidb -h)"},
		{[]string{"bench", "pg", "--batches", "5"}, "bench pg: unknown flag --batches (see shardid bench pg -h)"},
		{[]string{"bench", "tidb", "--peer", "a=1"}, "bench tidb: unknown flag --peer (see shardid bench tidb -h)"},
		{[]string{"bench", "pg", "--peer", "noequals"}, `bench pg: --peer: noequals (peer "noequals": want NAME=SQLEXPR) (see shardid bench pg -h)`},
		{[]string{"bench", "pg", "--peer", "a b=1"}, `bench pg: --peer: a b=1 (peer name "a b": want 1 to 40 letters, digits, '_', '-' or '.')`},
		{[]string{"bench", "pg", "--peer", "x="}, `bench pg: --peer: x= (peer x: want an SQL expression after the '=')`},
		{[]string{"bench", "mysql"}, `unknown bench subcommand "mysql"`},
		{[]string{"bench", "pg", "--executes", "5"}, "bench pg: --executes, --repeats, --only and --extra need --instructions"},
		{[]string{"bench", "pg", "--instructions", "--rows", "5"}, "bench pg: --instructions runs its own throwaway server and takes no --rows"},
		{[]string{"bench", "pg", "--instructions", "--executes", "0"}, "bench pg: --executes 0, --repeats 2 (allowed: 1-500, 1-10)"},
		{[]string{"bench", "pg", "--instructions", "--executes", "501"}, "bench pg: invalid settings: executes 501 (allowed 1-500, or 0 for 200)"},
		{[]string{"bench", "pg", "--instructions", "--only", "uuid"}, `bench pg: invalid settings: row "uuid" (allowed: floor, next_id, next_id_bulk, next_ids, next_ids_bare)`},
		{[]string{"bench", "pg", "--instructions", "--extra", "x"}, `bench pg: --extra: x (extra "x": want NAME=FILE.sql)`},
	} {
		code, _, errOut := runCLI(t, "", nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 && !strings.Contains(errOut, "subcommands:") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// Every count flag: the same bounds as the package, 0 refused (each
	// flag has a default of its own), one line, before anything connects.
	for _, sub := range []string{"pg", "tidb"} {
		for _, l := range bench.Limits {
			if sub == "tidb" && l.Name == "calls" || sub == "pg" && l.Name == "batches" {
				continue
			}
			for _, v := range []int{0, -1, l.Max + 1} {
				code, _, errOut := runCLI(t, "", nil, "bench", sub, "--dsn", "postgres://127.0.0.1:1/x", fmt.Sprintf("--%s=%d", l.Name, v))
				want := fmt.Sprintf("bench %s: --%s %d (allowed: 1-%d)\n", sub, l.Name, v, l.Max)
				if code != 2 || !strings.HasSuffix(errOut, want) || strings.Count(errOut, "\n") != 1 {
					t.Errorf("bench %s --%s=%d: exit %d, stderr %q; want 2 and %q", sub, l.Name, v, code, errOut, want)
				}
			}
		}
	}
	_, mdsn := testsrv.MariaDBDB(t)
	code, _, errOut := runCLI(t, "", nil, "bench", "tidb", "--dsn", mdsn)
	if code != 1 || !strings.Contains(errOut, "not TiDB") {
		t.Errorf("bench tidb on MariaDB: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", nil, "bench", "tidb", "--dsn", strings.Replace(mdsn, "root@", "root:s3cret@", 1))
	if code != 1 || strings.Contains(errOut, "s3cret") {
		t.Errorf("bench tidb with a wrong password: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", map[string]string{"TIDB_BIN": "/nonexistent/tidb-server"}, "bench", "tidb")
	if code != 1 || !strings.Contains(errOut, "tidb-server binary not found") || !strings.Contains(errOut, "TIDB_BIN") {
		t.Errorf("bench tidb without a binary: exit %d, %q", code, errOut)
	}
}

// TestBenchTiDB runs bench tidb --json with tiny counts against the test
// TiDB: every strategy's table, its regions and the ID methods are there,
// nothing repeated, and the unistore note is given.
func TestBenchTiDB(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts into five TiDB tables: slow")
	}
	_, dsn := testsrv.TiDBDB(t)
	code, out, errOut := runCLI(t, "", nil, "bench", "tidb", "--json", "--dsn", dsn, "--rounds", "1", "--rows", "5", "--batches", "1", "--ids", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkTiDBJSON(t, out)
}

// checkTiDBJSON checks the shape of bench tidb --json output.
func checkTiDBJSON(t *testing.T, out string) {
	t.Helper()
	var rep struct {
		Where string `json:"where"`
		Note  string `json:"note"`
		bench.TiDBReport
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	var keys []string
	for _, r := range rep.Regions {
		keys = append(keys, r.Key)
		if r.Written < 1 || r.After < 1 || len(r.DDL) == 0 {
			t.Errorf("regions of %s: %+v", r.Key, r)
		}
	}
	if got := strings.Join(keys, ","); got != "auto_increment,auto_random,shard_row_id,snowflake,rotated" {
		t.Errorf("tables %s", got)
	}
	if len(rep.Insert) != 2 || len(rep.IDs) != 5 || rep.Note != bench.UnistoreNote {
		t.Errorf("insert %+v, IDs %+v, note %q", rep.Insert, rep.IDs, rep.Note)
	}
	for _, ph := range rep.Insert {
		for _, k := range ph.Keys {
			if k.DuplicateKeys != 0 || k.RowsPerSecond.Median <= 0 {
				t.Errorf("%s, %s: %+v", ph.Name, k.Key, k)
			}
		}
	}
	for _, r := range rep.IDs {
		if r.Duplicates != 0 {
			t.Errorf("IDs from %s repeated: %+v", r.Method, r)
		}
	}
}

// TestBenchThrowaway runs both commands without --dsn, as on a fresh
// machine: each starts its own throwaway server and removes it.
func TestBenchThrowaway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL and a TiDB server of its own: slow")
	}
	t.Parallel()
	code, out, errOut := runCLI(t, "", nil, append([]string{"bench", "pg", "--json"}, tinyBench...)...)
	if code != 0 {
		t.Fatalf("bench pg: exit %d: %s", code, errOut)
	}
	var rep pgJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench pg: %v", err)
	}
	checkPGReport(t, &rep)
	if !strings.Contains(rep.Where, "throwaway") || !strings.Contains(errOut, "starting a throwaway PostgreSQL") {
		t.Errorf("where %q, stderr %q", rep.Where, errOut)
	}
	if _, err := dbserver.FindTiDB(""); err != nil && !testsrv.InCI() {
		t.Skipf("no TiDB on this machine: %v", err)
	}
	{
		code, out, errOut = runCLI(t, "", nil, "bench", "tidb", "--json", "--rounds", "1", "--rows", "5", "--batches", "1", "--ids", "20")
		if code != 0 {
			t.Fatalf("bench tidb: exit %d: %s", code, errOut)
		}
		checkTiDBJSON(t, out)
	}
}
