package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// A released generator is one a release of shardid before next_id_bulk()
// rendered: testdata/released_unique.sql is `shardid pg render --shard 9
// --schema-format released%d` and released_js53_unique.sql the same with
// --layout js53 --schema-format releasedjs%d, both by the release at
// commit b093122. Its next_id() is one inlined SQL expression, its jump
// lands on the clock's tick.
type released struct {
	file   string
	shard  pgfunc.Shard
	layout shardid.Layout
}

var (
	releasedInstagram = released{"released_unique.sql", pgfunc.Shard{Schema: "released9", ID: 9}, shardid.Instagram()}
	releasedJS53      = released{"released_js53_unique.sql", pgfunc.Shard{Schema: "releasedjs9", ID: 9}, shardid.JS53()}
)

// text returns the released migration, its clock replaced by clock when
// clock is not "".
func (r released) text(t testing.TB, clock string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", r.file))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if clock != "" {
		text = strings.ReplaceAll(text, "now_ts := pg_catalog.clock_timestamp();", "now_ts := "+clock+";")
		text = strings.ReplaceAll(text, "OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp(),", "OPERATOR(pg_catalog.-) "+clock+",")
	}
	return text
}

// apply applies the released generator as its release's pg up did: its
// migration through goose, with the schema's own history table.
func (r released) apply(t testing.TB, db *sql.DB, clock string) {
	t.Helper()
	if _, err := db.Exec("CREATE SCHEMA " + r.shard.Schema); err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{migrate.MigrationName: {Data: []byte(r.text(t, clock)), Mode: 0o644}}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithTableName(r.shard.Schema+".goose_db_version"), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(context.Background()); err != nil {
		t.Fatalf("apply the released generator: %v", err)
	}
}

// TestUpgradeInPlace: up over a generator a release before next_id_bulk()
// applied replaces its body in place ("upgraded"), carrying its counter
// on; status and grant first say it is outdated and that up replaces it,
// the next up finds it current, and down then up still carry the counter
// on. (One database's generator, on the server the package's tests
// share.)
func TestUpgradeInPlace(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	r := releasedInstagram
	r.apply(t, db, "")
	shards := []pgfunc.Shard{r.shard}
	var last int64
	if err := db.QueryRow("SELECT max(released9.next_id()) FROM generate_series(1, 3000)").Scan(&last); err != nil {
		t.Fatal(err)
	}
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if st, err := m.Status(ctx, shards); err != nil || !st[0].Outdated || !st[0].Upgradable || st[0].Matches {
		t.Fatalf("status of the released generator: %+v, %v; want it outdated and upgradable", st, err)
	}
	app := newRole(t, db, "app", "")
	if res, err := privilege.Grant(ctx, m.Server().DB(), shards, app, nil); !pgfunc.IsPartial(err) || !errors.Is(res[0].Err, pgfunc.ErrOutdatedGenerator) || !strings.Contains(res[0].Err.Error(), "pg up") {
		t.Fatalf("grant on the released generator: %+v, %v; want ErrOutdatedGenerator saying pg up upgrades it", res, err)
	}
	if res, _ := m.Up(ctx, shards, nil); res[0].Err != nil || !res[0].Applied || res[0].Note != "upgraded" {
		t.Fatalf("up over the released generator: %+v; want it upgraded", res[0])
	}
	var first int64
	if err := db.QueryRow("SELECT min(released9.next_id_bulk()) FROM generate_series(1, 1000)").Scan(&first); err != nil || first <= last {
		t.Fatalf("after the upgrade: %d (%v), not above %d", first, err, last)
	}
	if res, _ := m.Up(ctx, shards, nil); res[0].Err != nil || res[0].Applied || res[0].Note != "current" {
		t.Fatalf("up again: %+v; want current", res[0])
	}
	if st, err := m.Status(ctx, shards); err != nil || st[0].Outdated || !st[0].Matches {
		t.Fatalf("status after the upgrade: %+v, %v; want it current", st, err)
	}
	if res, err := privilege.Grant(ctx, m.Server().DB(), shards, app, nil); err != nil || res[0].Err != nil {
		t.Fatalf("grant after the upgrade: %+v, %v", res, err)
	}
	if res, _ := m.Down(ctx, shards, nil); res[0].Err != nil || !res[0].Applied {
		t.Fatalf("down after the upgrade: %+v", res[0])
	}
	if res, _ := m.Up(ctx, shards, nil); res[0].Err != nil || !res[0].Applied {
		t.Fatalf("up after down: %+v", res[0])
	}
	if err := db.QueryRow("SELECT min(id) FROM released9.next_ids(1000) AS id").Scan(&first); err != nil || first <= last {
		t.Fatalf("after down and up: %d (%v), not above %d", first, err, last)
	}
}

