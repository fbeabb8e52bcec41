package bench

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// tiny is a run small enough for tests: every body, table and method
// measured once.
var tiny = Settings{Rounds: 1, Calls: 2000, Rows: 5, Batches: 2, IDs: 20}

// benchSchemas returns the schemas of the database whose names start with
// shardid_bench.
func benchSchemas(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'shardid\\_bench%' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestRunPG runs every part once on a database that already holds a
// generator on the highest shard id and a table of its own: the report
// has every row, the bench's own generators repeat nothing, and afterwards
// only what was there before is left.
func TestRunPG(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.PGDB(t)
	if _, err := db.Exec("CREATE TABLE mine (id bigserial PRIMARY KEY); INSERT INTO mine DEFAULT VALUES"); err != nil {
		t.Fatal(err)
	}
	var steps []Step
	s := tiny
	s.Progress = func(st Step) { steps = append(steps, st) }
	var v7 string
	var v7Err error
	s.afterSetup = func(ctx context.Context) error {
		v7Err = db.QueryRowContext(ctx, "SELECT shardid_bench.uuid_v7()::text").Scan(&v7)
		return nil
	}
	rep, err := RunPG(context.Background(), dsn, s)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, c := range rep.Cost {
		bodies = append(bodies, c.Body)
		if c.NsPerID.Median <= 0 || c.VsNextval.Median <= 0 {
			t.Errorf("cost of %s: %+v", c.Body, c)
		}
		if c.MustBeUnique && c.Duplicates != 0 {
			t.Errorf("%s repeated %d IDs", c.Body, c.Duplicates)
		}
	}
	if got, want := strings.Join(bodies, " "), "nextval unique unique-bulk unique-ids classic classic-sql published uuid-v4 uuid-v7"; got != want {
		t.Errorf("bodies %s, want %s", got, want)
	}
	if rep.Cost[0].VsNextval.Median != 1 {
		t.Errorf("nextval against itself: %v", rep.Cost[0].VsNextval)
	}
	checkPhases(t, rep, "bigserial unique unique-bulk classic classic-sql uuid-v4 uuid-v7")
	if !rep.CPU.Read || rep.CPU.From == "" {
		t.Errorf("CPU not read from the test server on this machine: %+v", rep.CPU)
	}
	for _, ph := range rep.Insert {
		for _, k := range ph.Keys {
			if k.CPUPerRow == nil || k.CPUPerRow.Median <= 0 || k.CPUVsBase.Median <= 0 {
				t.Errorf("%s, %s: CPU per row %+v", ph.Name, k.Key, k.CPUPerRow)
			}
		}
	}
	methods := checkRates(t, nil, rep.IDs)
	if len(methods) != 4 || methods[0] != "nextval" || methods[2] != "segments" || methods[3] != "leased" {
		t.Errorf("methods %v", methods)
	}
	if len(steps) == 0 || steps[len(steps)-1].Done != steps[len(steps)-1].Total-1 {
		t.Errorf("progress: %d steps, last %+v", len(steps), steps[len(steps)-1])
	}
	checkUUIDv7(t, v7, v7Err)
	if left := benchSchemas(t, db); len(left) != 0 {
		t.Errorf("schemas left behind: %v", left)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM mine").Scan(&n); err != nil || n != 1 {
		t.Errorf("the database's own table: %d rows, %v", n, err)
	}
}

// checkUUIDv7 checks that the bench's UUID v7 function made a version 7,
// variant 10 UUID whose first 48 bits are the Unix time in milliseconds,
// now: the bench must measure a correct function.
func checkUUIDv7(t *testing.T, u string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	b, herr := hex.DecodeString(strings.ReplaceAll(u, "-", ""))
	if herr != nil || len(b) != 16 {
		t.Fatalf("uuid_v7() = %q", u)
	}
	ms := int64(binary.BigEndian.Uint64(append([]byte{0, 0}, b[:6]...)))
	if b[6]>>4 != 7 || b[8]>>6 != 2 || time.Since(time.UnixMilli(ms)).Abs() > time.Minute {
		t.Errorf("uuid_v7() = %s: version %d, variant %b, time %s", u, b[6]>>4, b[8]>>6, time.UnixMilli(ms).UTC())
	}
}

// checkPhases checks that the report has the four single-row phases, each
// with the keys named (bigserial first) and every INSERT figure, nothing
// that must be unique repeated, the slow-path share of exactly the keys of
// mode unique's generator (and of peers naming one, listed in withJumps),
// and a planning row per key.
func checkPhases(t *testing.T, rep *PGReport, keys string, withJumps ...string) {
	t.Helper()
	if len(rep.Insert) != 4 {
		t.Fatalf("%d insert phases, want 4", len(rep.Insert))
	}
	protocols := map[string]int{}
	for _, ph := range rep.Insert {
		protocols[ph.Protocol+"/"+ph.SynchronousCommit]++
		var got []string
		for _, k := range ph.Keys {
			got = append(got, k.Key)
			if k.RowsPerSecond.Median <= 0 || k.VsBase.Median <= 0 || (k.MustBeUnique && k.DuplicateKeys != 0) {
				t.Errorf("%s, %s: %+v", ph.Name, k.Key, k)
			}
			jumps := strings.HasPrefix(k.Key, "unique") || slices.Contains(withJumps, k.Key)
			if (k.SlowPath != nil) != jumps || jumps && (k.SlowPath.Median < 0 || k.SlowPath.Max > 1) {
				t.Errorf("%s, %s: slow path %+v, want one (0-1) exactly for keys with jump counters", ph.Name, k.Key, k.SlowPath)
			}
		}
		if strings.Join(got, " ") != keys {
			t.Errorf("%s: keys %v, want %s", ph.Name, got, keys)
		}
	}
	if len(protocols) != 4 {
		t.Errorf("phases %v, want simple and prepared, synchronous_commit on and off", protocols)
	}
	var planned []string
	for _, r := range rep.Planning {
		planned = append(planned, r.Key)
		if r.Micros.Median <= 0 || r.VsBase.Median <= 0 {
			t.Errorf("planning %s: %+v", r.Key, r)
		}
	}
	if strings.Join(planned, " ") != keys {
		t.Errorf("planning rows %v, want %s", planned, keys)
	}
}

// checkRates checks that every INSERT and ID figure is there and that
// nothing that must be unique repeated, and returns the ID methods' names.
func checkRates(t *testing.T, phases []InsertPhase, ids []IDRow) []string {
	t.Helper()
	for _, ph := range phases {
		for _, k := range ph.Keys {
			if k.RowsPerSecond.Median <= 0 || k.VsBase.Median <= 0 || (k.MustBeUnique && k.DuplicateKeys != 0) {
				t.Errorf("%s, %s: %+v", ph.Name, k.Key, k)
			}
		}
	}
	var methods []string
	for _, r := range ids {
		methods = append(methods, r.Method)
		if r.PerClient.Median <= 0 || r.Duplicates != 0 {
			t.Errorf("IDs from %s: %+v", r.Method, r)
		}
	}
	return methods
}

// TestRunPGRefusesExistingSchema: schemas of the bench's names that the
// bench did not create stop the run before anything is measured, are all
// named in the error with one statement that drops them, and are left as
// they were; the schemas the run had created are dropped.
func TestRunPGRefusesExistingSchema(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.PGDB(t)
	if _, err := db.Exec("CREATE SCHEMA shardid_bench_unique; CREATE SCHEMA shardid_bench_classic; CREATE TABLE shardid_bench_classic.keep (x int)"); err != nil {
		t.Fatal(err)
	}
	_, err := RunPG(context.Background(), dsn, tiny)
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "already exists: schemas shardid_bench_unique, shardid_bench_classic;") ||
		!strings.Contains(err.Error(), "(DROP SCHEMA shardid_bench_unique, shardid_bench_classic CASCADE)") {
		t.Fatalf("err %v, want ErrExists naming both schemas", err)
	}
	if left := benchSchemas(t, db); strings.Join(left, " ") != "shardid_bench_classic shardid_bench_unique" {
		t.Errorf("schemas after the refusal: %v, want only the two that were there", left)
	}
	if _, err := db.Exec("SELECT * FROM shardid_bench_classic.keep"); err != nil {
		t.Errorf("the existing schema's table: %v", err)
	}
}

