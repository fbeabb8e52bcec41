package adopt_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/adopt"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

// oldEpoch is the epoch of the published generators these tests adopt:
// Instagram's own, not shardid's default, so that the test shows the
// epoch is read from the body.
const oldEpochMS = 1314220021721

func oldLayout() shardid.Layout {
	l := shardid.Instagram()
	l.Epoch = time.UnixMilli(oldEpochMS).UTC()
	return l
}

// publishedSchema makes schema the way a shop running Instagram's
// published generator has it: a sequence of its own, next_id() with the
// published body (as pgfunc.RenderPublished renders it, named next_id and
// drawing from that sequence), and a table items whose key defaults to
// it. The body stamps shard id stamp.
func publishedSchema(t testing.TB, db *sql.DB, schema string, stamp int64) {
	t.Helper()
	text, err := pgfunc.RenderPublished(pgfunc.Shard{Schema: schema, ID: stamp}, pgfunc.Options{Layout: oldLayout()})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(text), "next_id_published(", "next_id(", 1)
	body = strings.Replace(body, fmt.Sprintf(`'"%s".next_id_seq'`, schema), fmt.Sprintf(`'%s.table_id_seq'`, schema), 1)
	for _, q := range []string{
		"CREATE SCHEMA " + schema,
		"CREATE SEQUENCE " + schema + ".table_id_seq",
		body,
		fmt.Sprintf(`CREATE TABLE %[1]s.items (
			n bigserial, -- insert order
			before timestamptz DEFAULT clock_timestamp(), -- defaults run in column order
			id bigint NOT NULL DEFAULT %[1]s.next_id(),
			at timestamptz DEFAULT clock_timestamp(),
			session int)`, schema),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// storeAhead stores IDs the old body handed out while the server's clock
// stood ahead (an NTP step back since): shard stamp, 16 sequence values in
// every millisecond from 300 ms to 2.3 s ahead of now. A counter started
// at the clock alone hands them out again.
func storeAhead(t testing.TB, db *sql.DB, schema string, stamp int64) {
	t.Helper()
	q := fmt.Sprintf(`INSERT INTO %s.items (id, session)
		SELECT ((floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + ms - %d) << 23) | ($1::bigint << 10) | s, -1
		FROM generate_series(300, 2300) AS ms, generate_series(0, 15) AS s`, schema, oldEpochMS)
	if _, err := db.Exec(q, stamp); err != nil {
		t.Fatal(err)
	}
}

func newAdopter(t testing.TB, db *sql.DB, o pgfunc.Options) *migrate.Migrator {
	t.Helper()
	m, err := migrate.New(db, o, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func adoptOne(t testing.TB, m *migrate.Migrator, sh pgfunc.Shard, ao adopt.Options) adopt.Adoption {
	t.Helper()
	res, _ := adopt.Run(context.Background(), m, []pgfunc.Shard{sh}, ao, nil)
	if len(res) != 1 {
		t.Fatalf("%d results", len(res))
	}
	return res[0]
}

// TestAdoptPublished adopts a schema running the published body while
// three sessions insert through DEFAULT next_id() without pause, across
// the switch: no ID repeats among the old body's, the IDs it handed out
// with the clock ahead, and the new generator's; every ID decodes with
// the same helpers (SQL id_shard and id_timestamp, Go Decompose) to the
// shard and to a time between the clock before its draw and the lead
// after it; the schema is then an ordinary shardid generator (Discover
// sees it, up finds it current, the goose history records it).
func TestAdoptPublished(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	sh := pgfunc.Shard{Schema: "insta5", ID: 5}
	publishedSchema(t, db, sh.Schema, sh.ID)
	storeAhead(t, db, sh.Schema, sh.ID)
	m := newAdopter(t, db, pgfunc.Options{})

	dry := adoptOne(t, m, sh, adopt.Options{})
	if dry.Err != nil || dry.Note != "dry run" || dry.Applied {
		t.Fatalf("dry run: %+v", dry)
	}
	if dry.Kind != adopt.AdoptPublished || dry.Layout.Name != "instagram" || dry.Layout.EpochMillis() != oldEpochMS || len(dry.Keys) != 1 {
		t.Fatalf("dry run inferred %+v", dry)
	}
	if p, _ := oldLayout().Decompose(dry.FirstID); p.Shard != 5 || dry.FirstID <= dry.Keys[0].Max {
		t.Fatalf("dry run: first ID %d (%+v) not above the highest stored %d", dry.FirstID, p, dry.Keys[0].Max)
	}

	// The burst: sessions insert 50-row statements through the old body,
	// then through the new one. A statement that was waiting for the
	// switch fails (the old sequence is retired) and is retried.
	var (
		switched atomic.Bool
		after    [3]atomic.Int64
		before   [3]atomic.Int64
		retired  atomic.Int64
		wg       sync.WaitGroup
		stop     = make(chan struct{})
		errs     = make(chan error, 3)
	)
	for s := range 3 {
		conn := newConn(t, db)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				was := switched.Load()
				_, err := conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO insta5.items (session) SELECT %d FROM generate_series(1, 50)", s))
				switch {
				case err != nil && strings.Contains(err.Error(), "reached maximum value of sequence"):
					retired.Add(1)
				case err != nil:
					errs <- err
					return
				case was:
					after[s].Add(1)
				default:
					before[s].Add(1)
				}
			}
		}()
	}
	waitAll := func(c *[3]atomic.Int64, n int64) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for i := range c {
			for c[i].Load() < n {
				select {
				case err := <-errs:
					t.Fatal(err)
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("session %d made %d statements in 2 minutes", i, c[i].Load())
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	waitAll(&before, 5)
	got := adoptOne(t, m, sh, adopt.Options{Apply: true})
	switched.Store(true)
	if got.Err != nil || !got.Applied || got.Note != "adopted" {
		t.Fatalf("adopt: %+v", got)
	}
	waitAll(&after, 20)
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}

	// The old body repeats itself under concurrent sessions (nextval %
	// 1024 wraps within a millisecond): those repeats were made before
	// the switch and are the old generator's. What the switch answers for
	// is every repeat involving a row drawn after it: rows whose clock
	// after the draw (at) is later than the switch's clock reading, taken
	// under its lock, after every draw of the old body.
	var rows, oldDups, dups, oldIDs, newIDs, newBelow int64
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM insta5.items),
		(SELECT count(*) FROM (SELECT id FROM insta5.items GROUP BY id HAVING count(*) > 1 AND max(at) <= $2) s),
		(SELECT count(*) FROM (SELECT id FROM insta5.items GROUP BY id HAVING count(*) > 1 AND max(at) > $2) s),
		(SELECT count(*) FROM insta5.items WHERE at <= $2), (SELECT count(*) FROM insta5.items WHERE at > $2),
		(SELECT count(*) FROM insta5.items WHERE at > $2 AND id < $1)`, got.FirstID, got.Clock).Scan(&rows, &oldDups, &dups, &oldIDs, &newIDs, &newBelow); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows: %d drawn before the switch (the old body's, %d of them stored ahead of the clock; %d IDs it repeated itself), %d after it; %d statements hit the retired sequence; %d repeats involving a draw after the switch",
		rows, oldIDs, 2001*16, oldDups, newIDs, retired.Load(), dups)
	if dups != 0 || newBelow != 0 {
		t.Fatalf("%d repeated IDs involving a draw after the switch; %d new IDs below the first new ID %d", dups, newBelow, got.FirstID)
	}
	if oldIDs <= 2001*16 || newIDs == 0 {
		t.Fatalf("the burst did not run through both bodies: %d old, %d new", oldIDs, newIDs)
	}
	// One set of helpers reads both: SQL's and Go's.
	var bad int64
	if err := db.QueryRow(`SELECT count(*) FROM insta5.items
		WHERE insta5.id_shard(id) <> 5 OR insta5.id_timestamp(id) < before - interval '1 ms'
		   OR (session >= 0 AND insta5.id_timestamp(id) > at + interval '5 s')`).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Fatalf("%d IDs do not decode to shard 5 between the clock before their draw and the lead after it", bad)
	}
	for _, q := range []string{"SELECT max(id) FROM insta5.items WHERE id < $1", "SELECT max(id) FROM insta5.items WHERE id >= $1"} {
		var id int64
		var at time.Time
		if err := db.QueryRow(strings.Replace(q, "max(id)", "max(id), max(at)", 1), got.FirstID).Scan(&id, &at); err != nil {
			t.Fatal(err)
		}
		p, err := oldLayout().Decompose(id)
		if err != nil || p.Shard != 5 || p.Time.After(at.Add(pgfunc.DefaultLead)) || p.Time.Before(at.Add(-time.Hour)) {
			t.Fatalf("Go decode of %d: %+v, %v", id, p, err)
		}
	}
	// An ordinary shardid generator now.
	installed, err := m.Server().Discover(ctx)
	if err != nil || len(installed) != 1 || installed[0].Schema != "insta5" || installed[0].Meta.Shard != 5 ||
		installed[0].Meta.EpochMS != oldEpochMS || installed[0].Meta.Mode != pgfunc.ModeUnique || installed[0].Outdated {
		t.Fatalf("discover: %+v, %v", installed, err)
	}
	var versions string
	if err := db.QueryRow("SELECT string_agg(version_id::text, ',' ORDER BY id) FROM insta5.goose_db_version").Scan(&versions); err != nil || versions != "0,1" {
		t.Fatalf("goose history %q, %v", versions, err)
	}
	up := newAdopter(t, db, pgfunc.Options{Layout: oldLayout()})
	for _, r := range results(up.Up(ctx, []pgfunc.Shard{sh}, nil)) {
		if r.Err != nil || r.Applied || r.Note != "current" {
			t.Fatalf("up after adopt: %+v", r)
		}
	}
	if again := adoptOne(t, m, sh, adopt.Options{Apply: true}); again.Err != nil || again.Applied || again.Note != "current" {
		t.Fatalf("adopt again: %+v", again)
	}
	var maxv int64
	if err := db.QueryRow("SELECT max_value FROM pg_sequences WHERE schemaname = 'insta5' AND sequencename = 'table_id_seq'").Scan(&maxv); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("SELECT nextval('insta5.table_id_seq')"); err == nil || !strings.Contains(err.Error(), "reached maximum value") {
		t.Fatalf("the old sequence (max %d) still draws: %v", maxv, err)
	}
}

// TestAdoptClockOnlyRepeats is the negative control of TestAdoptPublished:
// an adoption that starts the new counter at the clock alone, not past the
// IDs stored ahead of it, hands some of them out again, and the same
// check (repeats involving a draw after the switch) sees it.
func TestAdoptClockOnlyRepeats(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	sh := pgfunc.Shard{Schema: "insta6", ID: 6}
	publishedSchema(t, db, sh.Schema, sh.ID)
	var storedAt time.Time
	if err := db.QueryRow("SELECT clock_timestamp()").Scan(&storedAt); err != nil {
		t.Fatal(err)
	}
	storeAhead(t, db, sh.Schema, sh.ID)
	m := newAdopter(t, db, pgfunc.Options{})
	a := adoptOne(t, m, sh, adopt.AdoptClockOnly(adopt.Options{Apply: true}))
	if a.Err != nil {
		t.Fatal(a.Err)
	}
	// Draw on until a repeat, or until the clock has passed every stored
	// ID (2.3 s after they were stored): a jump lands on sequence 0 of a
	// tick, and each of those ticks holds a stored sequence 0.
	for {
		var dups int64
		var now time.Time
		if _, err := db.Exec("INSERT INTO insta6.items (session) SELECT 1 FROM generate_series(1, 200)"); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT (SELECT count(*) FROM (SELECT id FROM insta6.items GROUP BY id HAVING count(*) > 1 AND max(at) > $1) s),
			clock_timestamp()`, a.Clock).Scan(&dups, &now); err != nil {
			t.Fatal(err)
		}
		if dups > 0 {
			t.Logf("clock-only adoption: %d repeated IDs", dups)
			return
		}
		if now.After(storedAt.Add(2500 * time.Millisecond)) {
			t.Fatal("a counter started at the clock alone repeated none of the IDs stored ahead of it: the check would not catch it")
		}
	}
}