// restartAtClock is an upgrade that, besides the body, restarts the
// counter at the clock's tick, as a generator made anew starts: it hands
// out again every ID the counter had run ahead of the clock.
func restartAtClock(r released) variant {
	l := r.layout
	start := fmt.Sprintf("pg_catalog.floor((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000 - %d) / %d)::bigint << %d",
		l.EpochMillis(), l.UnitMillis(), l.SeqBits)
	lock := "\nLOCK TABLE \"" + r.shard.Schema + "\".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE;\n" // the upgrade's own, at a line's start
	return replacing("an upgrade that restarts the counter at the clock", lock,
		lock+"SELECT pg_catalog.setval('\""+r.shard.Schema+"\".next_id_seq', "+start+", false);\n")
}

// TestUpgradeUnderDraws upgrades a released js53 generator (256 IDs a
// tick: bursts run its counter ahead of the clock) while sessions draw
// through it: single-row inserts with DEFAULT next_id(), read-only SELECTs
// of next_id() (then next_id_bulk() and next_ids(100) once the upgrade is
// in), and one 40,000-row INSERT ... SELECT paused in its middle, holding
// the released body's inlined expression, until the upgrade has committed.
// No ID is handed out twice. The negative control is an upgrade that
// restarts the counter at the clock: the same steps repeat IDs.
func TestUpgradeUnderDraws(t *testing.T) {
	if testing.Short() {
		t.Skip("draws for a few seconds")
	}
	t.Parallel()
	restart := restartAtClock(releasedJS53)
	for _, v := range []*variant{nil, &restart} {
		again, during, err := upgradeUnderDraws(t, v)
		switch {
		case err != nil:
			t.Fatal(err)
		case v == nil && again > 0:
			t.Fatalf("%d IDs handed out twice by draws running through the upgrade (of %d)", again, during)
		case v == nil:
			t.Logf("%d IDs drawn through the upgrade, none twice", during)
		case again == 0:
			t.Fatalf("%s: no ID came back; the test would not catch an upgrade that moves the counter back", v.name)
		default:
			t.Logf("negative control, %s: %d of %d IDs handed out twice", v.name, again, during)
		}
	}
}

// upgradeUnderDraws runs TestUpgradeUnderDraws's steps, the upgrade as
// rendered or changed by v, and returns how many IDs were handed out
// twice among all drawn.
func upgradeUnderDraws(t *testing.T, v *variant) (again, drawn int, err error) {
	db, _ := newDB(t)
	db.SetMaxOpenConns(12)
	ctx := context.Background()
	r := releasedJS53
	r.apply(t, db, "")
	s := r.shard.Schema
	mustExecDB(t, db, fmt.Sprintf("CREATE TABLE %[1]s.items (id bigint DEFAULT %[1]s.next_id(), session int)", s))
	gate := newConn(t, db) // holds the advisory lock the long statement pauses on
	mustExec(t, gate, "SELECT pg_advisory_lock(917)")

	var mu sync.Mutex
	var selected []int64
	batchesAfter := 0 // SELECTs begun after the upgrade
	upgraded := make(chan struct{})
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	// Single-row inserts and read-only SELECTs, until stop.
	for c := range 3 {
		wg.Go(func() {
			conn, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				after := false
				select {
				case <-upgraded:
					after = true
				default:
				}
				if c < 2 {
					if _, err := conn.ExecContext(ctx, "INSERT INTO "+s+".items (session) VALUES ($1)", c); err != nil {
						errs <- err
						return
					}
					continue
				}
				q := "SELECT " + s + ".next_id() FROM generate_series(1, 200)"
				if after {
					q = []string{q, "SELECT " + s + ".next_id_bulk() FROM generate_series(1, 200)", "SELECT * FROM " + s + ".next_ids(100)"}[i%3]
				}
				ids, err := queryInt64s(conn, q)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				selected = append(selected, ids...)
				if after {
					batchesAfter++
				}
				mu.Unlock()
			}
		})
	}
	// The long statement: 20,000 rows, a pause on the gate's lock, 20,000
	// more with the expression it was planned with.
	long := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, "INSERT INTO "+s+`.items (session)
			SELECT CASE WHEN g = 20000 THEN (SELECT 9 FROM (SELECT pg_advisory_lock_shared(917)) AS l) ELSE 9 END
			FROM generate_series(1, 40000) AS g`)
		long <- err
	}()
	// Wait until it pauses, then upgrade, then let it go on.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		var waiting bool
		if err := db.QueryRow("SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND objid = 917 AND NOT granted)").Scan(&waiting); err != nil {
			return 0, 0, err
		}
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, errors.New("the long statement never reached its pause")
		}
	}
	var ahead float64
	if err := db.QueryRow(fmt.Sprintf("SELECT extract(epoch FROM %[1]s.id_timestamp(%[1]s.next_id()) - clock_timestamp())", s)).Scan(&ahead); err != nil {
		return 0, 0, err
	}
	if v == nil {
		m, err := migrate.New(db, pgfunc.Options{Layout: r.layout}, migrate.Options{OwnDatabaseOnly: true})
		if err != nil {
			return 0, 0, err
		}
		if res, _ := m.Up(ctx, []pgfunc.Shard{r.shard}, nil); res[0].Err != nil || res[0].Note != "upgraded" {
			return 0, 0, fmt.Errorf("up over the released generator under draws: %+v", res[0])
		}
	} else {
		text, err := pgfunc.RenderUpgrade(r.shard, pgfunc.Options{Layout: r.layout})
		if err != nil {
			return 0, 0, err
		}
		changed := v.change(string(text))
		if changed == string(text) {
			return 0, 0, fmt.Errorf("variant %q changes nothing in the upgrade", v.name)
		}
		if _, err := db.Exec("BEGIN;\n" + changed + "\nCOMMIT"); err != nil {
			return 0, 0, err
		}
	}
	close(upgraded)
	mustExec(t, gate, "SELECT pg_advisory_unlock(917)")
	if err := <-long; err != nil {
		return 0, 0, fmt.Errorf("the long statement: %w", err)
	}
	// Draws go on with the upgraded body, each of its three SELECTs twice,
	// then stop.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := batchesAfter
		mu.Unlock()
		if n >= 6 {
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, errors.New("no draws after the upgrade for a minute")
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		return 0, 0, err
	}
	rows, err := queryInt64s(db, "SELECT id FROM "+s+".items")
	if err != nil {
		return 0, 0, err
	}
	seen := map[int64]bool{}
	for _, id := range append(rows, selected...) {
		if seen[id] {
			again++
		}
		seen[id] = true
	}
	if v != nil && ahead <= 0 {
		return 0, 0, fmt.Errorf("the counter was %.3fs ahead of the clock at the upgrade: the steps did not run it ahead, and %s has nothing to hand out again", ahead, v.name)
	}
	return again, len(rows) + len(selected), nil
}

