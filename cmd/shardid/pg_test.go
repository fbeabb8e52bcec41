package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// pgDSN starts a PostgreSQL server of the test's own and returns the DSN of
// a fresh database on it. pg up checks shard ids across every database of a
// server, so tests that create shards must not share one.
func pgDSN(t *testing.T) string {
	t.Helper()
	return testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
}

func openPG(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestPGBadInput: each invalid flag value exits 2 with one line naming the
// flag and what it allows.
func TestPGBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"pg", "render"}, "--shard is required"},
		{[]string{"pg", "render", "--shard", "-1"}, "--shard: shard id out of range: -1 (allowed 0-8191"},
		{[]string{"pg", "render", "--shard", "8192"}, "--shard: shard id out of range: 8192 (allowed 0-8191"},
		{[]string{"pg", "render", "--shard", "1", "--layout", "twitter"}, "--layout: unknown layout \"twitter\" (allowed: instagram, js53, snowflake, or fields from the top such as time:41,shard:13,seq:10)"},
		{[]string{"pg", "render", "--shard", "1", "--mode", "fast"}, "--mode: invalid mode \"fast\" (allowed: unique, classic, classic-sql)"},
		{[]string{"pg", "render", "--shard", "1", "--epoch", "yesterday"}, "--epoch: invalid epoch \"yesterday\""},
		{[]string{"pg", "render", "--shard", "1", "--epoch", "2999-01-01T00:00:00Z"}, "--epoch: invalid epoch \"2999-01-01T00:00:00Z\": in the future (allowed: from 1970-01-01 to now)"},
		{[]string{"pg", "render", "--shard", "1", "--schema-format", "Shard%d"}, "--schema-format: invalid schema name \"Shard1\""},
		{[]string{"pg", "render", "--shard", "1", "--schema-format", "shard"}, "--schema-format: invalid schema name: schema format \"shard\" must contain exactly one %d"},
		{[]string{"pg", "render", "--shard", "x"}, "--shard: x is not a whole number in range (see shardid pg render -h)"},
		{[]string{"pg", "render", "--bogus"}, "pg render: unknown flag --bogus (see shardid pg render -h)"},
		{[]string{"pg", "up", "--shards", "0-3"}, "--dsn is required (or set SHARDID_PG_DSN)"},
		{[]string{"pg", "up", "--dsn", "postgres://x", "--shards", "3-1"}, "--shards: invalid shard list: range \"3-1\" runs backwards"},
		{[]string{"pg", "up", "--dsn", "postgres://x", "--shards", "0-3,2"}, "--shards: invalid shard list: shard 2 is listed twice, in \"0-3\" and \"2\""},
		{[]string{"pg", "up", "--dsn", "postgres://x"}, "--shards is required"},
		{[]string{"pg", "up", "--dsn", "postgres://x", "--shards", "1", "--parallel", "0"}, "--parallel: 0 is out of range (allowed 1-64)"},
		{[]string{"pg", "gen", "--shards", "0-1"}, "--dir is required"},
		{[]string{"pg", "frobnicate"}, "unknown pg subcommand \"frobnicate\" (allowed: adopt, down, gen, grant, move, render, resume, status, up, verify)"},
		{[]string{"pg", "render", "--shard", "1", "--lead", "2h"}, "--lead: 2h0m0s is not a lead for layout instagram (allowed: a whole number of milliseconds from its tick, 1ms, to 1h0m0s; default 5s)"},
		{[]string{"pg", "render", "--shard", "1", "--lead", "0s"}, "--lead: 0s is not a lead for layout instagram (allowed: a whole number"},
		{[]string{"pg", "render", "--shard", "1", "--layout", "js53", "--lead", "5ms"}, "--lead: 5ms is not a lead for layout js53 (allowed: a whole number of milliseconds from its tick, 10ms,"},
		{[]string{"decode", "abc"}, "bad ID \"abc\""},
		{[]string{"decode", "--", "-5"}, "ID -5: negative id"},
		{[]string{"nothing"}, "unknown command \"nothing\""},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", nil, c.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
}