// TestAdoptRefuses: schemas whose parts disagree, or that cannot be read,
// are refused with the reason, and nothing is changed.
func TestAdoptRefuses(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	publishedSchema(t, db, "insta1", 2) // the body stamps 2, the schema format says 1
	publishedSchema(t, db, "insta3", 3)
	if _, err := db.Exec(fmt.Sprintf("INSERT INTO insta3.items (id) VALUES (%d)", int64(9)<<10|int64(1)<<23)); err != nil { // a key of shard 9
		t.Fatal(err)
	}
	publishedSchema(t, db, "insta4", 4)
	if _, err := db.Exec("ALTER SEQUENCE insta4.table_id_seq CACHE 20"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE SCHEMA insta7; CREATE FUNCTION insta7.next_id() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN (random() * 1e9)::bigint; END $$"); err != nil {
		t.Fatal(err)
	}
	publishedSchema(t, db, "insta8", 8)
	if _, err := db.Exec("CREATE FUNCTION insta8.id_shard(bigint) RETURNS int LANGUAGE sql RETURN 0"); err != nil {
		t.Fatal(err)
	}
	m := newAdopter(t, db, pgfunc.Options{})
	shards := []pgfunc.Shard{{Schema: "insta1", ID: 1}, {Schema: "insta3", ID: 3}, {Schema: "insta4", ID: 4}, {Schema: "insta7", ID: 7}, {Schema: "insta8", ID: 8}, {Schema: "insta9", ID: 9}}
	want := []string{"stamps shard id 2", "decodes to shard 9", "CACHE 20", "does not begin with DECLARE", "holds id_shard()", "has no next_id()"}
	res, _ := adopt.Run(context.Background(), m, shards, adopt.Options{Apply: true}, nil)
	for i, r := range res {
		if r.Err == nil || !errors.Is(r.Err, adopt.ErrCannotInfer) || !strings.Contains(r.Err.Error(), want[i]) {
			t.Errorf("%s: %v; want ErrCannotInfer saying %q", r.Shard.Schema, r.Err, want[i])
		}
	}
	if l := oldLayout(); true {
		l.Epoch = l.Epoch.Add(time.Hour)
		r := adoptOne(t, m, pgfunc.Shard{Schema: "insta3", ID: 3}, adopt.Options{Layout: l})
		if r.Err == nil || !strings.Contains(r.Err.Error(), "constants spell layout") {
			t.Errorf("another epoch requested: %v", r.Err)
		}
	}
	if installed, err := m.Server().Discover(context.Background()); err != nil || len(installed) != 0 {
		t.Fatalf("refusals left generators: %+v, %v", installed, err)
	}
}

