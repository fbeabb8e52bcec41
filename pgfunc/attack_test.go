package pgfunc_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
)

// nowClock is next_id()'s clock in the tests that stop time: the instant
// in shardid_test.now, set per session.
const nowClock = `(pg_catalog.current_setting('shardid_test.now'))::timestamptz`

// TestFakedJumpBookkeeping makes, step by step, the race the jump
// counters guard against, with an attacker holding broad grants (USAGE
// on all the schema's sequences). A jump is made by hand, as the jump function makes it, under
// the jump lock: it bumps jumps_begun and reads the counter; the attacker
// calls nextval on jumps_done to make the counters look equal; a session
// draws; the jump moves the counter back to the value after the one it
// read and draws it. The draw, through next_id() and through
// next_id_bulk(), must never equal the jump's. Jump counters that step by
// one (the negative control) let the attacker fake them, and the draw is
// handed out twice.
func TestFakedJumpBookkeeping(t *testing.T) {
	t.Parallel()
	for _, fn := range []string{"next_id", "next_id_bulk"} {
		for _, v := range []*variant{nil, &jumpCountersStepOne} {
			drawn, jumped, schema := drawDuringFakedJump(t, v, fn)
			switch {
			case v == nil && drawn == jumped:
				t.Fatalf("%s.%s(): a draw during a jump was handed out again by the jump: %d", schema, fn, drawn)
			case v == nil:
				t.Logf("%s.%s(): the draw during the jump (%d) waited for it and differs from the jump's (%d)", schema, fn, drawn, jumped)
			case drawn != jumped:
				t.Fatalf("%s, %s(): %d and %d differ; the test would not catch faked jump counters", v.name, fn, drawn, jumped)
			default:
				t.Logf("negative control, %s, %s(): the draw during the jump and the jump's own both gave %d", v.name, fn, drawn)
			}
		}
	}
}