// TestPGRenderEnvAndFlags: flags win over environment variables, which win
// over the defaults.
func TestPGRenderEnvAndFlags(t *testing.T) {
	code, out, stderr := runCLI(t, "", map[string]string{"SHARDID_LAYOUT": "snowflake", "SHARDID_MODE": "classic"}, "pg", "render", "--shard", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, _ := pgfunc.Render(pgfunc.Shard{Schema: "insta5", ID: 5}, pgfunc.Options{Layout: shardid.Snowflake(), Mode: pgfunc.ModeClassic})
	if out != string(want) {
		t.Fatal("pg render with SHARDID_LAYOUT=snowflake SHARDID_MODE=classic differs from pgfunc.Render")
	}
	code, out, _ = runCLI(t, "", map[string]string{"SHARDID_LAYOUT": "snowflake"}, "pg", "render", "--shard", "5", "--layout", "instagram", "--epoch", "1735689600000")
	want, _ = pgfunc.Render(pgfunc.Shard{Schema: "insta5", ID: 5}, pgfunc.Options{})
	if code != 0 || out != string(want) {
		t.Fatal("--layout did not win over SHARDID_LAYOUT")
	}
}

// TestPGUpStatusDown drives the CLI against a real server: up with the DSN
// from the environment, a rerun, status, a failing shard that leaves the
// others applied, and a rerun that completes it.
func TestPGUpStatusDown(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	db := openPG(t, dsn)
	env := map[string]string{"SHARDID_PG_DSN": dsn}
	if _, err := db.Exec(`CREATE SCHEMA insta2; CREATE FUNCTION insta2.next_id_jump_2() RETURNS text LANGUAGE sql AS 'SELECT 1::text'`); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", env, "pg", "up", "--shards", "0-3")
	if code != 1 || !regexp.MustCompile(`FAILED +insta2 `).MatchString(out) || !strings.Contains(out, "4 shards: 3 applied, 0 unchanged, 1 failed") {
		t.Fatalf("up with one broken schema: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := db.Exec("DROP FUNCTION insta2.next_id_jump_2()"); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", env, "pg", "up", "--shards", "0-3")
	if code != 0 || !strings.Contains(out, "4 shards: 1 applied, 3 unchanged, 0 failed") || !strings.Contains(out, "[4/4]") ||
		strings.Count(out, "current ") != 3 {
		t.Fatalf("rerun: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", env, "pg", "status", "--shards", "0-4")
	if code != 0 || strings.Count(out, "unique") != 4 || !strings.Contains(out, "insta4") || strings.Count(out, ", lead 5s") != 4 {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", env, "pg", "status")
	if code != 0 || strings.Count(out, "unique") != 4 || strings.Contains(out, "insta4") {
		t.Fatalf("status of every generator found: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", env, "pg", "status", "--shards", "0-3", "--mode", "classic")
	if code != 1 || !strings.Contains(out, "differs from the requested options") {
		t.Fatalf("status with other options: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", env, "pg", "down", "--shards", "3")
	if code != 0 || !strings.Contains(out, "1 removed") {
		t.Fatalf("down: exit %d\n%s", code, out)
	}
	// Down reports what it found where there is nothing to undo, and
	// creates nothing there.
	code, out, _ = runCLI(t, "", env, "pg", "down", "--shards", "3,9")
	if code != 0 || !regexp.MustCompile(`no generator applied +insta3 `).MatchString(out) ||
		!regexp.MustCompile(`no schema +insta9 `).MatchString(out) || !strings.Contains(out, "0 removed, 2 unchanged, 0 failed") {
		t.Fatalf("down where nothing is applied: exit %d\n%s", code, out)
	}
	var exists bool
	if err := db.QueryRow("SELECT to_regnamespace('insta9') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("down created schema insta9: %v %v", exists, err)
	}
	var id int64
	before := time.Now()
	if err := db.QueryRow("SELECT insta1.next_id()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "", nil, "decode", "--json", fmt.Sprint(id))
	var d decoded
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Shard != 1 || d.ID != id {
		t.Fatalf("decode --json %d: exit %d %q", id, code, out)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", d.Time)
	if err != nil || at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) { // the draw's instant, however long it took
		t.Fatalf("decoded time %q (%v)", d.Time, err)
	}
}

// TestDecodeStdin decodes IDs one per line from standard input, the same as
// from arguments, and reports the line of a bad one.
func TestDecodeStdin(t *testing.T) {
	l := shardid.Instagram()
	at := time.Date(2026, 5, 4, 3, 2, 1, 5e6, time.UTC)
	id, _ := l.Compose(at, 77, 12)
	code, out, _ := runCLI(t, fmt.Sprintf("%d\n\n%d\n", id, id), nil, "decode")
	want := fmt.Sprintf("%d\t2026-05-04T03:02:01.005Z\tshard 77\tseq 12\n", id)
	if code != 0 || out != want+want {
		t.Fatalf("decode from stdin: exit %d %q", code, out)
	}
	code, _, stderr := runCLI(t, fmt.Sprintf("%d\nx\n", id), nil, "decode")
	if code != 2 || !strings.Contains(stderr, "stdin line 2: bad ID \"x\"") {
		t.Fatalf("bad stdin line: exit %d %q", code, stderr)
	}
	sf, _ := shardid.Snowflake().Compose(at, 1000, 4000)
	code, out, _ = runCLI(t, "", nil, "decode", "--layout", "snowflake", fmt.Sprint(sf))
	if code != 0 || !strings.Contains(out, "shard 1000\tseq 4000") {
		t.Fatalf("decode --layout snowflake: %d %q", code, out)
	}
}

// TestPGGenWithStockGoose writes a goose directory with `shardid pg gen`
// and applies it with the stock goose CLI, as a user would.
func TestPGGenWithStockGoose(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	goose := testsrv.GooseCLI(t)
	dir := filepath.Join(t.TempDir(), "migrations")
	code, out, stderr := runCLI(t, "", nil, "pg", "gen", "--shards", "0-2,5", "--schema-format", "shard_%d", "--dir", dir)
	if code != 0 || !strings.Contains(out, "wrote 4 migrations") {
		t.Fatalf("gen: exit %d %s%s", code, out, stderr)
	}
	for _, args := range [][]string{{"up"}, {"up"}, {"status"}} {
		cmd := exec.Command(goose, append([]string{"-dir", dir, "postgres", dsn}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("goose %v: %v\n%s", args, err, out)
		}
	}
	db := openPG(t, dsn)
	for _, id := range []int64{0, 1, 2, 5} {
		var shard int64
		q := fmt.Sprintf("SELECT shard_%d.id_shard(shard_%[1]d.next_id())", id)
		if err := db.QueryRow(q).Scan(&shard); err != nil || shard != id {
			t.Fatalf("shard_%d after goose up: %d, %v", id, shard, err)
		}
	}
	var version int64
	if err := db.QueryRow("SELECT max(version_id) FROM goose_db_version").Scan(&version); err != nil || version != 6 {
		t.Fatalf("goose version %d, %v; want 6 (shard 5 + 1)", version, err)
	}
	// pg status shows them as goose's: their history is the directory's.
	code, out, stderr = runCLI(t, "", nil, "pg", "status", "--dsn", dsn, "--shards", "0-2,5", "--schema-format", "shard_%d")
	if code != 0 || len(regexp.MustCompile(`(?m)^shard_\d +\d +goose +unique `).FindAllString(out, -1)) != 4 {
		t.Fatalf("pg status over goose-applied generators: exit %d\n%s%s", code, out, stderr)
	}
	// pg down must not call these "no generator applied": goose's history
	// holds them, and only goose down over the directory removes them.
	code, out, stderr = runCLI(t, "", nil, "pg", "down", "--dsn", dsn, "--shards", "0-2,5", "--schema-format", "shard_%d")
	if code != 1 || strings.Contains(out, "no generator applied") || !strings.Contains(out+stderr, "goose down over that directory") || !strings.Contains(out, "0 removed, 0 unchanged, 4 failed") {
		t.Fatalf("pg down over goose-applied generators: exit %d\n%s%s", code, out, stderr)
	}
	if err := db.QueryRow("SELECT shard_5.id_shard(shard_5.next_id())").Err(); err != nil {
		t.Fatalf("pg down removed a generator it refused: %v", err)
	}
	// A changed generator must not overwrite an existing migration silently.
	code, _, stderr = runCLI(t, "", nil, "pg", "gen", "--shards", "0", "--schema-format", "shard_%d", "--mode", "classic", "--dir", dir)
	if code != 1 || !strings.Contains(stderr, "exists with different content") {
		t.Fatalf("gen over changed files: exit %d %q", code, stderr)
	}
}

// TestDemo runs the embedded demo against its own throwaway server, the way
// `go run ./cmd/shardid demo` does on a fresh machine.
func TestDemo(t *testing.T) {
	testsrv.PG(t) // the same binaries the demo will look for
	code, out, stderr := runCLI(t, "", nil, "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"applied insta3 (shard 3)", "200000 distinct", "stopped the server"} {
		if !strings.Contains(out, want) {
			t.Fatalf("demo output lacks %q:\n%s", want, out)
		}
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if _, err := strconv.ParseInt(f[0], 10, 64); len(f) >= 5 && err == nil && strings.HasPrefix(f[1], "insta") {
			rows++
		}
	}
	if rows != 12 {
		t.Fatalf("demo printed %d decoded rows, want 12:\n%s", rows, out)
	}
}

// TestPGStatusJudgesWhatWasAsked: status without shards or options lists
// every generator and judges none against defaults nobody asked for;
// with options it flags those that differ; a shard whose schema was
// renamed is reported as held elsewhere, not as two copies.
func TestPGStatusJudgesWhatWasAsked(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t) // a server of its own: pg up checks shard ids across its databases
	env := map[string]string{"SHARDID_PG_DSN": dsn}
	// Instagram shard 4 and js53 shard 1 fix bit 12 differently: their IDs
	// never meet, which --allow-mixed has up show.
	for _, args := range [][]string{{"--shards", "4"}, {"--shards", "1", "--layout", "js53", "--schema-format", "js%d", "--allow-mixed"}} {
		if code, out, errOut := runCLI(t, "", env, append([]string{"pg", "up"}, args...)...); code != 0 || !strings.Contains(out, "1 shard: 1 applied") {
			t.Fatalf("up %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if code, out, errOut := runCLI(t, "", env, "pg", "status"); code != 0 || strings.Contains(out, "differs") || !strings.Contains(out, "js1") {
		t.Fatalf("status of everything, nothing asked: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "", env, "pg", "status", "--layout", "js53"); code != 1 || strings.Count(out, "differs from the requested options") != 1 ||
		!strings.Contains(errOut, "1 schema holds a generator that is outdated or differs") {
		t.Fatalf("status of everything against js53: exit %d\n%s%s", code, out, errOut)
	}
	// The default named by the environment is asked for too.
	asked := map[string]string{"SHARDID_PG_DSN": dsn, "SHARDID_LAYOUT": "instagram"}
	if code, out, errOut := runCLI(t, "", asked, "pg", "status"); code != 1 || strings.Count(out, "differs from the requested options") != 1 {
		t.Fatalf("status of everything against SHARDID_LAYOUT=instagram: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := openPG(t, dsn).Exec("ALTER SCHEMA js1 RENAME TO moved1"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", env, "pg", "status", "--shards", "1", "--layout", "js53", "--schema-format", "js%d")
	if code != 1 || strings.Contains(out, "ALSO IN") || !strings.Contains(out, "HELD BY moved1 instead") ||
		!strings.Contains(errOut, "1 shard id is held by another schema than the schema format names") {
		t.Fatalf("status of a renamed shard: exit %d\n%s%s", code, out, errOut)
	}
}
