package pgfunc_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// TestLayoutEnd: a generator whose layout ends (1 s ticks, 13 sequence
// bits: 8,192 IDs a tick) drawn from, on a test clock, from 3 s before
// its end to after it: every draw that cannot be served fails with
// shardid's "time field exhausted" (SQLSTATE 22003), never with nextval's
// own "reached maximum value" (2200H) or setval's "out of bounds", through
// next_id(), next_id_bulk() and next_ids(n); the IDs handed out are
// distinct and within the layout. (Before: from about the lead before the
// end, draws failed with nextval's raw error.)
//
// A layout with route bits too: there the ID is shifted left past them,
// and a shift does not overflow in PostgreSQL, so a draw past the end
// that reached the splice would come back negative.
func TestLayoutEnd(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"time:28@1s,node:22,seq:13", "time:28@1s,node:18,seq:13,route:4"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			layoutEnd(t, spec)
		})
	}
}

func layoutEnd(t *testing.T, spec string) {
	db, dsn := newDB(t)
	ctx := context.Background()
	l, err := shardid.ParseLayout(spec)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(time.Hour).Truncate(time.Second).UTC()
	l.Epoch = end.Add(-time.Duration(l.MaxTicks()+1) * time.Second)
	if !l.End().Equal(end) {
		t.Fatalf("layout ends at %s; want %s", l.End(), end)
	}
	o := pgfunc.WithLeadWait(pgfunc.WithClock(pgfunc.Options{Layout: l, Lead: 5 * time.Second}, nowClock), 20*time.Millisecond)
	m, err := migrate.New(db, o, migrate.Options{OwnDatabaseOnly: true, AllowMixed: true, EndMargin: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Up(ctx, []pgfunc.Shard{{Schema: "ending", ID: 7}}, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	// Not exhausted an hour before the end, counter drawn or not.
	sm, err := migrate.New(clockAt(t, db, dsn)(end.Add(-time.Hour)), o, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := sm.Status(ctx, []pgfunc.Shard{{Schema: "ending", ID: 7}}); err != nil || len(st) != 1 || st[0].Exhausted {
		t.Fatalf("status an hour before the end: %+v, %v; want not exhausted", st, err)
	}
	conn := newConn(t, db)
	seen := map[int64]bool{}
	exhausted := 0
	for i, clock := 0, end.Add(-3*time.Second); clock.Before(end.Add(2 * time.Second)); i, clock = i+1, clock.Add(250*time.Millisecond) {
		setNow(t, conn, clock)
		fn := []string{"ending.next_id()", "ending.next_id_bulk()", "ending.next_ids(3000)"}[i%3]
		q := fmt.Sprintf("SELECT %s FROM generate_series(1, 3000)", fn)
		if strings.HasPrefix(fn, "ending.next_ids") {
			q = "SELECT " + fn
		}
		ids, err := queryInt64s(conn, q)
		switch {
		case err == nil:
		case sqlState(err) == "22003" && strings.Contains(err.Error(), "time field exhausted"):
			exhausted++
			continue
		case sqlState(err) == pgfunc.LeadExceededState:
			continue
		default:
			t.Fatalf("%s at %s (end %s): %v; want IDs or \"time field exhausted\"", fn, clock, end, err)
		}
		for _, id := range ids {
			if seen[id] || id < 0 || id > l.MaxID() {
				t.Fatalf("%s at %s: ID %d repeated or outside the layout (max %d)", fn, clock, id, l.MaxID())
			}
			seen[id] = true
		}
	}
	if exhausted == 0 || len(seen) == 0 {
		t.Fatalf("%d IDs, %d draws exhausted: the test wants both", len(seen), exhausted)
	}
	t.Logf("%d IDs handed out, %d statements refused as exhausted", len(seen), exhausted)
	// Status reports the generator exhausted past the end.
	for _, c := range []struct {
		at   time.Time
		want bool
	}{{end.Add(time.Second), true}} {
		sm, err := migrate.New(clockAt(t, db, dsn)(c.at), o, migrate.Options{OwnDatabaseOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		st, err := sm.Status(ctx, []pgfunc.Shard{{Schema: "ending", ID: 7}})
		if err != nil || len(st) != 1 || st[0].Exhausted != c.want {
			t.Fatalf("status at %s (end %s): %+v, %v; want Exhausted %v", c.at, end, st, err, c.want)
		}
	}
}

// TestLayoutEndRace: sessions drawing at once at the very end of a layout
// all hear "time field exhausted". The counter is first driven to the last
// ID's units; then 6 sessions draw through next_id() together, each draw
// past the end going to the jump, which raises and puts the counter back.
// A session that draws while another's jump has not yet put it back takes
// the next value past the end, which the counter's room (a tick's worth)
// holds: with the room of one value, those draws met nextval's own
// "reached maximum value" (2200H) instead.
//
// Also with 2 sequence bits, where a room of one tick (4 values) was
// overrun by 6 sessions.
func TestLayoutEndRace(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"time:28@1s,node:22,seq:13", "time:28@1s,node:33,seq:2"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			layoutEndRace(t, spec)
		})
	}
}

func layoutEndRace(t *testing.T, spec string) {
	db, _ := newDB(t)
	ctx := context.Background()
	l, err := shardid.ParseLayout(spec)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(time.Hour).Truncate(time.Second).UTC()
	l.Epoch = end.Add(-time.Duration(l.MaxTicks()+1) * time.Second)
	o := pgfunc.WithLeadWait(pgfunc.WithClock(pgfunc.Options{Layout: l, Lead: 5 * time.Second}, nowClock), 20*time.Millisecond)
	m, err := migrate.New(db, o, migrate.Options{OwnDatabaseOnly: true, AllowMixed: true, EndMargin: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Up(ctx, []pgfunc.Shard{{Schema: "racing", ID: 3}}, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	at := end.Add(-500 * time.Millisecond)
	exhausted := func(err error) bool {
		return sqlState(err) == "22003" && strings.Contains(err.Error(), "time field exhausted")
	}
	// Up to the end: one transaction with an id (its bound is the lead),
	// drawing more than the last tick holds.
	fill := newConn(t, db)
	setNow(t, fill, at)
	if _, err := queryInt64s(fill, fmt.Sprintf("SELECT racing.next_id_bulk() FROM pg_catalog.generate_series(1, %d) WHERE pg_catalog.pg_current_xact_id() IS NOT NULL", 3*(l.MaxSeq()+1))); !exhausted(err) {
		t.Fatalf("filling the last tick: %v; want \"time field exhausted\"", err)
	}
	const sessions, draws = 6, 200
	errs := make(chan error, sessions*draws)
	var wg sync.WaitGroup
	for i := 0; i < sessions; i++ {
		conn := newConn(t, db)
		setNow(t, conn, at)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < draws; j++ {
				var id int64
				errs <- conn.QueryRowContext(ctx, "SELECT racing.next_id()").Scan(&id)
			}
		}()
	}
	wg.Wait()
	close(errs)
	other := map[string]int{}
	n := 0
	for err := range errs {
		n++
		if !exhausted(err) {
			other[fmt.Sprint(err)]++
		}
	}
	if len(other) > 0 {
		t.Fatalf("%d draws at the end, the ones not refused as exhausted: %v", n, other)
	}
	t.Logf("%d draws by %d sessions at once, every one refused as exhausted", n, sessions)
}
