package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// racingClock runs 300 times faster than real time from the instant in
// shardid_test.base, so the counter is always behind it and nearly every
// call of next_id() jumps the counter: the jump path, its lock and its
// subtransaction are where cancels land.
const racingClock = `(pg_catalog.clock_timestamp() + (pg_catalog.clock_timestamp() - pg_catalog.current_setting('shardid_test.base')::timestamptz) * 300)`

// heldLocks counts the locks the backend pid holds, its own virtual
// transaction id aside: advisory locks (which outlive a transaction) and
// any lock left behind in an open one.
func heldLocks(t testing.TB, db *sql.DB, pid int) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_locks WHERE pid = $1 AND granted AND locktype <> 'virtualxid'`, pid).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCancelMidStream cancels long statements drawing IDs, in turn through
// DEFAULT next_id(), next_id_bulk() and next_ids(1000000), at many
// different moments of their stream while a second session keeps drawing
// IDs with a short lock_timeout: no cancel may leave anything held that
// makes the second session wait for a lock, and every ID either session
// kept is unique. Each cancel is sent once the statement has begun a jump
// (the jump counters, read from another session, say so), a little later
// each time: every cancelled statement ran the jump path, whatever the
// machine's load, and the cancels land all over it. The negative
// controls: a jump that holds a session-level advisory lock, which a
// cancel leaves held, and a body that never jumps, which the test reports
// as not testing the jump path.
func TestCancelMidStream(t *testing.T) {
	if testing.Short() {
		t.Skip("a stress test of several seconds; go test without -short runs it")
	}
	run, err := cancelMidStream(t, 40, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d statements cancelled mid-stream, each after beginning a jump (%d cut a jump short); %d ids kept, 0 duplicates; nothing left held",
		run.cancelled, run.cutShort, run.rows)
	for _, v := range []variant{sessionLockedJump, neverJumps} {
		if _, err := cancelMidStream(t, 40, &v); err == nil {
			t.Fatalf("%s: the test passed; it would not catch that body", v.name)
		} else {
			t.Logf("negative control, %s: %v", v.name, err)
		}
	}
}

var (
	// sessionLockedJump serializes jumps on a session-level advisory
	// lock, taken where the jump takes its lock and let go before it
	// returns: a cancel in between leaves it held.
	sessionLockedJump = variant{"a jump under a session-level advisory lock", func(up string) string {
		up = strings.Replace(up, `LOCK TABLE "cancel".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE;`, "PERFORM pg_catalog.pg_advisory_lock(1397310513, 1);", 1)
		return strings.Replace(up, "RAISE SQLSTATE 'SHR01';", "PERFORM pg_catalog.pg_advisory_unlock(1397310513, 1);\n        RAISE SQLSTATE 'SHR01';", 1)
	}}
	// neverJumps takes the fast path whatever the clock and the jump
	// counters say: IDs stay unique (the counter only goes up) but the
	// jump never runs.
	neverJumps = replacing("a body that never jumps", ") OPERATOR(pg_catalog.=) 0\n        THEN", ") IS NOT NULL\n        THEN")
)

// cancelRun is what cancelMidStream saw.
type cancelRun struct {
	cancelled int   // statements cancelled
	cutShort  int   // cancels that left a jump begun and not done
	rows      int64 // IDs kept
}

// cancelMidStream runs TestCancelMidStream's statements on a fresh
// database, with the generator (schema cancel, shard 20) as rendered, or
// with v applied, and returns what it saw, or the first property that
// failed.
func cancelMidStream(t *testing.T, statements int, v *variant) (cancelRun, error) {
	var run cancelRun
	db, _ := newDB(t)
	sh, o := pgfunc.Shard{Schema: "cancel", ID: 20}, pgfunc.WithClock(pgfunc.Options{}, racingClock)
	if v == nil {
		installWith(t, db, sh, o)
	} else {
		installVariant(t, db, sh, o, *v)
	}
	if _, err := db.Exec("CREATE TABLE cancel.items (id bigint DEFAULT cancel.next_id(), session int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("ALTER DATABASE %s SET shardid_test.base = '%s'", dbNameOf(t, db), time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // new sessions pick up the setting
	db.SetMaxIdleConns(2)
	ctx := context.Background()
	a := newConn(t, db)
	pidA := backendPID(t, a)
	b := newConn(t, db)
	// lock_timeout fires only while b waits for a lock, whatever the load;
	// statement_timeout only keeps a hang from stalling the run.
	if _, err := b.ExecContext(ctx, "SET lock_timeout = '500ms'; SET statement_timeout = '1min'"); err != nil {
		t.Fatal(err)
	}
	// The counter and the jump counters, read from a third session, in
	// this order (a jump begins before the counter moves a third time in
	// a statement): the sequences move whether the statement that moved
	// them commits or not.
	counters := func() (drawn, begun, done int64) {
		t.Helper()
		if err := db.QueryRow(`SELECT coalesce(pg_sequence_last_value('cancel.next_id_seq'), -1),
				pg_sequence_last_value('cancel.next_id_jumps_begun'), pg_sequence_last_value('cancel.next_id_jumps_done')`).Scan(&drawn, &begun, &done); err != nil {
			t.Fatal(err)
		}
		return drawn, begun, done
	}
	cancel := func() {
		t.Helper()
		if _, err := db.Exec("SELECT pg_cancel_backend($1)", pidA); err != nil {
			t.Fatal(err)
		}
	}
	// A target-list SRF streams rows; FROM generate_series would
	// materialize all 5M first and the cancel would land there. next_ids()
	// reserves its IDs in one step, then streams them.
	streams := []string{
		"INSERT INTO cancel.items (session) SELECT 1 FROM (SELECT generate_series(1, 5000000)) g",
		"INSERT INTO cancel.items (id, session) SELECT cancel.next_id_bulk(), 1 FROM (SELECT generate_series(1, 5000000)) g",
		"INSERT INTO cancel.items (id, session) SELECT i, 1 FROM cancel.next_ids(1000000) AS i",
	}
	for i := range statements {
		drawnBefore, begunBefore, _ := counters()
		finished := make(chan error, 1)
		go func() {
			_, err := a.ExecContext(ctx, streams[i%len(streams)])
			finished <- err
		}()
		// With the racing clock the counter is behind at a statement's
		// first draw: next_id() draws once, finds it behind and calls the
		// jump, which draws once more, finds it behind and begins the
		// jump (next_ids() begins its reservation at once). Wait for
		// that, then cancel a little later each time.
		var broken error
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
			drawn, begun, _ := counters()
			if begun > begunBefore {
				time.Sleep(time.Duration(i*7%40) * time.Millisecond)
				break
			}
			if drawn > drawnBefore+2 {
				broken = fmt.Errorf("statement %d moved the counter from %d to %d but began no jump (jumps begun %d before and after): it never ran the jump path", i, drawnBefore, drawn, begun)
				break
			}
			if time.Now().After(deadline) {
				broken = fmt.Errorf("statement %d drew nothing for a minute (counter %d)", i, drawn)
				break
			}
		}
		cancel()
		err := <-finished
		if broken != nil {
			return run, broken
		}
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == "57014": // query_canceled
			run.cancelled++
		case err != nil:
			return run, fmt.Errorf("session a: %w", err)
		default:
			return run, fmt.Errorf("statement %d (%s) finished before its cancel; the test no longer cancels mid-stream", i, streams[i%len(streams)])
		}
		if _, begun, done := counters(); begun != done {
			run.cutShort++ // the cancel landed inside a jump
		}
		if n := heldLocks(t, db, pidA); n != 0 {
			return run, fmt.Errorf("after cancel %d the cancelled session still holds %d lock(s)", i, n)
		}
		// The other session must get IDs without waiting for a lock: a
		// held one would hit lock_timeout.
		if _, err := b.ExecContext(ctx, "INSERT INTO cancel.items (session) SELECT 2 FROM generate_series(1, 200)"); err != nil {
			return run, fmt.Errorf("session b after cancel %d: %w", i, err)
		}
		// And the cancelled session itself carries on.
		if _, err := a.ExecContext(ctx, "INSERT INTO cancel.items (session) SELECT 1 FROM generate_series(1, 50)"); err != nil {
			return run, fmt.Errorf("session a after cancel %d: %w", i, err)
		}
	}
	rows, dups := duplicates(t, db, sh.Schema)
	run.rows = rows
	if dups != 0 {
		return run, fmt.Errorf("%d duplicates among %d ids", dups, rows)
	}
	var begun, done int64
	if err := db.QueryRow("SELECT cancel.next_id(), pg_sequence_last_value('cancel.next_id_jumps_begun'), pg_sequence_last_value('cancel.next_id_jumps_done')").Scan(new(int64), &begun, &done); err != nil {
		t.Fatal(err)
	}
	if begun != done {
		return run, fmt.Errorf("after a later call, jumps begun %d != done %d: an interrupted jump was not completed", begun, done)
	}
	return run, nil
}

// TestInterruptedJumpIsCompleted leaves the shard as a jump cut short
// would (jumps_begun ahead of jumps_done) and checks that calls go on,
// stay unique, and that the next jump completes the state.
func TestInterruptedJumpIsCompleted(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	install(t, db, "cut", 21, pgfunc.ModeUnique)
	var before int64
	if err := db.QueryRow("SELECT cut.next_id()").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("SELECT setval('cut.next_id_jumps_begun', pg_sequence_last_value('cut.next_id_jumps_done') + 1)"); err != nil {
		t.Fatal(err)
	}
	var n, distinct, min int64
	var begun, done int64
	err := db.QueryRow(`SELECT count(*), count(DISTINCT id), min(id),
		pg_sequence_last_value('cut.next_id_jumps_begun'), pg_sequence_last_value('cut.next_id_jumps_done')
		FROM (SELECT cut.next_id() AS id FROM generate_series(1, 10000)) s`).Scan(&n, &distinct, &min, &begun, &done)
	if err != nil {
		t.Fatal(err)
	}
	if n != distinct || min <= before {
		t.Fatalf("after a cut-short jump: %d ids, %d distinct, smallest %d (previous %d)", n, distinct, min, before)
	}
	if begun != done {
		t.Fatalf("jumps begun %d, done %d: the interrupted jump was not completed", begun, done)
	}
}

// TestCrashRestart stops the server with an immediate shutdown (no
// checkpoint, as a crash) right after committing IDs (single rows and
// bursts, through DEFAULT next_id(), next_id_bulk() and next_ids()),
// restarts it, and checks that every ID made after the restart is new.
func TestCrashRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a stress test of several seconds; go test without -short runs it")
	}
	srv := testsrv.NewPG(t, dbserver.PGOptions{}) // crashed below: a server of its own
	dsn := testsrv.Database(t, srv)
	db := testsrv.Open(t, "pgx", dsn)
	sh := install(t, db, "crash", 22, pgfunc.ModeUnique)
	createTable(t, db, sh.Schema)
	for range 3 {
		for i := range 200 {
			q := "INSERT INTO crash.items (session) VALUES (1)"
			switch i % 50 {
			case 0:
				q = "INSERT INTO crash.items (session) SELECT 1 FROM generate_series(1, 5000)"
			case 10:
				q = "INSERT INTO crash.items (id, session) SELECT crash.next_id_bulk(), 1 FROM generate_series(1, 5000)"
			case 20:
				q = "INSERT INTO crash.items (id, session) SELECT i, 1 FROM crash.next_ids(1000) AS i"
			case 30:
				q = "INSERT INTO crash.items (id, session) SELECT crash.next_id_bulk(), 1"
			}
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		if err := srv.Crash(); err != nil {
			t.Fatal(err)
		}
		if err := srv.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		var err error
		db, err = sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
	}
	if _, err := db.Exec("INSERT INTO crash.items (session) SELECT 2 FROM generate_series(1, 5000)"); err != nil {
		t.Fatal(err)
	}
	rows, dups := duplicates(t, db, sh.Schema)
	if dups != 0 {
		t.Fatalf("%d duplicates among %d ids across three crashes", dups, rows)
	}
	var notAfter int64
	if err := db.QueryRow(`SELECT count(*) FROM crash.items WHERE session = 2 AND id <= (SELECT max(id) FROM crash.items WHERE session = 1)`).Scan(&notAfter); err != nil {
		t.Fatal(err)
	}
	if notAfter != 0 {
		t.Fatalf("%d ids made after the last restart are not above every id made before it", notAfter)
	}
	checkShards(t, db, sh)
	t.Logf("three immediate shutdowns and restarts: %d ids, 0 duplicates", rows)
}

// TestTimeFieldExhausted renders a layout whose time field has already run
// out: up refuses it, and applied anyway (as goose would apply a pg gen
// file), every mode must raise a clear error rather than return an ID.
// Each mode has a database of its own: the migration refuses two modes in
// one.
func TestTimeFieldExhausted(t *testing.T) {
	t.Parallel()
	l := shardid.Layout{Name: "tiny", Epoch: time.Now().Add(-3 * time.Second), TimeUnit: time.Millisecond, TimeBits: 11, ShardBits: 4, SeqBits: 4}
	for i, mode := range pgfunc.Modes() {
		db, _ := newDB(t)
		schema := "tiny_" + strings.ReplaceAll(string(mode), "-", "_")
		sh, o := pgfunc.Shard{Schema: schema, ID: int64(i)}, pgfunc.Options{Layout: l, Mode: mode}
		m, err := migrate.New(db, o, migrate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := m.Up(context.Background(), []pgfunc.Shard{sh}, nil); !errors.Is(r[0].Err, pgfunc.ErrLayoutEnds) || r[0].Applied {
			t.Fatalf("%s: up of an ended layout: applied=%v err=%v; want ErrLayoutEnds", mode, r[0].Applied, r[0].Err)
		}
		// The migration refuses it too, before it creates anything; a
		// migration without that check (an earlier release's) installs.
		if _, err := db.Exec(renderedUp(t, sh, o)); sqlState(err) != "SHR07" {
			t.Fatalf("%s: the migration of an ended layout: %v; want SHR07", mode, err)
		}
		installVariant(t, db, sh, o, replacing("without the end check", "IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) '", "IF false AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) '"))
		var id int64
		err = db.QueryRow("SELECT " + schema + ".next_id()").Scan(&id)
		if err == nil {
			t.Fatalf("%s: got id %d from an exhausted time field", mode, id)
		}
		msg := err.Error()
		if !strings.Contains(msg, "exhausted") && !strings.Contains(msg, "clock_within_layout_range") {
			t.Fatalf("%s: unclear error: %v", mode, err)
		}
		t.Logf("%s: %v", mode, err)
	}
}
