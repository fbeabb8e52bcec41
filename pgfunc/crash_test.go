package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/pgserver"
	"github.com/shardid/shardid/internal/testsrv"
	"github.com/shardid/shardid/pgfunc"
)

// TestCrashKeepsReadOnlyDraws: IDs handed out by read-only autocommit
// SELECTs must not come back after a crash. A nextval logs the counter 32
// values ahead, and only the session that wrote that record has to flush
// it; the others commit without a transaction id and flush nothing. So:
// run the counter far ahead of the clock (js53, a bulk statement), take a
// checkpoint (the next draw logs the counter anew), stall the WAL writer
// (as under an I/O stall), let session A draw in an open transaction (it
// writes the record) and session B draw five IDs in autocommit SELECTs,
// recorded client-side, then kill A's backend (as the OOM killer would)
// and the WAL writer: the server resets and recovers from the WAL on disk.
// No ID B was given may be drawn again. The negative control runs the
// same steps on the body without the durable path and must see B's IDs
// again.
func TestCrashKeepsReadOnlyDraws(t *testing.T) {
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
			given, again, recovery := crashAfterReadOnlyDraws(t, tc.v)
			t.Logf("kill -9 of a backend to the next next_id() that succeeded: %v", recovery.Round(time.Millisecond))
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
// and how long the server took from the kill to the first next_id() that
// succeeded.
func crashAfterReadOnlyDraws(t *testing.T, v *variant) (given, again []int64, recovery time.Duration) {
	srv := testsrv.NewPG(t, pgserver.Options{Settings: map[string]string{
		"autovacuum":            "off", // nothing else writes and flushes
		"bgwriter_lru_maxpages": "0",   // nor writes a page (which flushes the WAL up to it)
	}})
	dsn := testsrv.Database(t, srv)
	db := testsrv.Open(t, "pgx", dsn)
	ctx := context.Background()
	sh := pgfunc.Shard{Schema: "crash", ID: 7}
	o := pgfunc.Options{Layout: shardid.JS53()}
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
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var pidA int
	if err := a.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pidA); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "SELECT crash.next_id()"); err != nil {
		t.Fatal(err)
	}
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for range 5 {
		var id int64
		if err := b.QueryRowContext(ctx, "SELECT crash.next_id()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		given = append(given, id)
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
	return given, again, recovery
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
		time.Sleep(20 * time.Millisecond)
	}
}

// queryInt64s runs query and returns its single bigint column.
func queryInt64s(db *sql.DB, query string) ([]int64, error) {
	rows, err := db.Query(query)
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