// TestAdoptWaitsForDraws pins the switch's locking: a transaction that
// drew through the old body and is still open holds the switch off until
// it commits (its IDs are then below the new counter), and a draw that
// arrives while the switch waits queues behind it, then fails on the
// retired sequence instead of making an ID with the old body after the
// switch. The negative control, a switch that leaves the old sequence as
// it is, lets that draw through: an old-body ID stamped after the switch,
// in the new generator's ticks.
func TestAdoptWaitsForDraws(t *testing.T) {
	t.Parallel()
	t.Run("unique", func(t *testing.T) { adoptWaits(t, adopt.Options{Apply: true, LockTimeout: time.Minute}) })
	t.Run("negative control: old sequence kept", func(t *testing.T) {
		adoptWaits(t, adopt.AdoptKeepingOld(adopt.Options{Apply: true, LockTimeout: time.Minute}))
	})
}

func adoptWaits(t *testing.T, ao adopt.Options) {
	control := strings.Contains(t.Name(), "negative")
	db, _ := newDB(t)
	ctx := context.Background()
	sh := pgfunc.Shard{Schema: "insta2", ID: 2}
	publishedSchema(t, db, sh.Schema, sh.ID)
	m := newAdopter(t, db, pgfunc.Options{})
	a := newConn(t, db)
	if _, err := a.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "INSERT INTO insta2.items (session) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	waiting := func(n int) func() bool {
		return func() bool {
			var w int
			err := db.QueryRow(`SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'insta2.table_id_seq'::regclass`).Scan(&w)
			return err == nil && w >= n
		}
	}
	adopted := make(chan adopt.Adoption, 1)
	go func() {
		adopted <- results(adopt.Run(ctx, m, []pgfunc.Shard{sh}, ao, nil))[0]
	}()
	testsrv.WaitFor(t, "the switch to wait for the open transaction", waiting(1))
	late := make(chan error, 1)
	b := newConn(t, db)
	go func() {
		_, err := b.ExecContext(ctx, "INSERT INTO insta2.items (session) VALUES (2)")
		late <- err
	}()
	testsrv.WaitFor(t, "a late draw to queue behind the switch", waiting(2))
	select {
	case r := <-adopted:
		t.Fatalf("the switch went on beside an open transaction that drew: %+v", r)
	default:
	}
	if _, err := a.ExecContext(ctx, "INSERT INTO insta2.items (session) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	r := <-adopted
	if r.Err != nil || !r.Applied {
		t.Fatalf("adopt: %+v", r)
	}
	err := <-late
	if control {
		var lateID int64
		var lateAt time.Time
		if err != nil || db.QueryRow("SELECT id, insta2.id_timestamp(id) FROM insta2.items WHERE session = 2").Scan(&lateID, &lateAt) != nil || lateAt.Before(r.Clock.Truncate(time.Millisecond)) {
			t.Fatalf("the old sequence kept: the queued draw %v, ID %d of %s (switch at %s); want an old-body ID stamped after the switch", err, lateID, lateAt, r.Clock)
		}
		t.Logf("the old sequence kept: the queued draw went through the old body after the switch: ID %d of %s, in the new generator's ticks (its clock read %s)", lateID, lateAt.UTC(), r.Clock)
		return
	}
	if err == nil || !strings.Contains(err.Error(), "reached maximum value of sequence") {
		t.Fatalf("a draw through the old body queued behind the switch: %v; want the retired sequence's error", err)
	}
	if _, err := b.ExecContext(ctx, "INSERT INTO insta2.items (session) SELECT 3 FROM generate_series(1, 1000)"); err != nil {
		t.Fatal(err)
	}
	var below, above, dups int64
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE id < $1), count(*) FILTER (WHERE id >= $1), count(*) - count(DISTINCT id)
		FROM insta2.items`, r.FirstID).Scan(&below, &above, &dups); err != nil {
		t.Fatal(err)
	}
	if below != 2 || above != 1000 || dups != 0 {
		t.Fatalf("%d IDs below the first new ID (want the open transaction's 2), %d above (want 1000), %d repeats", below, above, dups)
	}
}

// TestAdoptSerial adopts a schema keyed by bigserial while sessions
// insert across the switch, as a role that holds only what the serial
// key needed (INSERT, and USAGE on its sequence): the keys defaulting to
// nextval() default to next_id() afterwards, the role keeps inserting (the
// switch granted it what drawing needs), every new key lies above every
// key stored (the primary key would refuse a repeat), a raw nextval() of
// the old sequence still works and stays below the new IDs, and a
// non-key bigserial column is left alone. A layout is required, and a
// table whose keys already reach the new IDs is refused (the check's
// control).
func TestAdoptSerial(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE SCHEMA insta4",
		"CREATE TABLE insta4.users (id bigserial PRIMARY KEY, name text)",
		"CREATE TABLE insta4.log (n bigserial, x int)",
		"INSERT INTO insta4.users (name) SELECT 'u' FROM generate_series(1, 1000)",
		"SELECT setval('insta4.users_id_seq', 5000000)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	app := newRole(t, db, "app", "")
	if _, err := db.Exec(fmt.Sprintf("GRANT USAGE ON SCHEMA insta4 TO %[1]s; GRANT INSERT, SELECT ON insta4.users TO %[1]s; GRANT USAGE ON SEQUENCE insta4.users_id_seq TO %[1]s", app)); err != nil {
		t.Fatal(err)
	}
	m := newAdopter(t, db, pgfunc.Options{})
	sh := pgfunc.Shard{Schema: "insta4", ID: 4}
	if r := adoptOne(t, m, sh, adopt.Options{}); r.Err == nil || !strings.Contains(r.Err.Error(), "says nothing of a layout") {
		t.Fatalf("serial keys without a layout: %+v", r)
	}
	dry := adoptOne(t, m, sh, adopt.Options{Layout: shardid.Instagram()})
	if dry.Err != nil || dry.Kind != adopt.AdoptSerial || len(dry.Keys) != 1 || dry.Keys[0].Table != `"insta4"."users"` || dry.Keys[0].Last != 5000000 {
		t.Fatalf("dry run: %+v", dry)
	}

	var (
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		errs    = make(chan error, 2)
		after   [2]atomic.Int64
		flipped atomic.Bool
	)
	for s := range 2 {
		conn := asRole(t, dsn, app)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				was := flipped.Load()
				if _, err := conn.ExecContext(ctx, "INSERT INTO insta4.users (name) SELECT 'burst' FROM generate_series(1, 20)"); err != nil {
					errs <- err
					return
				}
				if was {
					after[s].Add(1)
				}
			}
		}()
	}
	got := adoptOne(t, m, sh, adopt.Options{Layout: shardid.Instagram(), Apply: true})
	flipped.Store(true)
	if got.Err != nil || !got.Applied || len(got.Roles) != 1 || got.Roles[0] != app {
		t.Fatalf("adopt: %+v", got)
	}
	testsrv.WaitFor(t, "both sessions to insert after the switch", func() bool {
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		return after[0].Load() >= 10 && after[1].Load() >= 10
	})
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	var oldMax, newMin, newRows, between int64
	if err := db.QueryRow(`SELECT max(id) FILTER (WHERE id < $1), min(id) FILTER (WHERE id >= $1), count(*) FILTER (WHERE id >= $1),
		count(*) FILTER (WHERE id >= 5000000 + 1000000 AND id < $1) FROM insta4.users`, got.FirstID).Scan(&oldMax, &newMin, &newRows, &between); err != nil {
		t.Fatal(err)
	}
	if newRows < 400 || newMin < got.FirstID || between != 0 || oldMax >= got.FirstID {
		t.Fatalf("old keys up to %d, %d new from %d (first new ID %d), %d in between", oldMax, newRows, newMin, got.FirstID, between)
	}
	var raw int64
	if err := db.QueryRow("SELECT nextval('insta4.users_id_seq')").Scan(&raw); err != nil || raw >= got.FirstID {
		t.Fatalf("raw nextval of the old sequence: %d, %v", raw, err)
	}
	var def string
	if err := db.QueryRow(`SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'insta4.log'::regclass`).Scan(&def); err != nil || !strings.Contains(def, "nextval") {
		t.Fatalf("the non-key column's default: %q, %v", def, err)
	}
	if p, err := shardid.Instagram().Decompose(newMin); err != nil || p.Shard != 4 {
		t.Fatalf("decode %d: %+v, %v", newMin, p, err)
	}

	// The control: keys that already reach the new IDs are refused.
	if _, err := db.Exec("CREATE SCHEMA insta9; CREATE TABLE insta9.t (id bigserial PRIMARY KEY); INSERT INTO insta9.t VALUES (4611686018427387904)"); err != nil {
		t.Fatal(err)
	}
	r := adoptOne(t, m, pgfunc.Shard{Schema: "insta9", ID: 9}, adopt.Options{Layout: shardid.Instagram(), Apply: true})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "is not below the first ID") {
		t.Fatalf("keys above the new IDs: %+v", r)
	}
}