// mustExecDB runs statements on db.
func mustExecDB(t testing.TB, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// releasedJumpRE finds the released generator's jump function.
var releasedJumpRE = regexp.MustCompile(`(?s)CREATE OR REPLACE FUNCTION "released9"\.next_id_jump_9\(\).*?\n\$shardid\$;\n`)

// TestUpgradeOldJumpsAfterwards: once up has replaced a released body, a
// session that began before may still run the released jump's code (a
// function under way, or called before the session has read the new
// catalog): one per session, whatever the new body. Two such jumps in a
// row, the second made step by step beside a draw of the new body: the
// new body's test must still catch it, and the draw must not hand out the
// value the jump hands out. The negative control is the body of one jump
// counter read twice, which a jump counts in parity (odd while under way):
// the released jump's bookkeeping makes an even value while under way,
// and the draw is handed out twice.
func TestUpgradeOldJumpsAfterwards(t *testing.T) {
	t.Parallel()
	for _, parity := range []bool{false, true} {
		drawn, jumped := oldJumpsAfterUpgrade(t, parity)
		switch {
		case !parity && drawn == jumped:
			t.Fatalf("a draw of the new body during a released jump was handed out again by it: %d", drawn)
		case !parity:
			t.Logf("the draw during the released jump (%d) waited for it and differs from the jump's (%d)", drawn, jumped)
		case drawn != jumped:
			t.Fatalf("parity body: %d and %d differ; the test would not catch a body the released jump can fool", drawn, jumped)
		default:
			t.Logf("negative control, one jump counter read twice (parity): the draw during the released jump and the jump's own both gave %d", drawn)
		}
	}
}

// parityBody is the negative control of TestUpgradeOldJumpsAfterwards: the
// jump counters brought to a parity rule (between jumps jumps_begun even
// and jumps_done one less) and a next_id() that reads jumps_begun before
// and after its draw and takes the draw when the two agree and are even.
const parityBody = `
SELECT pg_catalog.setval('released9.next_id_jumps_done', (greatest(b, d) + 1) | 1),
       pg_catalog.setval('released9.next_id_jumps_begun', ((greatest(b, d) + 1) | 1) + 1)
FROM (SELECT pg_sequence_last_value('released9.next_id_jumps_begun') AS b, pg_sequence_last_value('released9.next_id_jumps_done') AS d) AS s;
CREATE OR REPLACE FUNCTION released9.next_id() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    begun bigint := pg_sequence_last_value('released9.next_id_jumps_begun');
    units bigint := nextval('released9.next_id_seq');
BEGIN
    IF pg_sequence_last_value('released9.next_id_jumps_begun') = (begun & (-2)::bigint) THEN
        RETURN (units >> 10) << 23 | 9216::bigint | (units & 1023::bigint);
    END IF;
    RETURN released9.next_id_jump_9();
END $$;
`

// oldJumpsAfterUpgrade runs TestUpgradeOldJumpsAfterwards's steps and
// returns the ID the drawing session got during the second released jump
// and the jump's own.
func oldJumpsAfterUpgrade(t *testing.T, parity bool) (drawn, jumped int64) {
	db, _ := newDB(t)
	ctx := context.Background()
	r := releasedInstagram
	text := r.text(t, nowClock)
	r.apply(t, db, nowClock)
	// The released jump, as a session that has not read the new catalog
	// still calls it.
	old := releasedJumpRE.FindString(text)
	if old == "" {
		t.Fatal("no jump function in the released generator")
	}
	mustExecDB(t, db, strings.Replace(old, "next_id_jump_9()", "released_jump()", 1))
	t0 := time.Now().UTC().Truncate(time.Second)
	d, a := newConn(t, db), newConn(t, db)
	setNow(t, d, t0)
	mustExec(t, d, "SELECT released9.next_id()")
	m, _ := migrate.New(db, pgfunc.WithClock(pgfunc.Options{}, nowClock), migrate.Options{OwnDatabaseOnly: true})
	if res, _ := m.Up(ctx, []pgfunc.Shard{r.shard}, nil); res[0].Err != nil || res[0].Note != "upgraded" {
		t.Fatalf("up over the released generator: %+v", res[0])
	}
	if parity {
		mustExecDB(t, db, parityBody)
	}
	// The first released jump, on a clock 50 ms on: the counter is behind.
	t1 := t0.Add(50 * time.Millisecond)
	setNow(t, a, t1)
	setNow(t, d, t1)
	mustExec(t, a, "SELECT released9.released_jump()")
	mustExec(t, d, "SELECT released9.next_id()") // the drawing session's plans are ready
	// The second, step by step, as the released jump makes it, on the
	// same clock (the counter is not behind: it jumps as the bookkeeping
	// is not at rest, or a clock a tick on would have it jump).
	j := newConn(t, db)
	mustExec(t, j, "BEGIN")
	mustExec(t, j, "LOCK TABLE released9.next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE")
	var begun, done, last int64
	if err := j.QueryRowContext(ctx, `SELECT pg_sequence_last_value('released9.next_id_jumps_begun'),
		pg_sequence_last_value('released9.next_id_jumps_done'), pg_sequence_last_value('released9.next_id_seq')`).Scan(&begun, &done, &last); err != nil {
		t.Fatal(err)
	}
	begun = max(begun, done) + 1
	mustExec(t, j, fmt.Sprintf("SELECT setval('released9.next_id_jumps_begun', %d)", begun))
	drawn = drawBeside(t, db, d, "SELECT released9.next_id()", func() {
		if err := j.QueryRowContext(ctx, fmt.Sprintf("SELECT setval('released9.next_id_seq', %d, false), nextval('released9.next_id_seq')", last+1)).Scan(new(int64), &jumped); err != nil {
			t.Fatal(err)
		}
		mustExec(t, j, fmt.Sprintf("SELECT setval('released9.next_id_jumps_done', %d)", begun))
		mustExec(t, j, "COMMIT")
	})
	l := shardid.Instagram()
	id, err := l.ComposeTicks(jumped>>l.SeqBits, r.shard.ID, jumped&l.MaxSeq())
	if err != nil {
		t.Fatal(err)
	}
	return drawn, id
}

// drawBeside runs query (one bigint) on conn while a jump made by hand is
// under way: it waits until the draw has returned or waits for a lock,
// runs finish (the rest of the jump), and returns the draw.
func drawBeside(t *testing.T, db *sql.DB, conn *sql.Conn, query string, finish func()) int64 {
	t.Helper()
	pid := backendPID(t, conn)
	type result struct {
		id  int64
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		r.err = conn.QueryRowContext(context.Background(), query).Scan(&r.id)
		ch <- r
	}()
	var early *result
	for stop := time.Now().Add(time.Minute); early == nil; {
		if time.Now().After(stop) {
			t.Fatal("the draw neither returned nor waited for a lock")
		}
		select {
		case r := <-ch:
			early = &r
		case <-time.After(10 * time.Millisecond):
		}
		var waiting bool
		if err := db.QueryRow("SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
	}
	finish()
	r := early
	if r == nil {
		rr := <-ch
		r = &rr
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.id
}