// drawDuringFakedJump runs the steps of TestFakedJumpBookkeeping, drawing
// with function fn, and returns the ID the session drew during the jump
// and the jump's own.
func drawDuringFakedJump(t *testing.T, v *variant, fn string) (drawn, jumped int64, schema string) {
	db, dsn := newDB(t)
	ctx := context.Background()
	sh := pgfunc.Shard{Schema: "fake", ID: 90}
	o := pgfunc.WithClock(pgfunc.Options{}, nowClock)
	if v == nil {
		installWith(t, db, sh, o)
	} else {
		sh.Schema = "fake_broken"
		installVariant(t, db, sh, o, *v)
	}
	s := sh.Schema
	att := newRole(t, db, "att", "")
	if _, err := db.Exec(fmt.Sprintf("GRANT USAGE ON SCHEMA %[1]s TO %[2]s; GRANT USAGE ON ALL SEQUENCES IN SCHEMA %[1]s TO %[2]s", s, att)); err != nil {
		t.Fatal(err)
	}
	d := asRole(t, dsn, att)
	pidD := backendPID(t, d)
	mustExec(t, d, "SELECT set_config('shardid_test.now', $1, false)", time.Now().UTC().Format(time.RFC3339Nano))
	mustExec(t, d, "SELECT "+s+"."+fn+"()") // the counter jumps to the clock
	mustExec(t, d, "SELECT "+s+"."+fn+"()") // and this one is current

	j := newConn(t, db)
	mustExec(t, j, "BEGIN")
	mustExec(t, j, "LOCK TABLE "+s+".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE")
	var begun, done, last int64
	if err := j.QueryRowContext(ctx, fmt.Sprintf(`SELECT pg_sequence_last_value('%[1]s.next_id_jumps_begun'),
		pg_sequence_last_value('%[1]s.next_id_jumps_done'), pg_sequence_last_value('%[1]s.next_id_seq')`, s)).Scan(&begun, &done, &last); err != nil {
		t.Fatal(err)
	}
	if begun != done {
		t.Fatalf("jump counters %d and %d differ before the jump", begun, done)
	}
	mustExec(t, j, fmt.Sprintf("SELECT setval('%s.next_id_jumps_begun', %d)", s, begun+1))

	a := asRole(t, dsn, att)
	mustExec(t, a, fmt.Sprintf("SELECT nextval('%s.next_id_jumps_done')", s))

	type result struct {
		id  int64
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		r.err = d.QueryRowContext(ctx, "SELECT "+s+"."+fn+"()").Scan(&r.id)
		ch <- r
	}()
	// The draw either returns (its test passed) or waits for the jump
	// lock (it took the slow path); wait for one or the other.
	var early *result
	for stop := time.Now().Add(time.Minute); early == nil; {
		if time.Now().After(stop) {
			t.Fatal("the draw during the jump neither returned nor waited for a lock")
		}
		select {
		case r := <-ch:
			early = &r
		case <-time.After(10 * time.Millisecond):
		}
		var waiting bool
		if err := db.QueryRow("SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1", pidD).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
	}
	var w int64
	if err := j.QueryRowContext(ctx, fmt.Sprintf("SELECT setval('%[1]s.next_id_seq', %[2]d, false), nextval('%[1]s.next_id_seq')", s, last+1)).Scan(new(int64), &w); err != nil {
		t.Fatal(err)
	}
	mustExec(t, j, fmt.Sprintf("SELECT setval('%s.next_id_jumps_done', %d)", s, begun+1))
	mustExec(t, j, "COMMIT")
	r := early
	if r == nil {
		rr := <-ch
		r = &rr
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	l := shardid.Instagram()
	jumped, err := l.ComposeTicks(w>>l.SeqBits, sh.ID, w&l.MaxSeq())
	if err != nil {
		t.Fatal(err)
	}
	return r.id, jumped, s
}

// TestAttackerUnderGrantedRole: while sessions draw IDs with jumps all
// the time, a role with exactly what shardid pg grant gives tries, in a
// loop, everything that could fake the bookkeeping, move a counter or
// hold the jump lock, and, on a connection of its own, draws with what it
// may: next_ids(100), next_id_bulk() and raw nextval on the counter. Every
// attempt must be refused, and every ID unique, the role's own included.
func TestAttackerUnderGrantedRole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 3 s")
	}
	t.Parallel()
	db, dsn := newDB(t)
	db.SetMaxOpenConns(8)
	sh := install(t, db, "attacked", 91, pgfunc.ModeUnique)
	createTable(t, db, sh.Schema)
	att := newRole(t, db, "att", "")
	grantOK(t, db, att, sh)
	s := sh.Schema
	attacks := []string{
		"SELECT setval('" + s + ".next_id_seq', 1)",
		"ALTER SEQUENCE " + s + ".next_id_seq RESTART",
		"LOCK TABLE " + s + ".next_id_jump_lock IN ACCESS EXCLUSIVE MODE",
		"LOCK TABLE " + s + ".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE",
		"SELECT * FROM " + s + ".next_id_jump_lock FOR UPDATE",
		"TRUNCATE " + s + ".next_id_jump_lock",
		"CREATE TRIGGER t BEFORE INSERT ON " + s + ".next_id_jump_lock EXECUTE FUNCTION suppress_redundant_updates_trigger()",
	}
	for _, seq := range []string{"next_id_jumps_begun", "next_id_jumps_done"} {
		attacks = append(attacks,
			fmt.Sprintf("SELECT nextval('%s.%s')", s, seq),
			fmt.Sprintf("SELECT setval('%[1]s.%[2]s', pg_sequence_last_value('%[1]s.%[2]s') + 1)", s, seq),
			fmt.Sprintf("SELECT setval('%[1]s.%[2]s', pg_sequence_last_value('%[1]s.%[3]s'))", s, seq, map[string]string{
				"next_id_jumps_begun": "next_id_jumps_done", "next_id_jumps_done": "next_id_jumps_begun"}[seq]),
			fmt.Sprintf("ALTER SEQUENCE %s.%s INCREMENT BY 1", s, seq))
	}
	ctx := context.Background()
	attacker := asRole(t, dsn, att)
	// Holding the advisory key jumps used to take is allowed, and harmless.
	mustExec(t, attacker, "SELECT pg_advisory_lock(1397310513, $1)", sh.ID)
	deadline := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	var own []int64 // the role's draws
	drawer := asRole(t, dsn, att)
	wg.Go(func() {
		for time.Now().Before(deadline) {
			for _, q := range []string{
				"SELECT * FROM " + s + ".next_ids(100)",
				"SELECT " + s + ".next_id_bulk() FROM generate_series(1, 100)",
			} {
				ids, err := queryInt64s(drawer, q)
				if err != nil {
					errs <- fmt.Errorf("the granted role's draw: %w", err)
					return
				}
				own = append(own, ids...)
			}
			if _, err := drawer.ExecContext(ctx, "SELECT count(nextval('"+s+".next_id_seq')) FROM generate_series(1, 100)"); err != nil {
				errs <- fmt.Errorf("the granted role's nextval: %w", err)
				return
			}
		}
	})
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for i := 0; time.Now().Before(deadline); i++ {
				q := "INSERT INTO " + s + ".items (session) VALUES ($1)"
				if i%20 == 0 {
					q = "INSERT INTO " + s + ".items (session) SELECT $1 FROM generate_series(1, 2000)"
				}
				if _, err := conn.ExecContext(ctx, q, c); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	tries := 0
	for time.Now().Before(deadline) {
		for _, q := range attacks {
			tries++
			if _, err := attacker.ExecContext(ctx, "BEGIN; "+q); !isDenied(err) {
				t.Errorf("the granted role ran %q: %v", q, err)
			}
			mustExec(t, attacker, "ROLLBACK")
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows, dups := duplicates(t, db, s)
	if dups != 0 {
		t.Fatalf("%d duplicates among %d rows while the granted role attacked", dups, rows)
	}
	ids, err := queryInt64s(db, "SELECT id FROM "+s+".items")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, id := range append(ids, own...) {
		if seen[id] {
			t.Fatalf("ID %d handed out twice among the rows and the granted role's own %d draws", id, len(own))
		}
		seen[id] = true
	}
	var jumps int64
	if err := db.QueryRow("SELECT pg_sequence_last_value($1::regclass)", s+".next_id_jumps_done").Scan(&jumps); err != nil {
		t.Fatal(err)
	}
	if jumps == 0 { // how many fit in the time depends on the machine's load
		t.Fatalf("no jumps: the attack did not race jumps")
	}
	t.Logf("%d attempts refused; %d rows and the role's own %d draws, 0 duplicates, %d jumps", tries, rows, len(own), jumps)
}