// TestRunPGCatchesRepeats is the negative control of the duplicate check:
// mode unique's next_id() replaced, after setup, by the classic body with
// its clock frozen (the bench's own sequence modulo 1024 beside a fixed
// time), which repeats after 1024 IDs. The run must end with
// ErrDuplicates and a report that shows the repeats, in the server-side
// burst and as single-row INSERTs refused for a duplicate key.
func TestRunPGCatchesRepeats(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.PGDB(t)
	s := tiny
	s.Calls, s.Rows = 5000, 300 // 2,400 single-row INSERTs per round: past 1,024
	s.afterSetup = func(ctx context.Context) error {
		_, err := db.ExecContext(ctx, `CREATE OR REPLACE FUNCTION shardid_bench_unique.next_id() RETURNS bigint LANGUAGE sql
			AS $$ SELECT (1::bigint << 23) | (nextval('shardid_bench.seq') % 1024) $$`)
		return err
	}
	rep, err := RunPG(context.Background(), dsn, s)
	if !errors.Is(err, ErrDuplicates) {
		t.Fatalf("err %v, want ErrDuplicates", err)
	}
	if rep == nil || rep.Cost[1].Body != "unique" || rep.Cost[1].Duplicates < 5000-1024 {
		t.Fatalf("report %+v: want unique's burst duplicates counted", rep)
	}
	refused := int64(0)
	for _, ph := range rep.Insert {
		refused += ph.Keys[1].DuplicateKeys
	}
	if refused == 0 {
		t.Errorf("no INSERT refused for a duplicate key: %+v", rep.Insert)
	}
	t.Logf("caught: %v", err)
}

// TestRunPGCancelled: a run cancelled in the middle (Ctrl-C) still drops
// every schema it created.
func TestRunPGCancelled(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.PGDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := tiny
	s.Progress = func(st Step) {
		if st.Done == 10 {
			cancel()
		}
	}
	if _, err := RunPG(ctx, dsn, s); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if left := benchSchemas(t, db); len(left) != 0 {
		t.Errorf("schemas left behind: %v", left)
	}
}

