package main

import (
	"strings"
	"testing"
)

// TestUnparsableDSNIsUsageError: a DSN no driver can read is bad input
// like any other: exit status 2 and one line naming --dsn and the form the
// command takes, whichever command and whichever driver refuses it.
func TestUnparsableDSNIsUsageError(t *testing.T) {
	pgOnly := [][]string{
		{"pg", "up", "--shards", "0"}, {"pg", "status"}, {"pg", "down", "--shards", "0"},
		{"pg", "grant", "--role", "app", "--shards", "0"}, {"pg", "resume"}, {"demo"}, {"bench", "pg"},
	}
	anyForm := [][]string{{"segment", "status"}, {"worker", "status"}, {"idgen", "-n", "1"}}
	mysqlOnly := [][]string{
		{"tickets", "up", "--name", "t", "--increment", "1", "--offset", "1"},
		{"tickets", "status", "--name", "t"}, {"bench", "tidb"},
	}
	badPG := []string{
		"postgres://app:pw@127.0.0.1:badport/x",
		"host=127.0.0.1 port=1 connect_timeout=abc",
		"postgres://app@[::1/x",
		"postgres://app:a@b@127.0.0.1:1/x", // pgx would look up the host b@127.0.0.1
	}
	badMySQL := []string{"app:pw@tcp(127.0.0.1:1/x", "app:pw@tcp(127.0.0.1:1)/x?p=%zz", "mysql://app:pw@127.0.0.1:1/x"}
	check := func(args []string, dsn, want string) {
		t.Helper()
		code, _, errOut := runCLI(t, "", nil, append(append([]string{}, args...), "--dsn", dsn)...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--dsn") || !strings.Contains(errOut, want) {
			t.Errorf("%v --dsn %q: exit %d %q; want exit 2, one line naming --dsn and %q", args, dsn, code, errOut, want)
		}
	}
	for _, args := range append(pgOnly, anyForm...) {
		for _, d := range badPG {
			check(args, d, "postgres://user:password@host:5432/db")
		}
	}
	for _, args := range append(mysqlOnly, anyForm...) {
		for _, d := range badMySQL {
			check(args, d, "user:password@tcp(host:3306)/db")
		}
	}
	for _, args := range pgOnly {
		check(args, "app:pw@tcp(127.0.0.1:1)/x", "postgres://user:password@host:5432/db")
		// A MySQL URL where only PostgreSQL goes is told so, in
		// PostgreSQL's form, not MySQL's.
		code, _, errOut := runCLI(t, "", nil, append(append([]string{}, args...), "--dsn", "mysql://app:pw@127.0.0.1:1/x")...)
		if code != 2 || !strings.Contains(errOut, "mysql://app:xxxxx@127.0.0.1:1/x is a MySQL URL; want a PostgreSQL URL") || strings.Contains(errOut, "tcp(host") {
			t.Errorf("%v --dsn mysql://…: exit %d %q; want the PostgreSQL form only", args, code, errOut)
		}
	}
	for _, args := range mysqlOnly {
		check(args, "postgres://app:pw@127.0.0.1:1/x", "user:password@tcp(host:3306)/db")
	}
}

// TestFlagErrorsAreOneLine: an unknown flag, a flag without its value and
// a value its type cannot hold each give one line naming the flag in the
// form the help shows (--name) and pointing at the command's -h, not Go's
// flag package wording.
func TestFlagErrorsAreOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tidb", "render", "--bogus"}, "tidb render: unknown flag --bogus (see shardid tidb render -h)"},
		{[]string{"pg", "up", "-bogus=1"}, "pg up: unknown flag --bogus (see shardid pg up -h)"},
		// A near miss names the flag it misses; a miss near two, or too
		// short to tell, names none.
		{[]string{"pg", "up", "--shard", "0-3"}, "pg up: unknown flag --shard (did you mean --shards?) (see shardid pg up -h)"},
		{[]string{"pg", "render", "--shards", "1"}, "pg render: unknown flag --shards (did you mean --shard?) (see shardid pg render -h)"},
		{[]string{"pg", "status", "--dns", "x"}, "pg status: unknown flag --dns (did you mean --dsn?) (see shardid pg status -h)"},
		{[]string{"tickets", "next", "--nme", "x"}, "tickets next: unknown flag --nme (did you mean --name?) (see shardid tickets next -h)"},
		{[]string{"pg", "up", "--x"}, "pg up: unknown flag -x (see shardid pg up -h)"},
		{[]string{"tidb", "render", "--shard-bits", "99999999999999999999"}, "tidb render: --shard-bits: 99999999999999999999 (allowed: 1–15) (see shardid tidb render -h)"},
		{[]string{"pg", "render", "--shard", "x1"}, "pg render: --shard: x1 is not a whole number in range (see shardid pg render -h)"},
		{[]string{"pg", "up", "--lock-timeout", "soon"}, "pg up: --lock-timeout: soon is not a duration such as 30s or 2m (see shardid pg up -h)"},
		{[]string{"bench", "pg", "--json=maybe"}, "bench pg: --json: maybe is not true or false (see shardid bench pg -h)"},
		{[]string{"decode", "--layout"}, "decode: --layout needs a value (see shardid decode -h)"},
		{[]string{"decode", "---layout=x"}, "decode: ---layout=x is not a flag (see shardid decode -h)"},
	} {
		code, out, errOut := runCLI(t, "", nil, c.args...)
		if code != 2 || out != "" || errOut != "shardid: "+c.want+"\n" {
			t.Errorf("%v: exit %d\n%s%s\nwant exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestPGMoveBadTransferMode: a --transfer-mode Citus has not is bad
// input, told before any connection: exit 2 and one line naming the flag
// and the modes allowed (the DSN points nowhere, so a command that
// connected first would exit 1 on the connection).
func TestPGMoveBadTransferMode(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "pg", "move", "--dsn", "postgres://app@127.0.0.1:1/x", "--shard", "0", "--to", "w2:5432", "--transfer-mode", "bogus")
	want := "shardid: --transfer-mode: \"bogus\" is not a Citus transfer mode (allowed: auto, force_logical, block_writes)\n"
	if code != 2 || out != "" || errOut != want {
		t.Errorf("pg move --transfer-mode bogus: exit %d\n%s%s\nwant exit 2 and %q", code, out, errOut, want)
	}
}
