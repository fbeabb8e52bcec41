package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/testsrv"
)

// leaseBackends are the servers the worker and idgen commands are tried
// on; dsn creates a fresh database and returns its DSN.
var leaseBackends = []struct {
	name string
	dsn  func(t *testing.T) string
}{
	{"postgres", func(t *testing.T) string { return testsrv.Database(t, testsrv.PG(t)) }},
	{"mariadb", func(t *testing.T) string { return testsrv.Database(t, testsrv.MariaDB(t)) }},
	{"tidb", func(t *testing.T) string { return testsrv.Database(t, testsrv.TiDB(t)) }},
}

// statusJSON runs worker status --json and decodes its rows: the one
// document shape of every command (jsonOf checks it).
func statusJSON(t *testing.T, dsn string, extra ...string) []lease.InfoRow {
	t.Helper()
	r := jsonOf(t, 0, append([]string{"worker", "status", "--dsn", dsn}, extra...)...)
	leases := rowsOf[lease.InfoRow](t, r)
	live := 0
	for _, l := range leases {
		if l.Live && !l.Fenced {
			live++
		}
	}
	if r.Totals["live"] != float64(live) {
		t.Errorf("worker status --json: totals %v for %d live rows", r.Totals, live)
	}
	return leases
}

// TestWorkerUpStatusIDGen: worker up creates the table once, status lists
// nothing, idgen prints IDs of node 0 and releases it, and status shows
// the released lease with its holder and last drawn time.
func TestWorkerUpStatusIDGen(t *testing.T) {
	t.Parallel()
	for _, b := range leaseBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			code, out, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn)
			if code != 0 || !strings.Contains(out, "shardid_worker_lease") || !strings.Contains(out, ": created; goose history in shardid_worker_lease_goose_db_version") {
				t.Fatalf("worker up: exit %d\n%s%s", code, out, errOut)
			}
			code, out, _ = runCLI(t, "", map[string]string{"SHARDID_WORKER_DSN": dsn}, "worker", "up")
			if code != 0 || !strings.Contains(out, "already up to date") {
				t.Fatalf("worker up again: exit %d\n%s", code, out)
			}
			if rows := rowsOf[lease.TableRow](t, jsonOf(t, 0, "worker", "up", "--dsn", dsn)); len(rows) != 1 || rows[0].State != "current" || rows[0].Table != "shardid_worker_lease" {
				t.Fatalf("worker up --json: %+v", rows)
			}
			if l := statusJSON(t, dsn); len(l) != 0 {
				t.Fatalf("fresh table lists %+v", l)
			}

			code, out, errOut = runCLI(t, "", nil, "idgen", "--dsn", dsn, "-n", "5000", "--holder", "cli-test")
			if code != 0 || !strings.Contains(errOut, `node 0 leased from shardid_worker_lease as "cli-test"; layout snowflake (shardid decode --layout snowflake)`) {
				t.Fatalf("idgen: exit %d\n%s", code, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 5000 {
				t.Fatalf("idgen -n 5000 printed %d lines", len(lines))
			}
			prev := int64(-1)
			for _, line := range lines {
				id, err := strconv.ParseInt(line, 10, 64)
				if err != nil || id <= prev {
					t.Fatalf("line %q after %d: not an increasing ID (%v)", line, prev, err)
				}
				if p, err := shardid.Snowflake().Decompose(id); err != nil || p.Shard != 0 {
					t.Fatalf("ID %d: %+v, %v; want node 0 of the snowflake layout (idgen's default)", id, p, err)
				}
				prev = id
			}

			leases := statusJSON(t, dsn)
			if len(leases) != 1 || leases[0].Node != 0 || leases[0].Live || leases[0].Holder != "cli-test" || leases[0].LastDrawn == "" {
				t.Fatalf("after idgen: %+v", leases)
			}
			// idgen --json: the IDs are its rows, one document, nothing else
			// on stdout.
			gen := jsonOf(t, 0, "idgen", "--dsn", dsn, "-n", "3", "--holder", "cli-test")
			if ids := rowsOf[int64](t, gen); len(ids) != 3 || ids[0] <= prev || ids[1] <= ids[0] || ids[2] <= ids[1] || gen.Totals["printed"] != float64(3) || gen.Totals["node"] != float64(0) {
				t.Fatalf("idgen --json: %v %v", ids, gen.Totals)
			}
			code, out, _ = runCLI(t, "", nil, "worker", "status", "--dsn", dsn)
			if code != 0 || !strings.Contains(out, "cli-test") || !strings.Contains(out, "node ids leased so far: 1; live now: 0") {
				t.Fatalf("worker status: exit %d\n%s", code, out)
			}

			code, _, errOut = runCLI(t, "", nil, "idgen", "--dsn", dsn, "-n", "1", "--layout", "instagram")
			if code != 1 || !strings.Contains(errOut, "lease table serves another layout") || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("idgen with another layout: exit %d %q", code, errOut)
			}
			code, _, errOut = runCLI(t, "", nil, "worker", "status", "--dsn", dsn, "--table", "nosuch")
			if code != 1 || !strings.Contains(errOut, "(create it with `shardid worker up`") || strings.Contains(errOut, "SELECT, INSERT and UPDATE") {
				t.Fatalf("status of a missing table: exit %d %q", code, errOut)
			}
		})
	}
}

