package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// hostileDSNs are connection strings whose password a driver may split,
// mask only in part or echo: each password is made of the markers Zq9…
// and Yx7…, none of which may reach any output. Every server named is
// 127.0.0.1 on port 1, where nothing listens.
var hostileDSNs = []string{
	// PostgreSQL URLs: pgx cuts the user info at the first @, net/url at
	// the last, and a / ends it for both.
	"postgres://postgres:a@Zq9PASSleak@127.0.0.1:1/app",
	"postgresql://u:Zq9PASSleak@Yx7PASSleak@127.0.0.1:1/app",
	"postgres://u:Zq9PASS/Yx7PASS@127.0.0.1:1/app",
	"postgres://u:Zq9PASS?Yx7PASS@127.0.0.1:1/app",
	"postgres://u:Zq9PASSleak@127.0.0.1:badport/app",
	"postgres://u:Zq9PASSleak@127.0.0.1:1/app?connect_timeout=abc",
	"postgres://u:Zq9%40PASS@127.0.0.1:1/app?connect_timeout=abc",
	"postgres://u:Zq9PASSleak@[::1/app",
	"postgres://u@127.0.0.1:1/app?password=Zq9PASSleak&connect_timeout=abc",
	"postgres://u@127.0.0.1:1/app?pass%77ord=Zq9PASSleak&connect_timeout=abc",
	"postgres://u@127.0.0.1:1/app?sslpassword=Zq9PASSleak&sslmode=disable",
	// key=value words: spaces around =, escapes, quotes, upper case.
	"host=127.0.0.1 port=1 user=postgres password = Zq9PASSleak connect_timeout=abc",
	"host=127.0.0.1 port=1 user=postgres password=a\\ Zq9PASSleak connect_timeout=abc",
	"host=127.0.0.1 port=1 user=postgres password=Zq9PASS\\ Yx7PASS connect_timeout=abc",
	"host=127.0.0.1 port=1 PASSWORD=Zq9PASSleak connect_timeout=abc",
	"host=127.0.0.1 port=1 password='a Zq9PASSleak' connect_timeout=abc",
	"host=127.0.0.1 port=1 password='a\\' Zq9PASSleak' connect_timeout=abc",
	"host=127.0.0.1 port=1 password='Zq9PASSleak connect_timeout=abc",
	"host=127.0.0.1 port=1 user=postgres password=Zq9PASSleak",
	"host=127.0.0.1 port=1 user=postgres password=Zq9PASS@Yx7PASS connect_timeout=2",
	// go-sql-driver/mysql DSNs.
	"app:Zq9PASSleak@tcp(127.0.0.1:1)/x",
	"app:a@Zq9PASSleak@tcp(127.0.0.1:1)/x",
	"app:Zq9PASSleak@tcp(127.0.0.1:1)/x?p=%zz",
	"app:Zq9PASSleak@tcp(127.0.0.1:1/x",
	"app:Zq9PASSleak@127.0.0.1:1/x",
	"app:Zq9PASS/Yx7PASS@tcp(127.0.0.1:1)/x",
	"mysql://app:Zq9PASSleak@127.0.0.1:1/x",
}

// leaked reports whether s shows any part of a hostile DSN's password.
func leaked(s string) bool {
	return strings.Contains(s, "Zq9") || strings.Contains(s, "Yx7")
}

