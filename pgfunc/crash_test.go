package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCrashKeepsReadOnlyDraws: IDs handed out by read-only autocommit
// SELECTs must not come back after a crash. A nextval logs the counter 32
// values ahead, and only the session that wrote that record has to flush
// it; the others commit without a transaction id and flush nothing. So:
// run the counter far ahead of the clock (js53, a bulk statement), take a
// checkpoint (the next draw logs the counter anew), stall the WAL writer
// (as under an I/O stall), let session A draw in an open transaction (it
// writes the record) and session B draw five IDs in autocommit SELECTs of
// each of next_id() and next_id_bulk(), recorded client-side, then kill
// A's backend (as the OOM killer would)
// and the WAL writer: the server resets and recovers from the WAL on disk.
// No ID B was given may be drawn again. The negative control runs the
// same steps on the body without the durable path and must see B's IDs
// again. (next_ids() is not among B's draws: its reservation's setval
// gives its transaction a WAL record of its own, whose commit flushes the
// WAL, every earlier draw's record included.)
func TestCrashKeepsReadOnlyDraws(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and crashes servers of its own")
	}
	cases := []struct {
		name string
		v    *variant
	}{
		{"unique", nil},
		{"negative control: " + withoutDurability.name, &withoutDurability},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The steps only show something while B's IDs are still
			// ahead of the clock when the server is back: once the
			// clock has passed them, draws after the crash jump to the
			// clock and no repeat is possible with or without the
			// durable path. A busy machine can spend the 19.5 s the
			// burst ran ahead; such a run proves nothing either way and
			// is run again (three tries), never counted as a pass.
			var given, again []int64
			var recovery, left time.Duration
			for try := 1; ; try++ {
				given, again, recovery, left = crashAfterReadOnlyDraws(t, tc.v)
				if left > 0 {
					break
				}
				if try == 3 {
					t.Fatalf("in %d tries the clock passed B's IDs before the server was back (%v after the last): the steps could not be judged", try, -left)
				}
				t.Logf("try %d: the clock passed B's IDs before the server was back (%v after the last); again", try, -left)
			}
			t.Logf("kill -9 of a backend to the next next_id() that succeeded: %v; B's last ID still %v ahead of the clock", recovery.Round(time.Millisecond), left.Round(time.Millisecond))
			switch {
			case tc.v == nil && len(again) > 0:
				t.Fatalf("IDs given to autocommit SELECTs before the crash were drawn again after it: %v (of %v)", again, given)
			case tc.v != nil && len(again) == 0:
				t.Fatalf("%s: none of %v came back; the test would not catch a lost WAL record", tc.v.name, given)
			case tc.v != nil:
				t.Logf("%s: %d of the %d IDs given before the crash were drawn again after it", tc.v.name, len(again), len(given))
			default:
				t.Logf("none of the %d IDs given before the crash came back among the IDs drawn after it", len(given))
			}
		})
	}
}

// crashAfterReadOnlyDraws runs the steps of TestCrashKeepsReadOnlyDraws on
// a server of its own, with the generator as rendered or changed by v. It
// returns the IDs B was given, those of them drawn again after the crash,
// how long the server took from the kill to the first next_id() that
// succeeded, and how far B's last ID was then still ahead of the server's
// clock (not above zero: the clock had passed it).
func crashAfterReadOnlyDraws(t *testing.T, v *variant) (given, again []int64, recovery, left time.Duration) {
	srv := testsrv.NewPG(t, dbserver.PGOptions{Settings: map[string]string{
		"autovacuum":            "off", // nothing else writes and flushes
		"bgwriter_lru_maxpages": "0",   // nor writes a page (which flushes the WAL up to it)
	}})
	dsn := testsrv.Database(t, srv)
	db := testsrv.Open(t, "pgx", dsn)
	ctx := context.Background()
	sh := pgfunc.Shard{Schema: "crash", ID: 7}
	// A lead of 30 s lets the burst below run that far ahead of the clock
	// at once (the default 5 s would make it wait for the clock).
	o := pgfunc.Options{Layout: shardid.JS53(), Lead: 30 * time.Second}
	if v == nil {
		installWith(t, db, sh, o)
	} else {
		installVariant(t, db, sh, o, *v)
	}
	// 500,000 IDs are 19.5 s of js53 ticks (256 per 10 ms): far more than
	// the statement and the recovery take, so every ID below is ahead of
	// the clock, before the crash and after it.
	var ahead float64
	if err := db.QueryRow(`SELECT extract(epoch FROM crash.id_timestamp(max(id)) - clock_timestamp())
		FROM (SELECT crash.next_id() AS id FROM generate_series(1, 500000)) s`).Scan(&ahead); err != nil {
		t.Fatal(err)
	}
	if ahead < 5 {
		t.Fatalf("the counter is only %.1fs ahead of the clock after 500,000 IDs", ahead)
	}
	if _, err := db.Exec("CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	var walwriter int
	if err := db.QueryRow("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'").Scan(&walwriter); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(walwriter, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the WAL writer: %v", err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = syscall.Kill(walwriter, syscall.SIGCONT)
		}
	}()
	a := newConn(t, db)
	pidA := backendPID(t, a)
	if _, err := a.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "SELECT crash.next_id()"); err != nil {
		t.Fatal(err)
	}
	b := newConn(t, db)
	for _, q := range []string{"SELECT crash.next_id()", "SELECT crash.next_id_bulk()"} {
		for range 5 {
			var id int64
			if err := b.QueryRowContext(ctx, q).Scan(&id); err != nil {
				t.Fatal(err)
			}
			given = append(given, id)
		}
	}
	for _, pid := range []int{pidA, walwriter} {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill %d: %v", pid, err)
		}
	}
	killed = true
	start := time.Now()
	after := afterRecovery(t, dsn, "SELECT crash.next_id() FROM generate_series(1, 20000)")
	recovery = time.Since(start)
	for _, id := range given {
		if slices.Contains(after, id) {
			again = append(again, id)
		}
	}
	var still float64
	if err := testsrv.Open(t, "pgx", dsn).QueryRow(`SELECT extract(epoch FROM crash.id_timestamp($1) - clock_timestamp())`, slices.Max(given)).Scan(&still); err != nil {
		t.Fatal(err)
	}
	return given, again, recovery, time.Duration(still * float64(time.Second))
}

