package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/shardid/shardid/internal/dsn"
)

// TestHelpHidesEnvironment: -h prints the real defaults, never a value
// from the environment (a DSN there carries a password).
func TestHelpHidesEnvironment(t *testing.T) {
	env := map[string]string{
		"SHARDID_PG_DSN":   "postgres://app:s3cret@db1:5432/app",
		"SHARDID_TIDB_DSN": "app:s3cret@tcp(db1:4000)/app",
		"SHARDID_LAYOUT":   "js53",
	}
	for _, args := range [][]string{{"pg", "up", "-h"}, {"pg", "status", "-h"}, {"pg", "down", "-h"}, {"demo", "-h"},
		{"tidb", "up", "-h"}, {"tidb", "status", "-h"}} {
		code, out, errOut := runCLI(t, "", env, args...)
		if code != 0 || strings.Contains(out+errOut, "s3cret") || strings.Contains(out+errOut, "js53\"") {
			t.Errorf("%v: exit %d, output shows the environment:\n%s%s", args, code, out, errOut)
		}
		if args[0] != "demo" && !strings.Contains(out, "env SHARDID_") { // demo reads none
			t.Errorf("%v: help does not name the environment variables:\n%s", args, errOut)
		}
	}
}

// TestEnvironmentFallback: an unset flag takes the environment's value,
// a set flag wins over it, and a bad environment value names the variable.
func TestEnvironmentFallback(t *testing.T) {
	code, out, _ := runCLI(t, "", map[string]string{"SHARDID_LAYOUT": "js53"}, "pg", "render", "--shard", "1")
	if code != 0 || !strings.Contains(out, "layout: js53") {
		t.Fatalf("env layout not used: exit %d\n%.300s", code, out)
	}
	code, out, _ = runCLI(t, "", map[string]string{"SHARDID_LAYOUT": "js53"}, "pg", "render", "--shard", "1", "--layout", "snowflake")
	if code != 0 || !strings.Contains(out, "layout: snowflake") {
		t.Fatalf("flag did not win over env: exit %d\n%.300s", code, out)
	}
	code, _, errOut := runCLI(t, "", map[string]string{"SHARDID_LAYOUT": "twitter"}, "pg", "render", "--shard", "1")
	if code != 2 || !strings.Contains(errOut, "twitter") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("bad env layout: exit %d %q", code, errOut)
	}
}

