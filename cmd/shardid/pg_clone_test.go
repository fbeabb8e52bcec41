package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// writeMap writes a shard map of two servers, a (shards 0-3) and b
// (shards 4-7), whose DSNs come from A_DSN and B_DSN, and returns its path
// and that environment.
func writeMap(t *testing.T, dsnA, dsnB string) (string, map[string]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fleet.toml")
	if err := os.WriteFile(path, []byte(`[[servers]]
name = "a"
dsn_env = "A_DSN"
shards = "0-3"
[[servers]]
name = "b"
dsn_env = "B_DSN"
shards = "4-7"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, map[string]string{"A_DSN": dsnA, "B_DSN": dsnB}
}

// sameDatabaseOn is dsn's database on server s.
func sameDatabaseOn(t *testing.T, s *dbserver.PG, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return s.DSN(strings.TrimPrefix(u.Path, "/"))
}

// startCopy starts a copy of srv's data directory, as a primary or as a
// streaming standby, stopped when the test ends.
func startCopy(t *testing.T, srv *dbserver.PG, standby bool) *dbserver.PG {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := srv.StartClone
	if standby {
		start = srv.StartCloneStandby
	}
	c, err := start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// TestPGMapClone: a pg_basebackup copy of a server, started beside it and
// mapped as a second server, holds the origin's shards (same system
// identifier, another running server). verify names both addresses as
// CLONE and exits 1; up applies nothing to either. (Before: up applied the
// second server's shards to the copy and verify said OK, while both held
// shards 0-3: 100k draws from shard 0 on each repeated 96,928.) resume
// moves nothing on either (before: it moved both and exited 0).
func TestPGMapClone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers of its own")
	}
	t.Parallel()
	origin := testsrv.NewPG(t, dbserver.PGOptions{})
	dsnA := testsrv.Database(t, origin)
	path, env := writeMap(t, dsnA, dsnA) // b is filled in below
	env["B_DSN"] = testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
	if code, out, errOut := runCLI(t, "", env, "pg", "up", "--map", path); code != 0 {
		t.Fatalf("up on two real servers: exit %d\n%s%s", code, out, errOut)
	}
	clone := startCopy(t, origin, false)
	env["B_DSN"] = sameDatabaseOn(t, clone, dsnA)
	addrA, addrB := fmt.Sprintf("127.0.0.1:%d", origin.Port()), fmt.Sprintf("127.0.0.1:%d", clone.Port())

	code, out, errOut := runCLI(t, "", env, "pg", "verify", "--map", path)
	if code != 1 || !strings.Contains(out, "CLONE") || !strings.Contains(out, addrA) || !strings.Contains(out, addrB) ||
		!strings.Contains(out, "one system identifier") {
		t.Fatalf("verify with a clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	// Both hold shards 0-3: each is a place of its own, so the copies
	// are duplicates too.
	if strings.Count(out, "DUPLICATE") != 4 {
		t.Fatalf("verify with a clone: want shards 0-3 reported held twice:\n%s", out)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "up", "--map", path)
	if code != 1 || strings.Contains(out, " applied ") || len(regexp.MustCompile(`(?m)^[ab] FAILED .*is a clone of another server of the map`).FindAllString(out, -1)) != 8 {
		t.Fatalf("up with a clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	var exists bool
	if err := openPG(t, env["B_DSN"]).QueryRow("SELECT to_regnamespace('insta4') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("up created shard 4 on the clone (%v)", err)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "status", "--map", path)
	if code != 1 || !strings.Contains(out, "is a clone of another server of the map") || !strings.Contains(out, "CLONE (4 shards not read)") || strings.Contains(out, "UNREACHABLE") {
		t.Fatalf("status with a clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	// resume moves nothing on either: a clone is stopped, not resumed.
	code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--map", path, "--lead", "5s")
	if code != 1 || strings.Count(out, "is a clone of another server of the map") != 2 || strings.Contains(out, "moved ") {
		t.Fatalf("resume with a clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPGMapStandby: a streaming standby in the map is read and reported
// as a standby, naming the shards the map puts there (before: their
// count, which read as a shard id); what it replays (shards 0-3 of its
// primary) is not
// counted as a second place those shards live, and up applies nothing
// through it.
func TestPGMapStandby(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers of its own")
	}
	t.Parallel()
	primary := testsrv.NewPG(t, dbserver.PGOptions{})
	dsnA := testsrv.Database(t, primary)
	path, env := writeMap(t, dsnA, dsnA)
	env["B_DSN"] = testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
	if code, out, errOut := runCLI(t, "", env, "pg", "up", "--map", path); code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	standby := startCopy(t, primary, true)
	env["B_DSN"] = sameDatabaseOn(t, standby, dsnA)
	var inRecovery bool
	if err := openPG(t, env["B_DSN"]).QueryRow("SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil || !inRecovery {
		t.Fatalf("the standby is not in recovery (%v)", err)
	}
	code, out, errOut := runCLI(t, "", env, "pg", "verify", "--map", path, "--json")
	if code != 1 || !strings.Contains(out, `"standby: server b`) || strings.Contains(out, `"duplicate: `) || strings.Contains(out, `"clone: `) ||
		!strings.Contains(out, `"standby": true`) || !strings.Contains(out, "the shards the map puts there (4-7) live nowhere") {
		t.Fatalf("verify with a standby mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "up", "--map", path)
	if code != 1 || len(regexp.MustCompile(`(?m)^b FAILED .*server is a standby`).FindAllString(out, -1)) != 4 {
		t.Fatalf("up with a standby mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	// status on the standby itself says so and fails (before: exit 0,
	// no note).
	code, out, errOut = runCLI(t, "", nil, "pg", "status", "--dsn", env["B_DSN"])
	if code != 1 || !strings.Contains(out, "IN RECOVERY") || !strings.Contains(errOut, "the server is in recovery") {
		t.Fatalf("status on the standby: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPGMapCloneUnidentified: the map's role may not execute
// pg_control_system() (revoked from PUBLIC), so no system identifier can
// be read. Two different running servers then cannot be told from a copy
// of one data directory: up applies nothing through either, verify names
// the doubt (UNIDENTIFIED) and exits 1. Granted, up applies; a copy of
// the origin started beside it, where the grant is taken back again, is
// refused by up and resume and reported by verify. (Before: a role
// without the grant saw no system identifier, and the clone checks were
// off: up applied shards 4-7 to the clone and resume moved both, in an
// outside trial.)
func TestPGMapCloneUnidentified(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers of its own")
	}
	t.Parallel()
	origin, other := testsrv.NewPG(t, dbserver.PGOptions{}), testsrv.NewPG(t, dbserver.PGOptions{})
	var owned []string
	for _, dsn := range []string{testsrv.Database(t, origin), testsrv.Database(t, other)} {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		db := openPG(t, dsn)
		for _, q := range []string{
			"CREATE ROLE fleetowner LOGIN",
			"ALTER DATABASE " + strings.TrimPrefix(u.Path, "/") + " OWNER TO fleetowner",
			"REVOKE EXECUTE ON FUNCTION pg_catalog.pg_control_system() FROM PUBLIC",
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		u.User = url.User("fleetowner")
		owned = append(owned, u.String())
	}
	grant := func(dsn, how string) {
		t.Helper()
		u, _ := url.Parse(dsn)
		u.User = url.User("postgres")
		if _, err := openPG(t, u.String()).Exec(how + " EXECUTE ON FUNCTION pg_catalog.pg_control_system() " + map[string]string{"GRANT": "TO", "REVOKE": "FROM"}[how] + " fleetowner"); err != nil {
			t.Fatal(err)
		}
	}
	path, env := writeMap(t, owned[0], owned[1])
	code, out, errOut := runCLI(t, "", env, "pg", "up", "--map", path)
	if code != 1 || strings.Contains(out, " applied ") || len(regexp.MustCompile(`(?m)^[ab] FAILED .*system identifier could not be read`).FindAllString(out, -1)) != 8 {
		t.Fatalf("up on two servers whose system identifiers the role cannot read: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "verify", "--map", path)
	if code != 1 || strings.Count(out, "UNIDENTIFIED") != 2 || !strings.Contains(out, "grant EXECUTE ON FUNCTION pg_catalog.pg_control_system()") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
	for _, dsn := range owned {
		grant(dsn, "GRANT")
	}
	if code, out, errOut := runCLI(t, "", env, "pg", "up", "--map", path); code != 0 {
		t.Fatalf("up with the grant: exit %d\n%s%s", code, out, errOut)
	}
	// A copy of the origin beside it, the grant taken back on both.
	grant(owned[0], "REVOKE")
	clone := startCopy(t, origin, false)
	env["B_DSN"] = sameDatabaseOn(t, clone, owned[0])
	code, out, errOut = runCLI(t, "", env, "pg", "verify", "--map", path)
	if code != 1 || strings.Count(out, "UNIDENTIFIED") != 2 || strings.Contains(out, "CLONE") {
		t.Fatalf("verify with an unidentified clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "up", "--map", path)
	if code != 1 || strings.Contains(out, " applied ") {
		t.Fatalf("up with an unidentified clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	var exists bool
	if err := openPG(t, env["B_DSN"]).QueryRow("SELECT to_regnamespace('insta4') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("up created shard 4 on the clone (%v)", err)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "status", "--map", path)
	if code != 1 || !strings.Contains(out, "UNIDENTIFIED (4 shards not read)") {
		t.Fatalf("status with an unidentified clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--map", path, "--lead", "5s")
	if code != 1 || strings.Count(out, "system identifier could not be read") != 2 || strings.Contains(out, "moved ") {
		t.Fatalf("resume with an unidentified clone mapped as b: exit %d\n%s%s", code, out, errOut)
	}
}
