package pgfunc_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// geneSpec is the order-ID layout of the Snowflake-layout article: 41 bits
// of ms, 6 of node, 12 of sequence, 4 of route (uid & 15).
const geneSpec = "time:41,node:6,seq:12,route:4"

func geneLayout(t testing.TB, epoch string) shardid.Layout {
	t.Helper()
	l, err := shardid.ParseLayoutEpoch(geneSpec, epoch)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestGoldenRoute pins the migration of a layout with a route field.
func TestGoldenRoute(t *testing.T) {
	got, err := pgfunc.Render(pgfunc.Shard{Schema: "orders1", ID: 1}, pgfunc.Options{Layout: geneLayout(t, "")})
	if err != nil {
		t.Fatal(err)
	}
	testsrv.CheckGolden(t, filepath.Join("testdata", "gene-route4_unique.sql"), got)
}

// TestRouteGeneExample: the article's worked example (epoch 0, node 1,
// uid 1820 and 5177331) decodes in SQL as in Go, and next_id(uid) on node
// 1 makes IDs that route like their uid, decoded by the same helpers.
func TestRouteGeneExample(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	l := geneLayout(t, "0")
	sh := installWith(t, db, pgfunc.Shard{Schema: "orders1", ID: 1}, pgfunc.Options{Layout: l})
	for _, tc := range []struct {
		id    int64
		route int64
	}{{6593741087309889548, 1820 & 15}, {6593741087309889539, 5177331 & 15}} {
		var ts time.Time
		var shard, seq, route int64
		if err := db.QueryRow("SELECT orders1.id_timestamp($1), orders1.id_shard($1), orders1.id_seq($1), orders1.id_route($1)", tc.id).Scan(&ts, &shard, &seq, &route); err != nil {
			t.Fatal(err)
		}
		if !ts.Equal(time.Date(2019, 10, 26, 6, 13, 1, 0, time.UTC)) || shard != 1 || seq != 0 || route != tc.route {
			t.Fatalf("SQL decode of %d: %s shard %d seq %d route %d", tc.id, ts.UTC(), shard, seq, route)
		}
		if p, err := l.Decompose(tc.id); err != nil || !p.Time.Equal(ts) || p.Shard != shard || p.Seq != seq || p.Route != route {
			t.Fatalf("Go decode of %d: %+v, %v", tc.id, p, err)
		}
	}
	for _, uid := range []int64{1820, 5177331, 0, -1, -17} {
		var id int64
		var route int
		if err := db.QueryRow("SELECT id, orders1.id_route(id) FROM (SELECT orders1.next_id($1) AS id) s", uid).Scan(&id, &route); err != nil {
			t.Fatal(err)
		}
		p, err := l.Decompose(id)
		if err != nil || p.Route != l.RouteOf(uid) || int64(route) != l.RouteOf(uid) || p.Shard != sh.ID || ((id%16)+16)%16 != ((uid%16)+16)%16 {
			t.Fatalf("next_id(%d) = %d: %+v, SQL route %d, %v", uid, id, p, route, err)
		}
	}
	var id int64
	if err := db.QueryRow("SELECT orders1.next_id()").Scan(&id); err != nil || id&15 != 0 {
		t.Fatalf("next_id() without a route: %d (route %d), %v; want route 0", id, id&15, err)
	}
	if _, err := db.Exec("SELECT orders1.next_id(NULL)"); err == nil {
		t.Fatal("next_id(NULL) returned an ID")
	}
}

// routeItems makes <schema>.items keyed by next_id(key) in the INSERT.
func routeItems(t testing.TB, db *sql.DB, schema string) {
	t.Helper()
	if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE %s.items (n bigserial, id bigint, key bigint, session int)`, schema)); err != nil {
		t.Fatal(err)
	}
}

// routeCheck fails unless every ID in <schema>.items is unique, carries
// shard and the route of its key, in SQL and in Go; it returns the rows.
func routeCheck(t testing.TB, db *sql.DB, sh pgfunc.Shard, l shardid.Layout) int64 {
	t.Helper()
	var rows, dups, bad, sample int64
	q := fmt.Sprintf(`SELECT count(*), count(*) - count(DISTINCT id),
		count(*) FILTER (WHERE %[1]s.id_route(id) <> (key & %[2]d) OR %[1]s.id_shard(id) <> $1 OR id < 0), max(id) FROM %[1]s.items`, sh.Schema, l.MaxRoute())
	if err := db.QueryRow(q, sh.ID).Scan(&rows, &dups, &bad, &sample); err != nil {
		t.Fatal(err)
	}
	if dups != 0 || bad != 0 {
		t.Fatalf("%s: %d rows, %d repeated IDs, %d not carrying shard %d and their key's route", sh.Schema, rows, dups, bad, sh.ID)
	}
	if p, err := l.Decompose(sample); err != nil || p.Shard != sh.ID {
		t.Fatalf("Go decode of %d: %+v, %v", sample, p, err)
	}
	return rows
}

// withRouteOverSeq is the hand-written "gene" body's mistake: the route
// ORed into the ID without a field of its own (over the sequence's low
// bits), the negative control of the route tests.
var withRouteOverSeq = variant{"route over the sequence", func(up string) string {
	return replacing("", `"route".next_id_bulk() OPERATOR(pg_catalog.|) (route`,
		`("route".next_id_bulk() OPERATOR(pg_catalog.>>) 4) OPERATOR(pg_catalog.|) (route`).change(up)
}}

// TestRouteUnique: next_id(route) never repeats an ID, whatever the
// routes: a 300,000-row statement keyed by next_id(g) with the clock as is
// and frozen for the statement (every draw in one tick, 4,096 IDs a tick
// shared by all 16 routes: the generator borrows the following ticks);
// three sessions at once with keys that collide on the route; a session
// whose clock steps back 2 s beside one on the true clock. The body that
// writes the route over the sequence's low bits repeats under the same
// single statement (the negative control).
func TestRouteUnique(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a stress test of several seconds; go test without -short runs it")
	}
	db, _ := newDB(t)
	ctx := context.Background()
	l := geneLayout(t, "")
	sh := installWith(t, db, pgfunc.Shard{Schema: "route", ID: 3}, pgfunc.WithClock(pgfunc.Options{Layout: l}, testClock))
	routeItems(t, db, sh.Schema)
	frozen := installWith(t, db, pgfunc.Shard{Schema: "route_frozen", ID: 4}, pgfunc.WithClock(pgfunc.Options{Layout: l}, "pg_catalog.statement_timestamp()"))
	routeItems(t, db, frozen.Schema)
	for _, s := range []pgfunc.Shard{sh, frozen} {
		if _, err := db.Exec(fmt.Sprintf("INSERT INTO %[1]s.items (id, key, session) SELECT %[1]s.next_id(g), g, 0 FROM generate_series(1, 300000) g", s.Schema)); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: a 300,000-row statement keyed by next_id(g): %d rows, 0 repeats, every route its key's", s.Schema, routeCheck(t, db, s, l))
	}

	// Three sessions, keys 0-99 (every route many times over).
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for s := range 3 {
		conn := newConn(t, db)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if _, err := conn.ExecContext(ctx, "INSERT INTO route.items (id, key, session) SELECT route.next_id(g % 100), g % 100, $1 FROM generate_series(1, 50) g", s+1); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// A session whose clock steps back 2 s beside one on the true clock.
	a, b := newConn(t, db), newConn(t, db)
	stop := make(chan struct{})
	bErr := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				bErr <- nil
				return
			default:
			}
			if _, err := b.ExecContext(ctx, "INSERT INTO route.items (id, key, session) SELECT route.next_id(g), g, 5 FROM generate_series(1, 20) g"); err != nil {
				bErr <- err
				return
			}
		}
	}()
	for _, offset := range []string{"0", "-2 s"} {
		if _, err := a.ExecContext(ctx, "SELECT set_config('shardid_test.offset', $1, false)", offset); err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(time.Second); time.Now().Before(end); {
			if _, err := a.ExecContext(ctx, "INSERT INTO route.items (id, key, session) SELECT route.next_id(g), g, 4 FROM generate_series(1, 20) g"); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	if err := <-bErr; err != nil {
		t.Fatal(err)
	}
	t.Logf("route: after three sessions and a clock stepped back 2 s: %d rows, 0 repeats, every route its key's", routeCheck(t, db, sh, l))

	// The negative control: the route written over the sequence.
	db2, _ := newDB(t)
	broken := pgfunc.Shard{Schema: "route", ID: 3}
	installVariant(t, db2, broken, pgfunc.Options{Layout: l}, withRouteOverSeq)
	routeItems(t, db2, broken.Schema)
	if _, err := db2.Exec("INSERT INTO route.items (id, key, session) SELECT route.next_id(g), g, 0 FROM generate_series(1, 300000) g"); err != nil {
		t.Fatal(err)
	}
	rows, dups := duplicates(t, db2, broken.Schema)
	if dups == 0 {
		t.Fatal("the route written over the sequence repeated nothing: the check would not catch it")
	}
	t.Logf("negative control (%s): %d repeats among %d rows", withRouteOverSeq.name, dups, rows)
}

// TestRouteCrash: IDs next_id(route) handed out to autocommit SELECTs
// (read-only: no transaction id) stay unique after a crash that loses the
// WAL nobody flushed, as next_id()'s do (TestCrashKeepsReadOnlyDraws,
// whose steps it repeats with a route layout of 10 ms ticks and 16 IDs a
// tick, so that a burst runs far ahead of the clock). The body without
// the durable path (the negative control) hands some of them out again
// (their counter values, compared without the route: drawn again for a key
// of the same route, they are the same ID).
func TestRouteCrash(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and crashes servers of its own")
	}
	for _, v := range []*variant{nil, &withoutDurability} {
		name := "unique"
		if v != nil {
			name = "negative control: " + v.name
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			given, again, after := routeCrash(t, v)
			switch {
			case v == nil && len(again) > 0:
				t.Fatalf("IDs given to autocommit SELECTs before the crash were drawn again after it: %v (of %v)", again, given)
			case v != nil && len(again) == 0:
				t.Fatalf("%s: none of %v came back; the test would not catch a lost WAL record", v.name, given)
			case v != nil:
				t.Logf("%s: %d of the %d IDs given before the crash were drawn again after it", v.name, len(again), len(given))
			default:
				t.Logf("none of the %d IDs next_id(route) gave before the crash came back among %d drawn after it", len(given), after)
			}
		})
	}
}

// routeCrash runs TestRouteCrash's steps on a server of its own, with the
// generator as rendered or changed by v: the IDs given before the crash,
// those drawn again after it, and how many were drawn after it.
func routeCrash(t *testing.T, v *variant) (given, again []int64, drawn int) {
	srv := testsrv.NewPG(t, dbserver.PGOptions{Settings: map[string]string{"autovacuum": "off", "bgwriter_lru_maxpages": "0"}})
	dsn := testsrv.Database(t, srv)
	db := testsrv.Open(t, "pgx", dsn)
	ctx := context.Background()
	l, err := shardid.ParseLayoutEpoch("time:37@10ms,shard:8,seq:4,route:4", "")
	if err != nil {
		t.Fatal(err)
	}
	sh, o := pgfunc.Shard{Schema: "crash", ID: 7}, pgfunc.Options{Layout: l, Lead: 60 * time.Second}
	if v == nil {
		installWith(t, db, sh, o)
	} else {
		installVariant(t, db, sh, o, *v)
	}
	// 50,000 IDs are 31 s of ticks of 16 IDs: far ahead of the clock.
	if _, err := db.Exec("SELECT count(crash.next_id(g)) FROM generate_series(1, 50000) g"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	var walwriter int
	if err := db.QueryRow("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'").Scan(&walwriter); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(walwriter, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
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
	if _, err := a.ExecContext(ctx, "SELECT crash.next_id(1)"); err != nil {
		t.Fatal(err)
	}
	b := newConn(t, db)
	for key := range int64(10) {
		var id int64
		if err := b.QueryRowContext(ctx, "SELECT crash.next_id($1)", key).Scan(&id); err != nil {
			t.Fatal(err)
		}
		given = append(given, id)
	}
	for _, pid := range []int{pidA, walwriter} {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	killed = true
	// Compared without their route: a counter value handed out again is
	// an ID repeated for whichever key draws it with the same route.
	after := afterRecovery(t, dsn, "SELECT crash.next_id(g % 10) OPERATOR(pg_catalog.>>) 4 FROM generate_series(1, 5000) g")
	for _, id := range given {
		if slices.Contains(after, id>>4) {
			again = append(again, id)
		}
	}
	return given, again, len(after)
}