// TestHostileDSNsNeverPrinted runs every command that connects with every
// hostile DSN, from the flag and from the environment: whatever fails,
// no output shows the password or a piece of it.
func TestHostileDSNsNeverPrinted(t *testing.T) {
	tidbInput := "../../tidb/testdata/global_tx_list/input.sql"
	commands := []struct {
		env  string // the --dsn fallback, "" for none
		args []string
	}{
		{envPGDSN, []string{"pg", "up", "--shards", "0"}},
		{envPGDSN, []string{"pg", "status"}},
		{envPGDSN, []string{"pg", "down", "--shards", "0"}},
		{envPGDSN, []string{"pg", "grant", "--role", "app", "--shards", "0"}},
		{"", []string{"demo"}},
		{envSegmentDSN, []string{"segment", "status"}},
		{envSegmentDSN, []string{"segment", "up", "--tag", "orders"}},
		{envTicketsDSN, []string{"tickets", "up", "--name", "t", "--increment", "1", "--offset", "1"}},
		{envTicketsDSN, []string{"tickets", "status", "--name", "t"}},
		{envTicketsDSN, []string{"tickets", "next", "--name", "t", "--timeout", "2s"}},
		{envWorkerDSN, []string{"worker", "status"}},
		{envWorkerDSN, []string{"idgen", "-n", "1"}},
		{"", []string{"bench", "pg", "--rounds", "1"}},
		{"", []string{"bench", "tidb", "--rounds", "1"}},
		{"", []string{"tidb", "up", tidbInput}},
	}
	for _, c := range commands {
		for _, d := range hostileDSNs {
			code, out, errOut := runCLI(t, "", nil, append(append([]string{}, c.args...), "--dsn", d)...)
			if code == 0 || leaked(out+errOut) {
				t.Errorf("%v --dsn %q: exit %d\n%s%s", c.args, d, code, out, errOut)
			}
			if c.env == "" {
				continue
			}
			code, out, errOut = runCLI(t, "", map[string]string{c.env: d}, c.args...)
			if code == 0 || leaked(out+errOut) {
				t.Errorf("%v with %s=%q: exit %d\n%s%s", c.args, c.env, d, code, out, errOut)
			}
		}
	}
}

// TestHostileMapDSNs: a shard map's DSN that pgx would split elsewhere
// than the user meant is refused before anything connects, without
// showing its password, in every command that takes a map and connects.
func TestHostileMapDSNs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.toml")
	if err := os.WriteFile(path, []byte(`layout = "js53"
[[servers]]
name = "db1"
dsn_env = "DB1_DSN"
shards = "0-3"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"postgres://postgres:a@Zq9PASSleak@127.0.0.1:1/app", "postgres://u:Zq9PASS@Yx7PASS@127.0.0.1:1/app"} {
		for _, args := range [][]string{{"pg", "status"}, {"pg", "up"}, {"pg", "down"}, {"pg", "grant", "--role", "app"}, {"pg", "verify"}} {
			code, out, errOut := runCLI(t, "", map[string]string{"DB1_DSN": d}, append(args, "--map", path)...)
			if code != 2 || leaked(out+errOut) || !strings.Contains(errOut, "db1") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v --map with %q: exit %d (want 2, one line naming the server)\n%s%s", args, d, code, out, errOut)
			}
		}
	}
}

// TestConnectErrorSaysWhy: a failed connection's one line names the cause
// the server gave, not the TLS attempt that pgx's default sslmode=prefer
// makes first and the server refuses, and says an attempt that failed
// twice alike once. Under sslmode=require the refused TLS attempt is the
// cause, and it is said.
func TestConnectErrorSaysWhy(t *testing.T) {
	t.Parallel()
	srv := testsrv.PG(t)
	closed, err := dbserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dsn        string
		want, deny string
		once       string
	}{
		{dsn: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/no_such_db", srv.Port()), want: `database "no_such_db" does not exist (SQLSTATE 3D000)`, deny: "refused TLS"},
		{dsn: fmt.Sprintf("host=127.0.0.1 port=%d user=no_such_role dbname=postgres", srv.Port()), want: `role "no_such_role" does not exist (SQLSTATE 28000)`, deny: "refused TLS"},
		{dsn: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", closed), want: "connection refused", once: "connection refused"},
		{dsn: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/no_such_db?sslmode=require", srv.Port()), want: "server refused TLS connection", deny: "3D000"},
	} {
		code, _, stderr := runCLI(t, "", nil, "pg", "status", "--dsn", tc.dsn)
		line := strings.TrimSuffix(stderr, "\n")
		if code != 1 || !strings.Contains(line, tc.want) || strings.Contains(line, "\n") ||
			tc.deny != "" && strings.Contains(line, tc.deny) || tc.once != "" && strings.Count(line, tc.once) != 1 {
			t.Errorf("pg status --dsn %s: exit %d, stderr %q; want exit 1 and one line saying %q", tc.dsn, code, stderr, tc.want)
		}
	}
}
