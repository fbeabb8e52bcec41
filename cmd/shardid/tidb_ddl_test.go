package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/internal/testsrv"
)

const seedInput = "../../testdata/tidb/global_tx_list/input.sql"

// runCLI runs one shardid command line over buffers.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

// TestTiDBRenderMatchesGolden checks that render prints the golden DDL for
// each strategy, from a file and from stdin.
func TestTiDBRenderMatchesGolden(t *testing.T) {
	in, err := os.ReadFile(seedInput)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"shard-rowid", "auto-random", "rotated-int"} {
		want, err := os.ReadFile(filepath.Join(filepath.Dir(seedInput), s+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "", nil, "tidb", "render", "--strategy", s, seedInput)
		if code != 0 || out != string(want) {
			t.Errorf("%s from file: exit %d, stderr %q, output differs from golden", s, code, errOut)
		}
		code, out, _ = runCLI(t, string(in), nil, "tidb", "render", "--strategy", s, "-")
		if code != 0 || out != string(want) {
			t.Errorf("%s from stdin: exit %d, output differs from golden", s, code)
		}
	}
}

// TestTiDBRenderBadInput checks exit status 2 and a one-line message naming
// the flag for bad flags, and exit status 1 for a refused table.
func TestTiDBRenderBadInput(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--strategy", "hash", seedInput}, 2, "--strategy"},
		{[]string{"--shard-bits", "16", seedInput}, 2, "--shard-bits"},
		{[]string{"--shard-bits", "3", "--pre-split", "4", seedInput}, 2, "--pre-split"},
		{[]string{"--strategy", "auto-random", "--range", "20", seedInput}, 2, "--range"},
		{[]string{"--strategy", "rotated-int", "--digits", "4", seedInput}, 2, "--digits"},
		{[]string{"--range", "54", seedInput}, 2, "--strategy"},
		{[]string{}, 2, "FILE"},
		{[]string{"--strategy", "auto-random", "../../testdata/tidb/varchar_key/input.sql"}, 1, "BIGINT"},
		{[]string{"--alter", seedInput}, 1, "SHOW CREATE TABLE"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, "", nil, append([]string{"tidb", "render"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("render %v: exit %d, stderr %q, stdout %q; want exit %d and one line naming %q", c.args, code, errOut, out, c.code, c.want)
		}
	}
}

// TestTiDBRenderPreSplitZero checks that --pre-split 0 drops
// PRE_SPLIT_REGIONS instead of meaning the default.
func TestTiDBRenderPreSplitZero(t *testing.T) {
	code, out, _ := runCLI(t, "", nil, "tidb", "render", "--pre-split", "0", seedInput)
	if code != 0 || strings.Contains(out, "PRE_SPLIT_REGIONS") || !strings.Contains(out, "SHARD_ROW_ID_BITS=4") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestTiDBGenUpStatus writes goose files for both seed tables with gen,
// applies them to a real MariaDB with up (DSN from SHARDID_TIDB_DSN), runs
// up again (nothing to apply) and checks status lists every file applied.
func TestTiDBGenUpStatus(t *testing.T) {
	s := testsrv.MariaDB(t)
	dsn, err := s.CreateDatabase(context.Background(), "cli_gen")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, in := range []string{seedInput, "../../testdata/tidb/branch_tx_list/input.sql"} {
		code, out, errOut := runCLI(t, "", nil, "tidb", "gen", "--dir", dir, "--strategy", "rotated-int", "--lead", "5", in)
		if code != 0 || strings.Count(out, "\n") != 2 {
			t.Fatalf("gen %s: exit %d, %q %q", in, code, out, errOut)
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
	if len(names) != 4 || filepath.Base(names[3]) != "00004_split_t_tx_branch_list.sql" {
		t.Fatalf("gen wrote %v", names)
	}
	env := map[string]string{"SHARDID_TIDB_DSN": dsn}
	code, out, errOut := runCLI(t, "", env, "tidb", "up", "--dir", dir, "--table", "shardid_versions")
	if code != 0 || strings.Count(out, "\n") != 4 {
		t.Fatalf("up: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", env, "tidb", "up", "--dir", dir, "--table", "shardid_versions")
	if code != 0 || !strings.Contains(out, "no migrations to apply") {
		t.Fatalf("second up: exit %d\n%s", code, out)
	}
	code, out, errOut = runCLI(t, "", env, "tidb", "status", "--dir", dir, "--table", "shardid_versions")
	if code != 0 || strings.Count(out, "applied") != 4 || strings.Contains(out, "pending") {
		t.Fatalf("status: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestTiDBUpFromFiles renders FILE arguments in memory and applies them;
// status on another version table shows them pending.
func TestTiDBUpFromFiles(t *testing.T) {
	s := testsrv.MariaDB(t)
	dsn, err := s.CreateDatabase(context.Background(), "cli_files")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", nil, "tidb", "up", "--dsn", dsn, "--strategy", "auto-random", "--range", "54", seedInput)
	if code != 0 || !strings.Contains(out, "00001_create_t_tx_global_list.sql") {
		t.Fatalf("up: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", nil, "tidb", "status", "--dsn", dsn, "--table", "other_versions", "--strategy", "auto-random", "--range", "54", seedInput)
	if code != 0 || !strings.Contains(out, "pending") {
		t.Fatalf("status on a fresh version table: exit %d\n%s", code, out)
	}
}

// TestTiDBUpNeedsDSN checks the DSN requirement and flag errors.
func TestTiDBUpNeedsDSN(t *testing.T) {
	code, _, errOut := runCLI(t, "", nil, "tidb", "up", seedInput)
	if code != 2 || !strings.Contains(errOut, "--dsn") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", map[string]string{"SHARDID_TIDB_DSN": "root@tcp(127.0.0.1:1)/x"}, "tidb", "status", "--table", "a-b", seedInput)
	if code != 2 || !strings.Contains(errOut, "--table") {
		t.Errorf("bad --table: exit %d, %q", code, errOut)
	}
}