// TestRunPGPeers: --peer expressions are measured beside shardid's
// generators: a key keyed by each (of the expression's own type) in every
// phase and in planning, and a row in the server-side cost table; a peer
// naming a shardid generator's draw has its slow path counted, and a peer
// that repeats IDs is reported, not failed (a peer is the user's to judge).
func TestRunPGPeers(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.PGDB(t)
	if _, err := db.Exec("CREATE SCHEMA theirs; CREATE SEQUENCE theirs.s; CREATE FUNCTION theirs.uid() RETURNS text LANGUAGE sql AS $$ SELECT 'u' || nextval('theirs.s') $$"); err != nil {
		t.Fatal(err)
	}
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Up(context.Background(), []pgfunc.Shard{{Schema: "gen7", ID: 7}}, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	s := tiny
	s.Peers = []Peer{{Name: "text-ids", Expr: "theirs.uid()"}, {Name: "gen7", Expr: "gen7.next_id()"}, {Name: "one", Expr: "1::bigint"}}
	rep, err := RunPG(context.Background(), dsn, s)
	if err != nil {
		t.Fatal(err)
	}
	checkPhases(t, rep, "bigserial unique unique-bulk classic classic-sql uuid-v4 uuid-v7 peer:text-ids peer:gen7 peer:one", "peer:gen7")
	last := rep.Cost[len(rep.Cost)-3:]
	if last[0].Body != "peer:text-ids" || last[1].Body != "peer:gen7" || last[2].Body != "peer:one" || last[2].MustBeUnique || last[2].Duplicates == 0 {
		t.Errorf("the peers' cost rows: %+v", last)
	}
	var refused int64
	for _, ph := range rep.Insert {
		refused += ph.Keys[len(ph.Keys)-1].DuplicateKeys
	}
	if refused == 0 {
		t.Errorf("the repeating peer's INSERTs: none refused for a duplicate key")
	}
	if left := benchSchemas(t, db); len(left) != 0 {
		t.Errorf("schemas left behind: %v", left)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pg_proc WHERE proname = 'uid' AND pronamespace = 'theirs'::regnamespace").Scan(&n); err != nil || n != 1 {
		t.Errorf("the peer's own function after the run: %d, %v", n, err)
	}
}

// TestRunPGBadPeers: a peer whose expression the server does not take as
// one column stops the run before anything is created, with
// ErrInvalidSettings naming the peer; ParsePeer refuses malformed ones.
func TestRunPGBadPeers(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.PGDB(t)
	for _, p := range []Peer{{"two", "1, 2"}, {"missing", "nosuch.fn()"}, {"statements", "1); DROP TABLE x; --"}, {"param", "$1::int"}} {
		s := tiny
		s.Peers = []Peer{p}
		if _, err := RunPG(context.Background(), dsn, s); !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), "peer "+p.Name) {
			t.Errorf("peer %+v: %v; want ErrInvalidSettings naming it", p, err)
		}
	}
	if left := benchSchemas(t, db); len(left) != 0 {
		t.Errorf("schemas left behind: %v", left)
	}
	for _, c := range []struct{ in, want string }{
		{"noequals", "want NAME=SQLEXPR"},
		{"=1", "peer name \"\""},
		{"a b=1", "peer name \"a b\""},
		{"x=", "want an SQL expression"},
	} {
		if _, err := ParsePeer(c.in); !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePeer(%q): %v; want %q", c.in, err, c.want)
		}
	}
	if p, err := ParsePeer("c-ext= snowflake.nextval() "); err != nil || p != (Peer{"c-ext", "snowflake.nextval()"}) {
		t.Errorf("ParsePeer: %+v, %v", p, err)
	}
	s := tiny
	s.Peers = []Peer{{"same", "1"}, {"same", "2"}}
	if _, err := RunPG(context.Background(), dsn, s); !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a peer name given twice: %v", err)
	}
}

// TestRunPGCPUElsewhere: when the server's processes are not on this
// machine (here: a proc file system without them), the report says the
// CPU per row was not read and why, and has no CPU figures.
func TestRunPGCPUElsewhere(t *testing.T) {
	t.Parallel()
	_, dsn := testsrv.PGDB(t)
	proc := t.TempDir()
	if err := os.WriteFile(filepath.Join(proc, "stat"), []byte("cpu 1 2 3\nbtime 1700000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := tiny
	s.proc = proc
	rep, err := RunPG(context.Background(), dsn, s)
	if err != nil {
		t.Fatal(err)
	}
	if rep.CPU.Read || !strings.Contains(rep.CPU.Why, "not on this machine") {
		t.Errorf("CPU source %+v; want it not read, saying why", rep.CPU)
	}
	for _, ph := range rep.Insert {
		for _, k := range ph.Keys {
			if k.CPUPerRow != nil || k.CPUVsBase != nil {
				t.Errorf("%s, %s: CPU figures without a reading: %+v", ph.Name, k.Key, k)
			}
		}
	}
}