// afterRecovery connects to dsn until the server accepts queries again
// (it is resetting and replaying its WAL) and returns the bigint column
// query gives, from its first run that succeeded.
func afterRecovery(t *testing.T, dsn, query string) []int64 {
	t.Helper()
	db := testsrv.Open(t, "pgx", dsn)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err := queryInt64s(db, query)
		if err == nil {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not come back from the crash: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// querier is a pool or a connection of its own.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryInt64s runs query and returns its single bigint column, of at
// least one row.
func queryInt64s(db querier, query string) ([]int64, error) {
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no rows")
	}
	return out, nil
}

// TestDurablePathTakenOnce checks, with the clock stopped and PostgreSQL's
// own count of function calls per transaction, when next_id() takes its
// slow path to make a transaction durable: for a draw further ahead of the
// clock than ShortTick in a transaction without a transaction id, once (it
// then has one); never for a draw within ShortTick of the clock (where a
// jump lands) with ticks up to ShortTick; for every first draw not behind
// the clock with longer ticks. The body without the durable path (the
// negative control) leaves the ahead draw's transaction without a
// transaction id.
func TestDurablePathTakenOnce(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	conn := newConn(t, db)
	mustExec(t, conn, "SET track_functions = 'pl'")
	mustExec(t, conn, "SELECT set_config('shardid_test.now', $1, false)", time.Now().UTC().Format(time.RFC3339Nano))
	long := shardid.Instagram()
	long.TimeUnit = 100 * time.Millisecond
	shards := []struct {
		sh     pgfunc.Shard
		o      pgfunc.Options
		broken bool
	}{
		{pgfunc.Shard{Schema: "dur", ID: 100}, pgfunc.Options{}, false},
		{pgfunc.Shard{Schema: "dur_long", ID: 101}, pgfunc.Options{Layout: long}, false},
		{pgfunc.Shard{Schema: "dur_broken", ID: 102}, pgfunc.Options{}, true},
	}
	for _, s := range shards {
		o := pgfunc.WithClock(s.o, nowClock)
		if s.broken {
			installVariant(t, db, s.sh, o, withoutDurability)
		} else {
			installWith(t, db, s.sh, o)
		}
	}
	// step draws n IDs from schema in a transaction of its own and returns
	// how many times it took the slow path and whether it ended with a
	// transaction id.
	ids := map[string]int64{}
	for _, s := range shards {
		ids[s.sh.Schema] = s.sh.ID
	}
	step := func(schema string, n int) (slow int64, xid bool) {
		t.Helper()
		// The counts are this backend's not yet reported to the
		// statistics, which grow over transactions: take the difference.
		calls := fmt.Sprintf("coalesce(pg_stat_get_xact_function_calls('%s.next_id_jump_%d'::regproc), 0)", schema, ids[schema])
		var before int64
		mustExec(t, conn, "BEGIN")
		defer mustExec(t, conn, "COMMIT")
		if err := conn.QueryRowContext(ctx, "SELECT "+calls).Scan(&before); err != nil {
			t.Fatal(err)
		}
		mustExec(t, conn, fmt.Sprintf("SELECT count(%s.next_id()) FROM generate_series(1, %d)", schema, n))
		if err := conn.QueryRowContext(ctx, "SELECT "+calls+", pg_current_xact_id_if_assigned() IS NOT NULL").Scan(&slow, &xid); err != nil {
			t.Fatal(err)
		}
		return slow - before, xid
	}
	expect := func(what, schema string, n int, wantSlow int64, wantXID bool) {
		t.Helper()
		if slow, xid := step(schema, n); slow != wantSlow || xid != wantXID {
			t.Errorf("%s: %s, %d draws: %d slow-path calls, transaction id %v; want %d, %v", schema, what, n, slow, xid, wantSlow, wantXID)
		}
	}
	expect("the first draw jumps 8 ticks past the clock's", "dur", 1, 1, true)
	// (Whether this one gets a transaction id depends on whether its
	// nextval logs the counter, as the first after a checkpoint does.)
	if slow, _ := step("dur", 1); slow != 0 {
		t.Errorf("dur: a draw within ShortTick of the clock took the slow path %d times", slow)
	}
	// The rest of the 10 ticks within ShortTick, then values further
	// ahead; the statement's own nextval logs the counter (every 32
	// values) long before, which gives it a transaction id and WAL.
	expect("a burst past ShortTick", "dur", 4000, 0, true)
	expect("a draw further ahead than ShortTick", "dur", 1, 1, true)
	expect("draws further ahead than ShortTick", "dur", 3, 1, true)
	expect("the first draw jumps to the clock", "dur_long", 1, 1, true)
	expect("a draw in the clock's tick of 100ms", "dur_long", 1, 1, true)
	expect("the first draw jumps 8 ticks past the clock's", "dur_broken", 1, 1, true)
	expect("a burst past ShortTick", "dur_broken", 4000, 0, true)
	if slow, xid := step("dur_broken", 1); slow != 0 || xid {
		t.Fatalf("%s: a draw ahead of the clock: %d slow-path calls, transaction id %v; the test would not catch a missing durable path", withoutDurability.name, slow, xid)
	}
}