// TestWorkerDeniedRole: a role without grants on an existing lease table
// is told the grant the lease needs, not to create the table, by worker
// status and by idgen, in one line.
func TestWorkerDeniedRole(t *testing.T) {
	t.Parallel()
	for _, b := range leaseBackends[:2] {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
				t.Fatalf("worker up: exit %d %s", code, errOut)
			}
			role := testsrv.DBName(t) // a name of its own: roles are server-wide
			var denied string
			if b.name == "postgres" {
				db := testsrv.Open(t, "pgx", dsn)
				if _, err := db.Exec("CREATE ROLE " + role + " LOGIN"); err != nil {
					t.Fatal(err)
				}
				denied = strings.Replace(dsn, "postgres@", role+"@", 1)
			} else {
				cfg, err := mysql.ParseDSN(dsn)
				if err != nil {
					t.Fatal(err)
				}
				db := testsrv.Open(t, "mysql", dsn)
				// A grant on the goose history lets the role into the
				// database; none on the lease table.
				for _, stmt := range []string{
					"CREATE USER " + role + "@'%'",
					"GRANT SELECT ON `" + cfg.DBName + "`.shardid_worker_lease_goose_db_version TO " + role + "@'%'",
				} {
					if _, err := db.Exec(stmt); err != nil {
						t.Fatal(err)
					}
				}
				cfg.User = role
				denied = cfg.FormatDSN()
			}
			for _, args := range [][]string{{"worker", "status"}, {"idgen", "-n", "1"}} {
				code, out, errOut := runCLI(t, "", nil, append(args, "--dsn", denied)...)
				if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 ||
					!strings.Contains(errOut, "needs SELECT, INSERT and UPDATE on it") || strings.Contains(errOut, "worker up") {
					t.Errorf("%v as a role without grants: exit %d, stdout %q, stderr %q", args, code, out, errOut)
				}
			}
		})
	}
}

// TestWorkerBadInput: bad flags exit 2 with one line naming the flag.
func TestWorkerBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"worker"}, "worker needs a subcommand (allowed: fence, status, up)"},
		{[]string{"worker", "down"}, `unknown worker subcommand "down" (allowed: fence, status, up)`},
		{[]string{"worker", "up"}, "--dsn is required"},
		{[]string{"worker", "up", "--dsn", "postgres://x", "--table", "Leases"}, `--table: invalid lease table name "Leases"`},
		{[]string{"worker", "status", "--dsn", "postgres://x", "extra"}, `worker status: unexpected argument "extra"`},
		{[]string{"worker", "status", "--dsn", "mysql://root@db/x"}, "go-sql-driver/mysql wants user:password@tcp(host:3306)/db"},
		{[]string{"idgen", "--dsn", "postgres://x"}, "-n is required"},
		{[]string{"idgen", "--dsn", "postgres://x", "-n", "0"}, "-n is required: how many IDs to print, at least 1"},
		{[]string{"idgen", "-n", "abc"}, "idgen: -n: abc is not a whole number in range (see shardid idgen -h)"},
		{[]string{"idgen", "-n", "5"}, "--dsn is required"},
		{[]string{"idgen", "-n", "5", "--ttl", "1ms", "--dsn", "postgres://x"}, "--ttl: 1ms is too short (allowed 100ms or more)"},
		{[]string{"idgen", "-n", "5", "--layout", "twitter", "--dsn", "postgres://x"}, `--layout: unknown layout "twitter"`},
		{[]string{"idgen", "-n", "5", "--dsn", "postgres://x", "more"}, `idgen: unexpected argument "more"`},
	} {
		code, out, errOut := runCLI(t, "", nil, c.args...)
		last := errOut[strings.LastIndex(strings.TrimSuffix(errOut, "\n"), "\n")+1:] // after the subcommand list "worker" alone prints
		if code != 2 || out != "" || !strings.Contains(last, c.want) || len(c.args) > 1 && last != errOut {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestWorkerSecrets: help never shows the environment's DSN, and failed
// connections never print the password.
func TestWorkerSecrets(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SHARDID_WORKER_DSN": "postgres://app:s3cret@db1:5432/app"}
	for _, args := range [][]string{{"worker", "up", "-h"}, {"worker", "status", "-h"}, {"idgen", "-h"}} {
		code, out, errOut := runCLI(t, "", env, args...)
		if code != 0 || strings.Contains(out+errOut, "s3cret") || !strings.Contains(out, "env SHARDID_WORKER_DSN") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	for _, dsn := range []string{"postgres://app:s3cret@127.0.0.1:1/x?connect_timeout=2", "app:s3cret@tcp(127.0.0.1:1)/x"} {
		for _, args := range [][]string{{"worker", "up"}, {"worker", "status"}, {"idgen", "-n", "3"}} {
			code, out, errOut := runCLI(t, "", nil, append(args, "--dsn", dsn)...)
			if code != 1 || strings.Contains(out+errOut, "s3cret") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v with %q: exit %d\n%s%s", args, dsn, code, out, errOut)
			}
		}
	}
}

// TestIDGenClosedStdout: an idgen whose reader goes away (`| head -2`)
// gives its node back at once, instead of dying from SIGPIPE and holding
// the node until its lease ends.
func TestIDGenClosedStdout(t *testing.T) {
	t.Parallel()
	dsn := testsrv.Database(t, testsrv.PG(t))
	if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
		t.Fatalf("worker up: exit %d %s", code, errOut)
	}
	err, stderr := headTwo(t, "idgen", "--dsn", dsn, "-n", "100000000", "--ttl", "10m", "--holder", "piped")
	if err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("idgen with its reader gone ended by %v; want exit status 1, not a signal (%s)", err, stderr)
	}
	if !strings.Contains(stderr, "broken pipe") || strings.Count(stderr, "\n") != 2 {
		t.Errorf("idgen's stderr: %q; want the lease line and one line naming the broken pipe", stderr)
	}
	// With a 10-minute lease, only a release frees the node now.
	if l := statusJSON(t, dsn); len(l) != 1 || l[0].Live || l[0].Holder != "piped" {
		t.Fatalf("after idgen lost its reader: %+v; want node 0 released", l)
	}
}