// TestMessagesNameTheOrigin: a value checked after parsing is reported
// under the name it came by: the flag, or its environment variable when
// the value came from there (and never the password of a DSN).
func TestMessagesNameTheOrigin(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"SHARDID_SEGMENT_DSN": "mysql://u:s3cret@h/db"}, []string{"segment", "next", "--tag", "t"}, "shardid: SHARDID_SEGMENT_DSN: mysql://u:xxxxx@h/db is a URL"},
		{nil, []string{"segment", "next", "--tag", "t", "--dsn", "mysql://u:s3cret@h/db"}, "shardid: --dsn: mysql://u:xxxxx@h/db is a URL"},
		{map[string]string{"SHARDID_TICKETS_DSN": "postgres://u:s3cret@h/db"}, []string{"tickets", "up", "--name", "t", "--increment", "1", "--offset", "1"}, "shardid: SHARDID_TICKETS_DSN: postgres://u:xxxxx@h/db is PostgreSQL"},
		{map[string]string{"SHARDID_TICKETS_DSN": "postgres://u:s3cret@h/db"}, []string{"tickets", "next", "--name", "t"}, "shardid: SHARDID_TICKETS_DSN: postgres://u:xxxxx@h/db is a PostgreSQL connection string"},
		{map[string]string{"SHARDID_MAP": "missing.toml"}, []string{"pg", "verify"}, "shardid: SHARDID_MAP: "},
		{nil, []string{"pg", "verify", "--map", "missing.toml"}, "shardid: --map: "},
		{map[string]string{"SHARDID_MODE": "bogus"}, []string{"pg", "render", "--shard", "1"}, "shardid: SHARDID_MODE: invalid mode \"bogus\""},
		{map[string]string{"SHARDID_EPOCH": "2099-01-01T00:00:00Z"}, []string{"pg", "render", "--shard", "1"}, "shardid: SHARDID_EPOCH: invalid epoch \"2099-01-01T00:00:00Z\": in the future (allowed: from 1970-01-01 to now)"},
		{map[string]string{"SHARDID_LAYOUT": "twitter"}, []string{"pg", "render", "--shard", "1"}, "shardid: SHARDID_LAYOUT: unknown layout \"twitter\""},
		{nil, []string{"pg", "render", "--shard", "1", "--layout", "twitter"}, "shardid: --layout: unknown layout \"twitter\""},
		{map[string]string{"SHARDID_WORKER_DSN": "mysql://u:s3cret@h/db"}, []string{"worker", "status"}, "shardid: SHARDID_WORKER_DSN: "},
		{map[string]string{"SHARDID_WORKER_TABLE": "Bad-Name"}, []string{"worker", "status", "--dsn", "postgres://u@127.0.0.1:1/x"}, "shardid: SHARDID_WORKER_TABLE: "},
	} {
		code, out, stderr := runCLI(t, "", c.env, c.args...)
		if code != 2 || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 || strings.Contains(out+stderr, "s3cret") {
			t.Errorf("%v with %v: exit %d, stderr %q; want exit 2 and one line starting %q", c.args, c.env, code, stderr, c.want)
		}
	}
	// flagUsagef, for checks made without the flag set at hand, is
	// printed with the origin of the run's flag.
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"SHARDID_MODE": "bogus"}, nil, "shardid: SHARDID_MODE: invalid mode \"bogus\"\n"},
		{map[string]string{"SHARDID_MODE": "unique"}, []string{"--mode", "bogus"}, "shardid: --mode: invalid mode \"bogus\"\n"},
	} {
		var errb strings.Builder
		env := &cliEnv{stderr: &errb, getenv: func(k string) string { return c.env[k] }}
		fs := newFlagSet(env, "test")
		mode := fs.String("mode", "unique", "")
		fs.envVar("mode", "SHARDID_MODE")
		if err := parseFlags(env, fs, c.args); err != nil {
			t.Fatal(err)
		}
		err := flagUsagef("mode", "invalid mode %q", *mode)
		if code := exitCode(env, err); code != 2 || errb.String() != c.want || err.Error() != `--mode: invalid mode "bogus"` {
			t.Errorf("%v %v: exit %d, %q (Error() %q); want %q", c.env, c.args, code, errb.String(), err, c.want)
		}
	}
}

// TestSecretsNeverPrinted: connection failures and unparsable DSNs, from
// a flag or the environment, never echo the password, and read as one
// error: its first line after "shardid: ", any others indented below it.
func TestSecretsNeverPrinted(t *testing.T) {
	pgDSNs := []string{
		"postgres://app:s3cret@127.0.0.1:1/x?connect_timeout=2",
		"postgres://app:s3cret@127.0.0.1:badport/x",
		"host=127.0.0.1 port=1 user=app password=s3cret dbname=x connect_timeout=2",
		"postgres://app:s3cret@[::1/x",
	}
	for _, d := range pgDSNs {
		for _, viaEnv := range []bool{false, true} {
			args := []string{"pg", "up", "--shards", "0"}
			env := map[string]string{}
			if viaEnv {
				env["SHARDID_PG_DSN"] = d
			} else {
				args = append(args, "--dsn", d)
			}
			code, out, errOut := runCLI(t, "", env, args...)
			if code == 0 || strings.Contains(out+errOut, "s3cret") || !oneError(errOut) {
				t.Errorf("pg up with %q (env %v): exit %d\n%s%s", d, viaEnv, code, out, errOut)
			}
		}
	}
	for _, d := range []string{"app:s3cret@tcp(127.0.0.1:1)/x", "mysql://app:s3cret@127.0.0.1:1/x", "app:s3cret@tcp(127.0.0.1:1)/x?p=%zz"} {
		code, out, errOut := runCLI(t, "", nil, "tidb", "up", "--dsn", d, "../../tidb/testdata/global_tx_list/input.sql")
		if code == 0 || strings.Contains(out+errOut, "s3cret") || !oneError(errOut) {
			t.Errorf("tidb up with %q: exit %d\n%s%s", d, code, out, errOut)
		}
	}
}

