package fleet_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// twoServers starts two servers of the test's own (a fleet sees every
// database of its servers, so tests must not share them) and returns a
// fresh database's DSN on each; under -short it skips the test.
func twoServers(t *testing.T) (dsnA, dsnB string, a, b *dbserver.PG) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts servers of its own")
	}
	a, b = testsrv.NewPG(t, dbserver.PGOptions{}), testsrv.NewPG(t, dbserver.PGOptions{})
	return testsrv.Database(t, a), testsrv.Database(t, b), a, b
}

// mapOf parses a two-server map: A holds shards 0-5, B 6-9.
func mapOf(t *testing.T, dsnA, dsnB, extra string) *fleet.Map {
	t.Helper()
	text := fmt.Sprintf(`schema_format = "fl%%d"
%s
[[servers]]
name = "a"
dsn_env = "A_DSN"
shards = "0-5"

[[servers]]
name = "b"
dsn_env = "B_DSN"
shards = "6-9"
`, extra)
	m, err := fleet.Parse("fleet.toml", []byte(text), env(map[string]string{"A_DSN": dsnA, "B_DSN": dsnB}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustUp runs Up and fails the test on any failed shard, saying why.
func mustUp(t *testing.T, m *fleet.Map) {
	t.Helper()
	for _, sr := range m.Up(context.Background(), nil) {
		for _, r := range sr.Results {
			if r.Err != nil {
				t.Fatalf("up on %s: %v", sr.Server.Name, r.Err)
			}
		}
	}
}

// upFleet starts two servers of the test's own (twoServers) and applies
// the two-server map (mapOf) to them.
func upFleet(t *testing.T) (m *fleet.Map, dsnA, dsnB string, a, b *dbserver.PG) {
	t.Helper()
	dsnA, dsnB, a, b = twoServers(t)
	m = mapOf(t, dsnA, dsnB, "")
	mustUp(t, m)
	return m, dsnA, dsnB, a, b
}

// counts sums applied, unchanged (by note) and failed shards.
func counts(results []fleet.ServerResult) (applied, unchanged, failed int) {
	for _, sr := range results {
		for _, r := range sr.Results {
			switch {
			case r.Err != nil:
				failed++
			case r.Applied:
				applied++
			default:
				unchanged++
			}
		}
	}
	return
}

// kinds lists the problems of a report as "kind:shard".
func kinds(rep fleet.Report) string {
	var out []string
	for _, p := range rep.Problems {
		out = append(out, fmt.Sprintf("%s:%d", p.Kind, p.Shard))
	}
	return strings.Join(out, " ")
}

// TestUpDownServerThenRerun: a server that is down fails its shards and
// not the others'; after it comes back a rerun applies its shards and
// leaves the rest untouched.
func TestUpDownServerThenRerun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsnA, dsnB, _, b := twoServers(t)
	m := mapOf(t, dsnA, dsnB, "")
	if err := b.Crash(); err != nil {
		t.Fatal(err)
	}
	var events int
	res := m.Up(ctx, func(fleet.Event) { events++ })
	if applied, _, failed := counts(res); applied != 6 || failed != 4 || events != 10 || res[1].Failed() != 4 {
		t.Fatalf("up with b down: %d applied, %d failed, %d events; want 6, 4, 10", applied, failed, events)
	}
	if err := res[1].Results[0].Err; !strings.Contains(err.Error(), "server b") {
		t.Fatalf("b's error does not name the server: %v", err)
	}
	rep := m.Verify(ctx)
	// b's shards are not "missing": nobody could look.
	if rep.OK || !strings.Contains(kinds(rep), "unreachable:-1") || strings.Contains(kinds(rep), "missing") {
		t.Fatalf("verify with b down: %s", kinds(rep))
	}
	for _, p := range rep.Problems {
		if strings.ContainsAny(p.Message, "\n\t") {
			t.Errorf("a message of more than one line: %q", p.Message)
		}
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	res = m.Up(ctx, nil)
	if applied, unchanged, failed := counts(res); applied != 4 || unchanged != 6 || failed != 0 {
		t.Fatalf("rerun: %d applied, %d unchanged, %d failed; want 4, 6, 0", applied, unchanged, failed)
	}
	if rep := m.Verify(ctx); !rep.OK || rep.Shards != 10 {
		t.Fatalf("verify after the rerun: %s", kinds(rep))
	}
	for _, ss := range m.Status(ctx) {
		if ss.Err != nil || len(ss.Shards) == 0 || ss.Shards[0].Installed == nil || !ss.Shards[0].Matches {
			t.Fatalf("status of %s: %+v", ss.Server.Name, ss)
		}
	}
}

// plant installs a generator for shard id in schema of the database dsn
// names, seeing that database only, as an operator's stray copy would be
// (beside generators of another mode when their shard ids differ).
func plant(t *testing.T, dsn, schema string, id int64, o pgfunc.Options) {
	t.Helper()
	mig, err := migrate.New(testsrv.Open(t, "pgx", dsn), o, migrate.Options{OwnDatabaseOnly: true, AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := mig.Up(context.Background(), []pgfunc.Shard{{Schema: schema, ID: id}}, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
}

// TestVerifyCatchesCopies: verify passes on a clean fleet and names each
// planted copy: on the other server, in another database of the same
// server, with another layout, and a shard the map does not hold.
func TestVerifyCatchesCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, _, dsnB, a, b := upFleet(t)
	if rep := m.Verify(ctx); !rep.OK {
		t.Fatalf("clean fleet: %s", kinds(rep))
	}
	// A copy of shard 3 (server a) on server b, in b's own database.
	plant(t, dsnB, "copy3", 3, m.Options())
	// A copy of shard 7 (server b) in another database of server b.
	plant(t, testsrv.Database(t, b), "fl7", 7, m.Options())
	// A shard the map does not hold, in a database of server a.
	plant(t, testsrv.Database(t, a), "fl100", 100, m.Options())
	rep := m.Verify(ctx)
	want := "duplicate:3 duplicate:7 unmapped:100"
	if rep.OK || kinds(rep) != want {
		t.Fatalf("verify: %s\nwant: %s\n%+v", kinds(rep), want, rep.Problems)
	}
	for _, p := range rep.Problems {
		if p.Place.Database == "" || p.Place.Schema == "" || p.Place.Server == "" || !strings.Contains(p.Message, p.Place.Schema) {
			t.Errorf("problem does not name server, database and schema: %+v", p)
		}
	}
	// One problem per shard id held twice: the map's place first, the
	// copy beside it.
	if d := rep.Problems[0]; d.Place.Server != "a" || d.Place.Schema == "copy3" || len(d.Also) != 1 || d.Also[0].Schema != "copy3" || !strings.Contains(d.Message, "copy3") {
		t.Errorf("duplicate of shard 3: %+v", d)
	}
	// A mapped shard whose generator differs from the map.
	dsnC := testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
	other := mapOf(t, dsnC, dsnB, `mode = "classic"`)
	plant(t, dsnC, "fl0", 0, pgfunc.Options{})
	rep = other.Verify(ctx)
	if !strings.Contains(kinds(rep), "mismatch:0") || !strings.Contains(kinds(rep), "missing:1") {
		t.Fatalf("verify of a map with another mode: %s", kinds(rep))
	}
	// A mapped shard applied by an older shardid, which recorded the
	// metadata on next_id() rather than on the counter.
	plant(t, dsnC, "fl2", 2, other.Options())
	if _, err := testsrv.Open(t, "pgx", dsnC).Exec(`DO $$ BEGIN
		EXECUTE format('COMMENT ON FUNCTION fl2.next_id() IS %L', obj_description('fl2.next_id_seq'::regclass, 'pg_class'));
		COMMENT ON SEQUENCE fl2.next_id_seq IS NULL;
		DROP FUNCTION fl2.next_id_meta(); -- which no such release had
	END $$`); err != nil {
		t.Fatal(err)
	}
	if rep = other.Verify(ctx); !strings.Contains(kinds(rep), "outdated:2") {
		t.Fatalf("verify of an older generator: %s", kinds(rep))
	}
	// A mapped shard whose metadata cannot be read (a copy made without
	// comments of an earlier release's generator): a problem, named.
	plant(t, dsnC, "fl4", 4, other.Options())
	if _, err := testsrv.Open(t, "pgx", dsnC).Exec("COMMENT ON SEQUENCE fl4.next_id_seq IS NULL; DROP FUNCTION fl4.next_id_meta()"); err != nil {
		t.Fatal(err)
	}
	if rep = other.Verify(ctx); rep.OK || !strings.Contains(kinds(rep), "unreadable:") || !strings.Contains(fmt.Sprint(rep.Problems), ".fl4 looks like a generator's counter, but its metadata cannot be read") {
		t.Fatalf("verify beside a generator whose metadata cannot be read: %s\n%+v", kinds(rep), rep.Problems)
	}
}

// TestMoveShard moves shard 3 from server a to server b the documented
// way (pg_dump -n into b, the map changed, the schema dropped on a):
// verify fails while both copies exist and passes after the drop, and IDs
// drawn after the move are above every ID drawn before it.
func TestMoveShard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, dsnA, dsnB, _, b := upFleet(t)
	dbA, dbB := testsrv.Open(t, "pgx", dsnA), testsrv.Open(t, "pgx", dsnB)
	if _, err := dbA.Exec(`CREATE TABLE fl3.items (id bigint PRIMARY KEY DEFAULT fl3.next_id(), n int);
		INSERT INTO fl3.items (n) SELECT g FROM generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := dbA.QueryRow("SELECT max(id) FROM fl3.items").Scan(&before); err != nil {
		t.Fatal(err)
	}
	// Writes to the shard stop here (the documented first step), then:
	dump := exec.Command(filepath.Join(b.BinDir(), "pg_dump"), "-n", "fl3", "--no-owner", "-d", dsnA)
	restore := exec.Command(filepath.Join(b.BinDir(), "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsnB)
	pipe, err := dump.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	restore.Stdin = pipe
	if err := dump.Start(); err != nil {
		t.Fatal(err)
	}
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if err := dump.Wait(); err != nil {
		t.Fatal(err)
	}
	if rep := m.Verify(ctx); rep.OK || kinds(rep) != "duplicate:3" {
		t.Fatalf("verify with both copies, old map: %s", kinds(rep))
	}
	moved, err := fleet.Parse("fleet.toml", []byte(`schema_format = "fl%d"
[[servers]]
name = "a"
dsn_env = "A_DSN"
shards = "0-2,4-5"
[[servers]]
name = "b"
dsn_env = "B_DSN"
shards = "3,6-9"
`), env(map[string]string{"A_DSN": dsnA, "B_DSN": dsnB}))
	if err != nil {
		t.Fatal(err)
	}
	if rep := moved.Verify(ctx); rep.OK || kinds(rep) != "duplicate:3" {
		t.Fatalf("verify with both copies, new map: %s", kinds(rep))
	}
	if _, err := dbA.Exec("DROP SCHEMA fl3 CASCADE"); err != nil {
		t.Fatal(err)
	}
	if rep := moved.Verify(ctx); !rep.OK {
		t.Fatalf("verify after the drop: %s", kinds(rep))
	}
	if rep := m.Verify(ctx); rep.OK || kinds(rep) != "missing:3 misplaced:3" {
		t.Fatalf("the old map after the move: %s", kinds(rep))
	}
	// New rows are marked with negative n.
	if _, err := dbB.Exec("INSERT INTO fl3.items (n) SELECT -g FROM generate_series(1, 20000) g"); err != nil {
		t.Fatal(err)
	}
	var rows, distinct, notAbove int64
	if err := dbB.QueryRow(`SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE n < 0 AND id <= $1) FROM fl3.items`, before).Scan(&rows, &distinct, &notAbove); err != nil {
		t.Fatal(err)
	}
	if rows != 40000 || distinct != rows || notAbove != 0 {
		t.Fatalf("after the move: %d rows, %d distinct, %d new IDs not above the old maximum", rows, distinct, notAbove)
	}
}

// TestVerifyAliases: two map entries that reach one server under two names
// (127.0.0.1 and localhost), each with its own shards, are one server to
// verify: each generator is seen once, not as a copy of itself.
func TestVerifyAliases(t *testing.T) {
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	dsn := testsrv.Database(t, srv)
	if !strings.Contains(dsn, "127.0.0.1") {
		t.Fatalf("the harness DSN %q does not name 127.0.0.1", dsn)
	}
	m := mapOf(t, dsn, strings.Replace(dsn, "127.0.0.1", "localhost", 1), "")
	mustUp(t, m)
	if rep := m.Verify(context.Background()); !rep.OK {
		t.Fatalf("one server under two names: %s\n%+v", kinds(rep), rep.Problems)
	}
	// A real copy on that server (in another of its databases) is still
	// one, reported through the entry the map gives shard 3 to (a), not
	// through whichever entry's read finished first.
	plant(t, testsrv.Database(t, srv), "copy3", 3, m.Options())
	for range 5 {
		rep := m.Verify(context.Background())
		if rep.OK || kinds(rep) != "duplicate:3" {
			t.Fatalf("a copy on an aliased server: %s", kinds(rep))
		}
		if p := rep.Problems[0]; p.Place.Server != "a" || p.Place.Schema != "fl3" || p.Also[0].Server != "a" {
			t.Fatalf("the copy is reported through another entry: %+v", p)
		}
	}
}
