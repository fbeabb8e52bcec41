package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// TestNobodyCanStallJumps: a role with no rights on the shard's schema
// holds every lock it can take, and the application's own role (what
// shardid pg grant gives it) holds what it can take on the jump lock's
// table without any privilege on it, while a session whose clock races
// ahead (so that every call jumps) draws IDs under a lock_timeout of
// 200 ms: no jump may wait for any of them. The negative control, the
// jump serialized on the advisory lock it used before, must time out.
func TestNobodyCanStallJumps(t *testing.T) {
	t.Parallel()
	for _, v := range []*variant{nil, ptr(advisoryJumpLock("stall_broken"))} {
		schema := "stall"
		if v != nil {
			schema = "stall_broken"
		}
		jumps, err := drawWhileLocksAreHeld(t, schema, v)
		switch {
		case v == nil && err != nil:
			t.Fatalf("next_id() waited for a lock held by a role without rights on %s: %v", schema, err)
		case v == nil:
			t.Logf("%d jumps, none waited, while others held every lock they could take", jumps)
		case !isLockTimeout(err):
			t.Fatalf("%s: draws did not wait (err %v); the test would not catch a lock anyone can hold", v.name, err)
		default:
			t.Logf("negative control, %s: %v", v.name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// drawWhileLocksAreHeld installs a generator in schema (changed by v if not
// nil) with a racing clock, has a role without rights and the application
// role hold what locks they can, draws 2,000 IDs under a lock_timeout of
// 200 ms, and returns how many jumps the draws made and the error that
// ended them, if any.
func drawWhileLocksAreHeld(t *testing.T, schema string, v *variant) (jumps int64, err error) {
	db, dsn := newDB(t)
	ctx := context.Background()
	sh := pgfunc.Shard{Schema: schema, ID: 60}
	o := pgfunc.WithClock(pgfunc.Options{}, racingClock)
	if v == nil {
		installWith(t, db, sh, o)
	} else {
		installVariant(t, db, sh, o, *v)
	}
	if _, err := db.Exec(fmt.Sprintf("ALTER DATABASE %s SET shardid_test.base = '%s'", dbNameOf(t, db), time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
		t.Fatal(err)
	}
	nobody := newRole(t, db, "nobody", "")
	app := newRole(t, db, "app", "")
	if _, err := privilege.Grant(ctx, db, []pgfunc.Shard{sh}, app, nil); err != nil {
		t.Fatal(err)
	}

	// The role without rights: advisory locks on the keys jumps used to
	// take and on goose's lock for the schema, and, in an open transaction,
	// ACCESS SHARE on each of the schema's relations by OID (the size
	// functions need no privilege).
	n := asRole(t, dsn, nobody)
	mustExec(t, n, fmt.Sprintf("SELECT pg_advisory_lock(1397310513, k) FROM generate_series(0, 63) k; SELECT pg_advisory_lock(%d)", migrate.LockID(schema)))
	mustExec(t, n, "BEGIN")
	mustExec(t, n, "SELECT pg_relation_size(c.oid) FROM pg_class c WHERE c.relnamespace = $1::regnamespace", schema)
	for _, stmt := range []string{"LOCK TABLE " + schema + ".next_id_jump_lock IN ACCESS SHARE MODE", "SELECT * FROM " + schema + ".next_id_jump_lock FOR UPDATE"} {
		if _, err := n.ExecContext(ctx, "SAVEPOINT s; "+stmt); err == nil {
			t.Fatalf("a role without rights ran %q", stmt)
		}
		mustExec(t, n, "ROLLBACK TO SAVEPOINT s")
	}
	// And meanwhile, from another session, the same size functions in a loop.
	loop := asRole(t, dsn, nobody)
	loopCtx, stopLoop := context.WithCancel(ctx)
	defer stopLoop()
	go func() {
		_, _ = loop.ExecContext(loopCtx, "SELECT count(pg_relation_size(c.oid)) FROM pg_class c, generate_series(1, 1000000) WHERE c.relnamespace = $1::regnamespace", schema)
	}()

	// The application role, in an open transaction: PREPARE takes the
	// locks of an INSERT and of a SELECT ... FOR UPDATE on the jump lock's
	// table when it parses them, without checking any privilege.
	a := asRole(t, dsn, app)
	mustExec(t, a, "BEGIN")
	mustExec(t, a, "PREPARE ins AS INSERT INTO "+schema+".next_id_jump_lock DEFAULT VALUES")
	mustExec(t, a, "PREPARE upd AS SELECT * FROM "+schema+".next_id_jump_lock FOR UPDATE")
	var held int
	if err := db.QueryRow(`SELECT count(*) FROM pg_locks WHERE granted AND (locktype = 'advisory' OR relation IN
		(SELECT oid FROM pg_class WHERE relnamespace = $1::regnamespace))`, schema).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held < 64+1+2 {
		t.Fatalf("only %d locks held; the test holds fewer than it means to", held)
	}

	d := asRole(t, dsn, app)
	mustExec(t, d, "SET lock_timeout = '200ms'")
	before := jumpsDone(t, db, schema)
	_, err = d.ExecContext(ctx, "SELECT count("+schema+".next_id()) FROM generate_series(1, 2000)")
	return jumpsDone(t, db, schema) - before, err
}

// mustExec runs a statement on conn and fails the test on error.
func mustExec(t *testing.T, conn *sql.Conn, query string, args ...any) {
	t.Helper()
	if _, err := conn.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// jumpsDone reads schema's jumps_done counter.
func jumpsDone(t *testing.T, db *sql.DB, schema string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow("SELECT pg_sequence_last_value($1::regclass)", schema+".next_id_jumps_done").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