// TestCommandTable: the usage lists every command of the table, and
// every group lists its subcommands.
func TestCommandTable(t *testing.T) {
	code, errOut, _ := runCLI(t, "", nil, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for name := range commands {
		if !strings.Contains(errOut, "  "+name+" ") {
			t.Errorf("usage lacks %q:\n%s", name, errOut)
		}
	}
	for group, subs := range map[string]map[string]command{"pg": pgCommands, "tidb": tidbCommands} {
		_, errOut, _ := runCLI(t, "", nil, group, "-h")
		for name := range subs {
			if !strings.Contains(errOut, "  "+name+" ") {
				t.Errorf("%s usage lacks %q:\n%s", group, name, errOut)
			}
		}
	}
}

// TestPGHelpSaysWhatEachCommandTakes: status does not call --shards
// required (it lists every generator without it), only up offers
// --lock-timeout (the only one that takes the server lock), and verify,
// which takes nothing but a map, names the map's environment variable.
func TestPGHelpSaysWhatEachCommandTakes(t *testing.T) {
	help := func(args ...string) string {
		t.Helper()
		code, out, _ := runCLI(t, "", nil, append(args, "-h")...)
		if code != 0 {
			t.Fatalf("%v -h: exit %d", args, code)
		}
		return out
	}
	if h := help("pg", "status"); strings.Contains(h, "(required)") || strings.Contains(h, "-lock-timeout") || strings.Contains(h, "-parallel") {
		t.Errorf("pg status -h offers what status does not take:\n%s", h)
	}
	if h := help("pg", "down"); strings.Contains(h, "-lock-timeout") || !strings.Contains(h, "0-3,8,10-12 (required)") {
		t.Errorf("pg down -h:\n%s", h)
	}
	if h := help("pg", "up"); !strings.Contains(h, "-lock-timeout") || !strings.Contains(h, "0-3,8,10-12 (required)") {
		t.Errorf("pg up -h:\n%s", h)
	}
	if h := help("pg", "verify"); !strings.Contains(h, "env SHARDID_MAP") {
		t.Errorf("pg verify -h does not name SHARDID_MAP:\n%s", h)
	}
	if code, _, errOut := runCLI(t, "", nil, "pg", "verify"); code != 2 || !strings.Contains(errOut, "SHARDID_MAP") {
		t.Errorf("pg verify without a map: exit %d %q", code, errOut)
	}
}

// oneError reports whether stderr holds one error: a first line starting
// "shardid: ", every other line indented under it, none blank.
func oneError(stderr string) bool {
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "shardid: ") {
		return false
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "  ") || strings.TrimSpace(l) == "" {
			return false
		}
	}
	return true
}

// TestErrorsKeepTheirLines: an error of a failed operation (exit 1) keeps
// the lines it came with (a server quoting a multi-line statement), the
// first after "shardid: ", the others indented, blank ones dropped, the
// DSN's password scrubbed from each; it is never folded into " | ". A
// usage error (exit 2) stays one line.
func TestErrorsKeepTheirLines(t *testing.T) {
	var stderr strings.Builder
	env := &cliEnv{stderr: &stderr, secrets: dsn.NewRedactor()}
	env.secrets.Add("postgres://app:s3cret@127.0.0.1/x")
	err := errors.New("00002_create_t.sql: Error 1064 (42000): You have an error in your SQL syntax near 'NULL,\n  PRIMARY KEY (id)\n\n) ENGINE=InnoDB' at line 3 (password s3cret)")
	if code := exitCode(env, err); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	want := "shardid: 00002_create_t.sql: Error 1064 (42000): You have an error in your SQL syntax near 'NULL,\n  PRIMARY KEY (id)\n  ) ENGINE=InnoDB' at line 3 (password xxxxx)\n"
	if got := stderr.String(); got != want || strings.Contains(got, " | ") {
		t.Errorf("stderr\n%s\nwant\n%s", got, want)
	}
	stderr.Reset()
	if code := exitCode(env, usagef("--shards: %q is not a shard list\n(allowed: 0-3,7)", "x")); code != 2 || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("usage error: exit %d, stderr %q; want exit 2 and one line", code, stderr.String())
	}
}
