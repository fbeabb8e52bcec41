package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

const (
	seedInput   = "../../tidb/testdata/global_tx_list/input.sql"
	branchInput = "../../tidb/testdata/branch_tx_list/input.sql"
	// generatedKeyInput has a generated column reading its BIGINT
	// AUTO_INCREMENT key.
	generatedKeyInput = "../../tidb/testdata/generated_key/input.sql"
)

// TestTiDBRenderWarnsOfExpressionsOnTheKey checks that an explicit
// --strategy auto-random renders a table whose key a generated column
// reads, and warns naming the column, while auto's choice table says why
// it did not pick auto-random for a key RANGE partitioning reads.
func TestTiDBRenderWarnsOfExpressionsOnTheKey(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "tidb", "render", "--strategy", "auto-random", generatedKeyInput)
	if code != 0 || !strings.Contains(out, "AUTO_RANDOM(5, 54)") ||
		!strings.Contains(errOut, "warning: 用户表: generated column 双倍 (`编号`*2) reads 编号, whose AUTO_RANDOM values run up to 2^53-1") {
		t.Errorf("auto-random: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	code, out, errOut = runCLI(t, "", nil, "tidb", "render", "../../tidb/testdata/range_partitioned_key/input.sql")
	if code != 0 || !strings.Contains(out, "SHARD_ROW_ID_BITS=4") ||
		!regexp.MustCompile(`orders +shard-rowid +BIGINT AUTO_INCREMENT key read by RANGE/LIST partitioning by \(`+"`id`"+`\): under AUTO_RANDOM`).MatchString(errOut) {
		t.Errorf("auto: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// runCLI runs one shardid command line over buffers.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

// TestTiDBRenderMatchesGolden checks that render prints the golden DDL for
// each strategy, from a file and from stdin, and the choice on stderr.
func TestTiDBRenderMatchesGolden(t *testing.T) {
	in, err := os.ReadFile(seedInput)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"auto", "shard-rowid", "auto-random", "rotated-int"} {
		want, err := os.ReadFile(filepath.Join(filepath.Dir(seedInput), s+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "", nil, "tidb", "render", "--strategy", s, seedInput)
		if code != 0 || out != string(want) || !strings.Contains(errOut, "T_TX_GLOBAL_LIST") {
			t.Errorf("%s from file: exit %d, stderr %q, output differs from golden", s, code, errOut)
		}
		code, out, _ = runCLI(t, string(in), nil, "tidb", "render", "--strategy", s, "-")
		if code != 0 || out != string(want) {
			t.Errorf("%s from stdin: exit %d, output differs from golden", s, code)
		}
	}
}

// TestTiDBRenderBadInput checks exit status 2 and a one-line message naming
// the flag for bad flags, and exit status 1 with the file and line for a
// refused table.
func TestTiDBRenderBadInput(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--strategy", "hash", seedInput}, 2, "--strategy"},
		{[]string{"--shard-bits", "16", seedInput}, 2, "--shard-bits: 16 (allowed: 1–15)"},
		{[]string{"--shard-bits", "99999999999999999999", seedInput}, 2, "--shard-bits: 99999999999999999999 (allowed: 1–15)"},
		{[]string{"--shard-bits", "0", seedInput}, 2, "--shard-bits: 0 (allowed: 1–15; leave the flag out for its default)"},
		{[]string{"--shard-bits", "3", "--pre-split", "4", seedInput}, 2, "--pre-split"},
		{[]string{"--pre-split", "0", seedInput}, 2, "--pre-split: 0 (allowed: 1 to the shard bits (at most 15), or none"},
		{[]string{"--pre-split", "-1", seedInput}, 2, "--pre-split: -1 (allowed: 1 to the shard bits (at most 15), or none"},
		{[]string{"--pre-split", "99999999999999999999", seedInput}, 2, "--pre-split: 99999999999999999999 (allowed: 1 to the shard bits (at most 15), or none"},
		{[]string{"--strategy", "auto-random", "--range", "20", seedInput}, 2, "--range: 20 (allowed: 32–64)"},
		{[]string{"--strategy", "rotated-int", "--id-digits", "21", seedInput}, 2, "--id-digits: 21 (allowed: 2–20)"},
		{[]string{"--strategy", "rotated-int", "--id-digits", "20", seedInput}, 1, "no 20-digit ID fits a signed BIGINT"},
		{[]string{"--strategy", "rotated-int", "--digits", "3", "--id-digits", "3", seedInput}, 2, "--digits/--id-digits/--lead: rotated digits out of range: IDs of 3 digits with 3 rotated"},
		{[]string{"--strategy", "rotated-int", "--lead", "10", seedInput}, 2, "--lead: 10 (allowed: 1–9)"},
		{[]string{"--strategy", "auto-random", "--range", "32", seedInput}, 1, "leaves 26 increment bits"},
		{[]string{"--strategy", "rotated-int", "--digits", "4", seedInput}, 2, "--digits: 4 (allowed: 1–3)"},
		{[]string{"--strategy", "shard-rowid", "--range", "54", seedInput}, 2, "--strategy"},
		{[]string{}, 2, "FILE"},
		{[]string{"--strategy", "auto-random", "../../tidb/testdata/varchar_key/input.sql"}, 1, "BIGINT"},
		{[]string{"--alter", seedInput}, 1, "SHOW CREATE TABLE"},
		{[]string{generatedKeyInput}, 1, "generated_key/input.sql: line 3: render 用户表: conflicting table options: generated column 双倍 (`编号`*2) reads AUTO_INCREMENT column 编号, which TiDB refuses (ERROR 3109"},
		{[]string{"--alter", "--strategy", "auto-random", "--range", "54", "../../tidb/testdata/auto_increment_clustered/input.sql"}, 1, "range bits of an existing column"},
		{[]string{"-"}, 1, "stdin: schema script: line 1: ALTER TABLE t, which the script does not create (for an existing table use shardid tidb render --alter)"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, "ALTER TABLE t ADD COLUMN x INT;", nil, append([]string{"tidb", "render"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("render %v: exit %d, stderr %q, stdout %q; want exit %d and one line naming %q", c.args, code, errOut, out, c.code, c.want)
		}
	}
}

// TestTiDBRenderPreSplitNone checks that --pre-split none drops
// PRE_SPLIT_REGIONS and --pre-split 2 sets it.
func TestTiDBRenderPreSplitNone(t *testing.T) {
	code, out, _ := runCLI(t, "", nil, "tidb", "render", "--pre-split", "none", seedInput)
	if code != 0 || strings.Contains(out, "PRE_SPLIT_REGIONS") || !strings.Contains(out, "SHARD_ROW_ID_BITS=4") {
		t.Errorf("none: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", nil, "tidb", "render", "--pre-split", "2", seedInput)
	if code != 0 || !strings.Contains(out, "SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=2") {
		t.Errorf("2: exit %d:\n%s", code, out)
	}
}

// TestTiDBRenderScript renders a mysqldump-style script with a BOM: every
// table in order, the choice table and the notes on stderr, the warning
// (a hotspot left) first; --notes all prints each note under its table.
func TestTiDBRenderScript(t *testing.T) {
	script := "\uFEFF-- dump\n/*!40101 SET NAMES utf8mb4 */;\nSET FOREIGN_KEY_CHECKS=0;\nDROP TABLE IF EXISTS `b`;\n" +
		"CREATE TABLE `b` (`id` bigint NOT NULL AUTO_INCREMENT, `a_id` varchar(9), PRIMARY KEY (`id`), CONSTRAINT `fk` FOREIGN KEY (`a_id`) REFERENCES `a` (`k`)) ENGINE=InnoDB AUTO_INCREMENT=17;\n" +
		"CREATE TABLE `a` (`k` varchar(9) NOT NULL PRIMARY KEY, `at` timestamp DEFAULT CURRENT_TIMESTAMP, KEY `by_at` (`at`));\n"
	code, out, errOut := runCLI(t, script, nil, "tidb", "render", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Index(out, "CREATE TABLE `a`") > strings.Index(out, "CREATE TABLE `b`") || !strings.Contains(out, "/*M! AUTO_INCREMENT */ /*T![auto_rand] AUTO_RANDOM(5, 54) */") || !strings.Contains(out, "AUTO_RANDOM_BASE=17 */ /*M! AUTO_INCREMENT=17 */") {
		t.Errorf("output:\n%s", out)
	}
	for _, w := range []string{"auto-random  BIGINT AUTO_INCREMENT key", "shard-rowid  VARCHAR key", "changed: b: AUTO_INCREMENT on id replaced by AUTO_RANDOM", "warning: a: index by_at leads with at", "stdin: line 5: CREATE TABLE b moved after a: its FOREIGN KEYs reference it", "DROP statements never run", "lines 2, 3: session statements"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if strings.Index(errOut, "warning: ") > strings.Index(errOut, "changed: ") {
		t.Errorf("the warning comes after what was changed:\n%s", errOut)
	}
	code, _, errOut = runCLI(t, script, nil, "tidb", "render", "--notes", "all", "-")
	if code != 0 || !regexp.MustCompile(`(?m)^b +changed: AUTO_INCREMENT on id replaced by AUTO_RANDOM`).MatchString(errOut) || !regexp.MustCompile(`(?m)^a +warning: index by_at`).MatchString(errOut) {
		t.Errorf("--notes all: exit %d\n%s", code, errOut)
	}
}

// TestTiDBNotesGrouped checks that notes of one kind are printed once with
// their count and the tables the others are about: twelve tables with the
// same hotspot and the same change print two note lines, not 24, and
// --notes all prints all 24.
func TestTiDBNotesGrouped(t *testing.T) {
	var script strings.Builder
	for i := range 12 {
		fmt.Fprintf(&script, "CREATE TABLE t%d (id BIGINT AUTO_INCREMENT PRIMARY KEY, at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, KEY by_at (at));\n", i)
	}
	code, _, errOut := runCLI(t, script.String(), nil, "tidb", "render", "-")
	if code != 0 || !strings.Contains(errOut, "warning ×12: t0: index by_at leads with at, which defaults to the current time") || !strings.Contains(errOut, "[also t1, t2, t3, t4, t5, t6, … (5 more)]") ||
		!strings.Contains(errOut, "changed ×12: t0: AUTO_INCREMENT on id replaced") || !strings.Contains(errOut, "36 notes in 3 kinds, one example each: --notes all prints every one") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCLI(t, script.String(), nil, "tidb", "render", "--notes", "all", "-")
	if code != 0 || strings.Count(errOut, "warning: index by_at") != 12 {
		t.Errorf("--notes all: exit %d\n%s", code, errOut)
	}
	if code, _, errOut = runCLI(t, script.String(), nil, "tidb", "render", "--notes", "some", "-"); code != 2 || !strings.Contains(errOut, "--notes \"some\": allowed: summary, all") {
		t.Errorf("--notes some: exit %d %s", code, errOut)
	}
}

// TestTiDBGenUpStatus writes goose files for both seed tables with gen,
// reruns gen (no-op), refuses a changed rerun, applies with up (DSN from
// SHARDID_TIDB_DSN) on TiDB and MariaDB, runs up again (nothing to apply)
// and checks status names every file applied; a table then dropped by
// hand makes status report DRIFT and exit 1.
func TestTiDBGenUpStatus(t *testing.T) {
	dir := t.TempDir()
	gen := func(args ...string) (int, string, string) {
		return runCLI(t, "", nil, append([]string{"tidb", "gen", "--dir", dir, "--strategy", "rotated-int", "--lead", "5"}, args...)...)
	}
	for _, in := range []string{seedInput, branchInput} {
		if code, out, errOut := gen(in); code != 0 || strings.Count(out, "wrote ") != 2 {
			t.Fatalf("gen %s: exit %d, %q %q", in, code, out, errOut)
		}
	}
	if code, out, _ := gen(seedInput, branchInput); code != 0 || strings.Count(out, "unchanged 0000") != 4 || strings.Contains(out, "wrote ") {
		t.Fatalf("rerun of gen: exit %d\n%s", code, out)
	}
	if code, _, errOut := gen("--digits", "2", seedInput); code != 1 || !strings.Contains(errOut, "different content") {
		t.Fatalf("changed gen: exit %d, %q", code, errOut)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
	if len(names) != 4 || filepath.Base(names[3]) != "00004_split_t_tx_branch_list.sql" {
		t.Fatalf("gen wrote %v", names)
	}
	for _, srv := range []string{"tidb", "mariadb"} {
		t.Run(srv, func(t *testing.T) {
			dsn := serverDSN(t, srv)
			env := map[string]string{"SHARDID_TIDB_DSN": dsn}
			code, out, errOut := runCLI(t, "", env, "tidb", "up", "--dir", dir, "--version-table", "shardid_versions")
			summary := "4 migrations: 4 applied, 0 skipped (TiDB only), 0 already applied\n"
			if srv == "mariadb" {
				summary = "4 migrations: 2 applied, 2 skipped (TiDB only), 0 already applied\n"
			}
			if code != 0 || strings.Count(out, "\n") != 5 || (srv == "mariadb") != strings.Contains(out, "SKIP  00002_split") || !strings.HasSuffix(out, summary) {
				t.Fatalf("up: exit %d\n%s\n%s", code, out, errOut)
			}
			code, out, _ = runCLI(t, "", env, "tidb", "up", "--dir", dir, "--version-table", "shardid_versions")
			if code != 0 || !strings.Contains(out, "no migrations to apply (4 already applied)") {
				t.Fatalf("second up: exit %d\n%s", code, out)
			}
			code, out, _ = runCLI(t, "", env, "tidb", "up", "--dir", dir, "--version-table", "shardid_versions", "--json")
			var doc struct {
				Command string
				OK      bool
				Rows    []struct{ Name, State string }
				Totals  map[string]int
			}
			if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Command != "tidb up" || !doc.OK || len(doc.Rows) != 4 ||
				doc.Rows[0].State != "already applied" || doc.Totals["already_applied"] != 4 || doc.Totals["applied"] != 0 {
				t.Fatalf("up --json: exit %d (%v)\n%s", code, err, out)
			}
			code, out, errOut = runCLI(t, "", env, "tidb", "status", "--dir", dir, "--version-table", "shardid_versions")
			// On MariaDB the SPLIT files are recorded but never ran:
			// status must not call them applied.
			want, split := 4, "applied  "
			if srv == "mariadb" {
				want, split = 2, "skipped  "
			}
			if code != 0 || strings.Count(out, "applied  ") != want || strings.Contains(out, "pending") ||
				!regexp.MustCompile(split+`.*00004_split_t_tx_branch_list\.sql \(TiDB only`).MatchString(out) {
				t.Fatalf("status: exit %d\n%s\n%s", code, out, errOut)
			}
			// A table dropped by hand is DRIFT, and status fails.
			db := testsrv.Open(t, "mysql", dsn)
			if _, err := db.Exec("DROP TABLE T_TX_GLOBAL_LIST"); err != nil {
				t.Fatal(err)
			}
			code, out, errOut = runCLI(t, "", env, "tidb", "status", "--dir", dir, "--version-table", "shardid_versions")
			if code != 1 || !regexp.MustCompile(`DRIFT +[^\n]*00001_create_t_tx_global_list\.sql\n +drift: table T_TX_GLOBAL_LIST is missing\n`).MatchString(out) ||
				!strings.Contains(errOut, "status: 1 applied migration(s) no longer match the server") {
				t.Fatalf("status after DROP TABLE: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

func serverDSN(t *testing.T, srv string) string {
	if srv == "tidb" {
		return testsrv.Database(t, testsrv.TiDB(t))
	}
	return testsrv.Database(t, testsrv.MariaDB(t))
}

// TestTiDBUpFromFiles runs up over files the way a user does: A, then B,
// then A and B, then A changed. Every run does what it says.
func TestTiDBUpFromFiles(t *testing.T) {
	t.Parallel()
	dsn := serverDSN(t, "tidb")
	up := func(args ...string) (int, string, string) {
		return runCLI(t, "", nil, append([]string{"tidb", "up", "--dsn", dsn}, args...)...)
	}
	if code, out, errOut := up(seedInput); code != 0 || !strings.Contains(out, "OK    ") || !strings.Contains(out, "_create_t_tx_global_list.sql") {
		t.Fatalf("up A: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := up(branchInput); code != 0 || !strings.Contains(out, "_create_t_tx_branch_list.sql") || !strings.Contains(out, "OK    ") {
		t.Fatalf("up B: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := up(seedInput, branchInput); code != 0 || !strings.Contains(out, "no migrations to apply (2 already applied)") {
		t.Fatalf("up A B: exit %d\n%s", code, out)
	}
	code, out, errOut := up("--strategy", "auto-random", seedInput)
	if code != 1 || !strings.Contains(errOut, "table already exists") || strings.Contains(out, "OK") {
		t.Fatalf("changed A: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "tidb", "status", "--dsn", dsn, "--strategy", "auto-random", seedInput)
	if code != 1 || !strings.HasPrefix(out, "pending") || !strings.Contains(out, "_create_t_tx_global_list.sql") || !strings.Contains(errOut, "status: 1 migration(s) pending") {
		t.Fatalf("status of the refused file: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestTiDBUpBadInput checks the DSN requirement and the messages for
// inputs users get wrong.
func TestTiDBUpBadInput(t *testing.T) {
	env := map[string]string{"SHARDID_TIDB_DSN": "root@tcp(127.0.0.1:1)/x"}
	cases := []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"up", seedInput}, "--dsn is required"},
		{env, []string{"status", "--version-table", "a-b", seedInput}, "--version-table"},
		{env, []string{"up", "--dir", "/nonexistent/migrations"}, "--dir /nonexistent/migrations: no such directory"},
		{nil, []string{"up", "--dsn", "mysql://root:secret@127.0.0.1:4000/app", seedInput}, "go-sql-driver/mysql wants user:password@tcp(host:4000)/db"},
		{nil, []string{"up", "--dsn", "root:secret@127.0.0.1:4000/app", seedInput}, "want user:password@tcp(host:4000)/db"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(t, "", c.env, append([]string{"tidb"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "secret") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}

// TestTiDBInputFileUnreadable: a FILE argument that is missing, or a
// directory, is bad input for render, gen, up and status: exit 2 and one
// line naming the file, before any server is asked (the DSN here answers
// nobody) and before gen writes anything.
func TestTiDBInputFileUnreadable(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	env := map[string]string{"SHARDID_TIDB_DSN": "root@tcp(127.0.0.1:1)/x?timeout=2s"}
	for _, bad := range []struct{ file, why string }{
		{filepath.Join(dir, "missing.sql"), "no such file or directory"},
		{dir, "is a directory"},
	} {
		for _, args := range [][]string{
			{"tidb", "render", seedInput, bad.file},
			{"tidb", "gen", "--dir", out, seedInput, bad.file},
			{"tidb", "up", bad.file},
			{"tidb", "status", seedInput, bad.file},
		} {
			code, _, errOut := runCLI(t, "", env, args...)
			want := "shardid: input file " + bad.file + ": " + bad.why
			if code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: exit %d, %q; want exit 2 and one line starting %q", args, code, errOut, want)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("gen with an unreadable input wrote %s: %v", out, err)
	}
}

// TestTiDBNoCreateTable checks that render, gen and up say in one line
// that a file without a CREATE TABLE (empty, comments only, only SET
// statements) holds none, naming the file, and that gen writes nothing.
func TestTiDBNoCreateTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"empty.sql":    "",
		"comments.sql": "-- the schema\n/* nothing yet */\n",
		"set.sql":      "SET NAMES utf8mb4;\nSET FOREIGN_KEY_CHECKS = 0;\n",
	}
	dsn := serverDSN(t, "tidb")
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		migrations := filepath.Join(dir, "migrations")
		for _, args := range [][]string{
			{"render", path},
			{"gen", "--dir", migrations, path},
			{"up", "--dsn", dsn, path},
		} {
			code, out, errOut := runCLI(t, "", nil, append([]string{"tidb"}, args...)...)
			if code != 1 || !strings.HasPrefix(errOut, "shardid: "+path+": no CREATE TABLE statement (") || strings.Count(errOut, "\n") != 1 || out != "" {
				t.Errorf("%s %s: exit %d, stderr %q, stdout %q; want exit 1 and one line saying the file has no CREATE TABLE", args[0], name, code, errOut, out)
			}
		}
		if _, err := os.Stat(migrations); !os.IsNotExist(err) {
			t.Errorf("gen %s created %s (%v)", name, migrations, err)
		}
	}
}

// TestTiDBNumberFlagsNameTheirRange checks every number flag of the tidb
// commands: its help names its range, and a value outside it (below,
// above, past an int, not a number) is refused naming the same range.
func TestTiDBNumberFlagsNameTheirRange(t *testing.T) {
	fs := newFlagSet(&cliEnv{stderr: io.Discard}, "tidb render")
	addRenderFlags(fs, true)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := f.Value.(intRange)
		if !ok {
			return
		}
		n++
		if !strings.Contains(f.Usage, fmt.Sprintf("%d-%d", v.lo, v.hi)) {
			t.Errorf("-%s: help %q does not name %d–%d", f.Name, f.Usage, v.lo, v.hi)
		}
		for _, bad := range []string{strconv.Itoa(v.lo - 1), strconv.Itoa(v.hi + 1), "99999999999999999999", "-99999999999999999999", "x"} {
			if err := fs.Set(f.Name, bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("allowed: %d–%d", v.lo, v.hi)) {
				t.Errorf("-%s %s: %v; want the range %d–%d", f.Name, bad, err, v.lo, v.hi)
			}
		}
		for _, good := range []int{v.lo, v.hi} {
			if err := fs.Set(f.Name, strconv.Itoa(good)); err != nil || *v.p != good {
				t.Errorf("-%s %d: %v, holds %d", f.Name, good, err, *v.p)
			}
		}
	})
	if n != 5 {
		t.Errorf("%d number flags checked; want 5 (--shard-bits, --range, --digits, --id-digits, --lead)", n)
	}
}

// TestTiDBSteerAndByHand runs render over a script with a trigger and a
// text key: --strategy auto-random alone is refused with the table's line
// and the --table that steers it; --table and --tables steer; the trigger
// needs --by-hand (one line naming it, exit 2) and lands in that file;
// --target mysql keeps AUTO_INCREMENT in plain text and makes the trigger
// part of the output instead; the old --table for the version table gets
// a pointer to --version-table.
func TestTiDBSteerAndByHand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "app.sql")
	if err := os.WriteFile(script, []byte("CREATE TABLE users (name VARCHAR(20) PRIMARY KEY);\nCREATE TABLE events (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT);\nDELIMITER ;;\nCREATE TRIGGER t1 BEFORE INSERT ON events FOR EACH ROW BEGIN SET NEW.v = 1; END;;\nDELIMITER ;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steer := filepath.Join(dir, "steer.txt")
	if err := os.WriteFile(steer, []byte("# text key\nusers=shard-rowid,pre-split=none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	byHand := filepath.Join(dir, "by-hand.sql")
	for _, c := range []struct {
		args       []string
		code       int
		out, inErr string
	}{
		{[]string{"--strategy", "auto-random", "--by-hand", byHand, script}, 1, "", "app.sql: line 1: render users: primary key does not suit the strategy"},
		{[]string{"--strategy", "auto-random", "--by-hand", byHand, script}, 1, "", "--table users=shard-rowid"},
		{[]string{script}, 2, "", "app.sql: line 4: 1 statement(s) that no migration runs on tidb (1 CREATE TRIGGER): give --by-hand FILE"},
		{[]string{"--strategy", "auto-random", "--table", "users=shard-rowid", "--by-hand", byHand, script}, 0, "`name` VARCHAR(20),\n  PRIMARY KEY (`name`) /*T![clustered_index] NONCLUSTERED */\n) /*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */", "wrote 1 statement(s) to apply by hand"},
		{[]string{"--strategy", "auto-random", "--tables", steer, "--by-hand", byHand, script}, 0, ") /*T! SHARD_ROW_ID_BITS=4 */;", "users   shard-rowid  chosen with --strategy"},
		{[]string{"--table", "nosuch=shard-rowid", "--by-hand", byHand, script}, 2, "", "no table nosuch in the scripts (they create users, events)"},
		{[]string{"--table", "goose_db_version", script}, 2, "", "the goose version table is --version-table"},
		{[]string{"--target", "mysql", script}, 0, "`id` BIGINT AUTO_INCREMENT /*T![auto_rand] AUTO_RANDOM(5, 54) */", ""},
		{[]string{"--target", "mysql", script}, 0, "CREATE TRIGGER t1 BEFORE INSERT ON events", ""},
		{[]string{"--target", "oracle", script}, 2, "", `--target "oracle": allowed: tidb, mysql, mariadb`},
	} {
		code, out, errOut := runCLI(t, "", nil, append([]string{"tidb", "render"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.inErr) || (code != 0 && strings.Count(errOut, "\n") != 1) {
			t.Errorf("render %q: exit %d, stderr %q, stdout %q; want exit %d, %q in stdout, %q in stderr", c.args, code, errOut, out, c.code, c.out, c.inErr)
		}
	}
	b, err := os.ReadFile(byHand)
	if err != nil || !strings.Contains(string(b), "-- "+script+": line 4: CREATE TRIGGER t1\n") || !strings.Contains(string(b), "DELIMITER ;;\nCREATE TRIGGER t1") {
		t.Errorf("by-hand file (%v):\n%s", err, b)
	}
}

// TestTiDBTableFlagSaysWhatIsWrong checks that a bad --table names what is
// wrong with it, in the words --tables FILE uses for the same line, and
// that a table steered twice (--table twice, or --table and --tables) is
// refused instead of the last one silently winning.
func TestTiDBTableFlagSaysWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "app.sql")
	if err := os.WriteFile(script, []byte("CREATE TABLE users (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ spec, want string }{
		{"users=shard-rowid,shard-bits=16", "shard bits out of range: 16 (allowed: 1–15"},
		{"users=shard-rowid,foo=1", `unknown key "foo" (keys: shard-bits, pre-split (N or none), range`},
		{"users=shard-rowid,rows=abc", "rows=abc is not a number of 1 or more"},
		{"users=bogus", `invalid strategy "bogus" (allowed: auto, shard-rowid, auto-random, rotated-int)`},
	} {
		code, _, errOut := runCLI(t, "", nil, "tidb", "render", "--table", c.spec, script)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--table %s: exit %d, stderr %q; want exit 2 and %q", c.spec, code, errOut, c.want)
		}
		file := filepath.Join(dir, "steer.txt")
		if err := os.WriteFile(file, []byte(c.spec+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut = runCLI(t, "", nil, "tidb", "render", "--tables", file, script)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("--tables with %s: exit %d, stderr %q; want exit 2 and %q", c.spec, code, errOut, c.want)
		}
	}
	steer := filepath.Join(dir, "twice.txt")
	if err := os.WriteFile(steer, []byte("USERS=auto-random\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--table", "users=shard-rowid", "--table", "users=auto-random"}, "table users is steered twice (also --table users=shard-rowid)"},
		{[]string{"--table", "users=shard-rowid", "--tables", steer}, "table users is steered twice (also by --table users=shard-rowid)"},
	} {
		code, out, errOut := runCLI(t, "", nil, append(append([]string{"tidb", "render"}, c.args...), script)...)
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("render %q: exit %d, stderr %q; want exit 2 and %q, nothing rendered", c.args, code, errOut, c.want)
		}
	}
}

// TestTiDBUpStartsFarUp runs the minimal case through tidb up on
// TiDB: a table keyed by the application whose dump carries
// AUTO_INCREMENT=1634915190321451010 (past the 2^59 row ids
// SHARD_ROW_ID_BITS=4 leaves). Up applies every migration, the seed row
// and a later INSERT go in, and status exits 0 with nothing pending.
func TestTiDBUpStartsFarUp(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "t.sql")
	if err := os.WriteFile(script, []byte("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), PRIMARY KEY (id)) ENGINE=InnoDB AUTO_INCREMENT=1634915190321451010;\nINSERT INTO t VALUES (1,'a');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dsn := serverDSN(t, "tidb")
	if code, out, errOut := runCLI(t, "", nil, "tidb", "up", "--dsn", dsn, script); code != 0 || !strings.Contains(out, "2 applied") {
		t.Fatalf("up: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := testsrv.Open(t, "mysql", dsn).Exec("INSERT INTO t VALUES (2,'b')"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", nil, "tidb", "status", "--dsn", dsn, script); code != 0 || strings.Contains(out, "FULL") || strings.Contains(out, "pending") {
		t.Fatalf("status: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestTiDBRenderGzip: a script packed with gzip (mysqldump | gzip, the
// .sql.gz files packages ship), from a file or stdin, renders as the
// unpacked script does; gzip data that does not unpack is one usage line
// naming the file.
func TestTiDBRenderGzip(t *testing.T) {
	plain, err := os.ReadFile(seedInput)
	if err != nil {
		t.Fatal(err)
	}
	var packed bytes.Buffer
	zw := gzip.NewWriter(&packed)
	zw.Write(plain)
	zw.Close()
	dir := t.TempDir()
	gz := filepath.Join(dir, "input.sql.gz")
	if err := os.WriteFile(gz, packed.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, want, errOut := runCLI(t, "", nil, "tidb", "render", seedInput)
	if code != 0 {
		t.Fatalf("plain: exit %d: %s", code, errOut)
	}
	if code, got, errOut := runCLI(t, "", nil, "tidb", "render", gz); code != 0 || got != want {
		t.Errorf("from %s: exit %d, %s\n%s", gz, code, errOut, got)
	}
	if code, got, errOut := runCLI(t, packed.String(), nil, "tidb", "render", "-"); code != 0 || got != want {
		t.Errorf("gzip on stdin: exit %d, %s\n%s", code, errOut, got)
	}
	bad := filepath.Join(dir, "cut.sql.gz")
	if err := os.WriteFile(bad, packed.Bytes()[:packed.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "", nil, "tidb", "render", bad)
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "input file "+bad+": gzip data that does not unpack") {
		t.Errorf("cut gzip: exit %d, %q; want exit 2 and one line naming the file", code, errOut)
	}
}
