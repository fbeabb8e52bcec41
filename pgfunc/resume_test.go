package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// resumeOptions is js53 with a 5 s lead on the database's test clock
// (clockAt), waiting 20 ms for a clock that never moves.
func resumeOptions() pgfunc.Options {
	return pgfunc.WithLeadWait(pgfunc.WithClock(pgfunc.Options{Layout: shardid.JS53(), Lead: 5 * time.Second}, nowClock), 20*time.Millisecond)
}

// idTime is the start of the tick of the ID schema's next_id() gives on db.
func idTime(t *testing.T, db *sql.DB, schema string) time.Time {
	t.Helper()
	var ts time.Time
	if err := db.QueryRow("SELECT " + schema + ".id_timestamp(" + schema + ".next_id())").Scan(&ts); err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	return ts.UTC()
}

// TestResumeMovesCounters: resume moves every counter in mode unique,
// live or kept by a down, to the first value of the tick that holds the
// clock plus the lead (or --after), leaves the classic modes alone, moves
// nothing on a rerun, and the next IDs (up again, for the kept one) come
// from there. (One database's counters, on the server the package's tests
// share: the Migrators look after their database only, and resume
// touches no other test's; TestResumeEveryDatabase resumes a server.)
func TestResumeMovesCounters(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	at := clockAt(t, db, dsn)
	t0 := time.Now().UTC().Truncate(time.Second)
	now := at(t0)
	o := resumeOptions()
	own := migrate.Options{OwnDatabaseOnly: true}
	m, _ := migrate.New(now, o, own)
	shards := []pgfunc.Shard{{Schema: "live", ID: 1}, {Schema: "kept", ID: 2}}
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	for _, s := range []string{"live", "kept"} {
		if _, err := now.Exec("SELECT count(" + s + ".next_id()) FROM generate_series(1, 1000)"); err != nil {
			t.Fatal(err)
		}
	}
	later := at(t0.Add(time.Second))
	m, _ = migrate.New(later, o, own)
	if r, _ := m.Down(ctx, shards[1:], nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("down: %+v", r[0])
	}
	res, err := resume.Run(ctx, m, nil, resume.Options{Lead: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	past := t0.Add(6 * time.Second) // the clock, t0 + 1 s, plus the lead
	moved := map[string]resume.Resumed{}
	for _, r := range res {
		moved[r.Schema] = r
	}
	for _, s := range []string{"live", "kept"} {
		r := moved[s]
		if r.Err != nil || !r.Moved || !r.Past.Equal(past) || r.To != shardid.JS53().MaxSeq()+(past.Sub(shardid.DefaultEpoch()).Milliseconds()/10)<<8-shardid.JS53().MaxSeq()-1 {
			t.Fatalf("resume of %s: %+v; want moved to just below the first value of %s's tick", s, r, past)
		}
	}
	if r := moved["kept"]; !r.Retired {
		t.Fatalf("resume of the counter a down kept: %+v; want Retired", r)
	}
	if len(res) != 2 {
		t.Fatalf("resume: %+v; want the live and the kept counter", res)
	}
	// A classic generator (in a database of its own: one kind per
	// database) is left alone.
	classicDB, _ := newDB(t)
	classic := pgfunc.Options{Layout: shardid.JS53(), Mode: pgfunc.ModeClassic}
	installWith(t, classicDB, pgfunc.Shard{Schema: "classic", ID: 3}, classic)
	if _, err := classicDB.Exec("SELECT count(classic.next_id()) FROM generate_series(1, 1000)"); err != nil {
		t.Fatal(err)
	}
	mc, _ := migrate.New(classicDB, classic, own)
	if cr, err := resume.Run(ctx, mc, nil, resume.Options{}, nil); err != nil || len(cr) != 1 || cr[0].Moved || cr[0].Err != nil || !strings.Contains(cr[0].Note, "repeats IDs by design") {
		t.Fatalf("resume of a classic generator: %+v, %v; want it left alone, saying why", cr, err)
	}
	// A rerun moves nothing.
	res, err = resume.Run(ctx, m, nil, resume.Options{Lead: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Moved || r.Err != nil {
			t.Fatalf("rerun of resume: %+v; want nothing moved", r)
		}
	}
	// Status, on a clock a second later, finds the counter ahead (by
	// about 4 s) but within its lead: a resume never puts it past.
	aSecondLater, _ := migrate.New(at(t0.Add(2*time.Second)), o, own)
	if st, err := aSecondLater.Status(ctx, shards[:1]); err != nil || !st[0].CounterRead || st[0].Ahead < 3*time.Second || st[0].PastLead() {
		t.Fatalf("status after resume: %+v, %v; want the counter read, about 4 s ahead, within its lead", st, err)
	}
	// The next IDs start at the first tick past the old server's reach,
	// one tick of the clock later (until then they would lie a tick past
	// the lead).
	tick := at(t0.Add(time.Second + 10*time.Millisecond))
	if got := idTime(t, tick, "live"); !got.Equal(past) {
		t.Fatalf("first ID after resume decodes to %s; want %s", got, past)
	}
	m, _ = migrate.New(tick, o, own)
	if r, _ := m.Up(ctx, shards[1:], nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("up of the kept counter: %+v", r[0])
	}
	if got := idTime(t, tick, "kept"); !got.Equal(past) {
		t.Fatalf("first ID of the kept counter after resume and up decodes to %s; want %s", got, past)
	}
	// --after, further ahead than the lead: IDs wait for the clock to
	// come within the lead of it.
	after := t0.Add(time.Minute)
	res, err = resume.Run(ctx, m, []pgfunc.Shard{{Schema: "live", ID: 1}, {Schema: "missing", ID: 9}}, resume.Options{After: after}, nil)
	if err != nil || len(res) != 2 || !res[0].Moved || !res[0].Past.Equal(after) || res[1].Note != "no counter" {
		t.Fatalf("resume --after of live and a missing schema: %+v, %v", res, err)
	}
	if st, err := m.Status(ctx, shards[:1]); err != nil || !st[0].PastLead() {
		t.Fatalf("status after resume --after a minute past the clock: %+v, %v; want the counter past its lead", st, err)
	}
	var id int64
	if err := tick.QueryRow("SELECT live.next_id()").Scan(&id); sqlState(err) != pgfunc.LeadExceededState {
		t.Fatalf("a draw 59 s before the clock reaches --after less the lead: %d, %v; want SHR10", id, err)
	}
	if got := idTime(t, at(after.Add(-5*time.Second+10*time.Millisecond)), "live"); !got.Equal(after) {
		t.Fatalf("first ID after resume --after decodes to %s; want %s", got, after)
	}
}

// TestResumeIsAJump: a resume reads the counter and moves it in one
// statement, and a draw between the two would be handed out again if the
// move went below it (an --after the draws outran). The test widens that
// window: it runs resume's lock and jump-counter statements, reads the
// counter, lets another session draw 2,000 IDs past it, then moves the
// counter forward from what it read to a tick below those draws. Resume
// bumps jumps_begun before it reads, so the draws take the slow path and
// wait for the jump lock it holds: none comes back. Without the bump (the
// negative control) they run into the window and come back.
func TestResumeIsAJump(t *testing.T) {
	t.Parallel()
	for _, protocol := range []bool{true, false} {
		again := resumeDuringDraws(t, protocol)
		switch {
		case protocol && again > 0:
			t.Fatalf("resume with the jump protocol: %d IDs drawn during it were handed out again", again)
		case !protocol && again == 0:
			t.Fatal("resume without the jump protocol: no ID came back; the test would not catch a resume that moved a counter under draws")
		case !protocol:
			t.Logf("negative control, resume without bumping the jump counters: %d IDs drawn during it handed out again", again)
		}
	}
}

// resumeDuringDraws runs the steps of TestResumeIsAJump, with or without
// the jump counters, and returns how many IDs came back.
func resumeDuringDraws(t *testing.T, protocol bool) (again int) {
	db, _ := newDB(t)
	ctx := context.Background()
	o := pgfunc.WithClock(pgfunc.Options{}, nowClock) // instagram: 1024 IDs a tick
	installWith(t, db, pgfunc.Shard{Schema: "rj", ID: 5}, o)
	t0 := time.Now().UTC().Truncate(time.Second)
	drawer, resumer := newConn(t, db), newConn(t, db)
	setNow(t, drawer, t0)
	draw := func(n int) ([]int64, error) {
		return queryInt64s(drawer, fmt.Sprintf("SELECT rj.next_id() FROM generate_series(1, %d)", n))
	}
	before, err := draw(500) // tick t0
	if err != nil {
		t.Fatal(err)
	}
	q := func(name string, data any) string {
		t.Helper()
		text, err := pgfunc.Query(name, data)
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	tx, err := resumer.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, q("resume_lock", `"rj"`)); err != nil {
		t.Fatal(err)
	}
	var begun int64
	if protocol {
		if err := tx.QueryRowContext(ctx, q("resume_begin_jump", nil), `"rj".next_id_jumps_begun`, `"rj".next_id_jumps_done`).Scan(&begun); err != nil {
			t.Fatal(err)
		}
	}
	var old int64
	if err := tx.QueryRowContext(ctx, "SELECT pg_sequence_last_value('rj.next_id_seq')").Scan(&old); err != nil {
		t.Fatal(err)
	}
	// The draws: 2,000 IDs, through ticks t0 + 1 ms and t0 + 2 ms.
	type drawn struct {
		ids []int64
		err error
	}
	during := make(chan drawn, 1)
	go func() {
		ids, err := draw(2000)
		during <- drawn{ids, err}
	}()
	var got drawn
	if protocol {
		waitForLock(t, db, "rj") // they wait for the resume
	} else {
		got = <-during // nothing holds them up
	}
	// The move, forward from what was read, to the first value of tick
	// t0 + 1 ms: above the read, below the draws.
	target := (t0.Add(time.Millisecond).UnixMilli()-shardid.DefaultEpochMillis)<<10 - 1
	if _, err := tx.ExecContext(ctx, "SELECT setval('rj.next_id_seq', greatest($1::bigint, $2::bigint), true)", old, target); err != nil {
		t.Fatal(err)
	}
	if protocol {
		if _, err := tx.ExecContext(ctx, q("resume_end_jump", nil), `"rj".next_id_jumps_done`, begun); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if protocol {
		got = <-during
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	after, err := draw(3000)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, ids := range [][]int64{before, got.ids, after} {
		for _, id := range ids {
			if seen[id] {
				again++
			}
			seen[id] = true
		}
	}
	return again
}

// waitForLock waits until a session waits for schema's jump lock.
func waitForLock(t *testing.T, db *sql.DB, schema string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var waiting bool
		err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted AND relation = to_regclass($1))`, schema+".next_id_jump_lock").Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the drawing session never waited for the jump lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestResumeUnderLoad: sessions draw all along while resume runs again
// and again on the real clock: no ID twice, the jump counters equal at
// the end, and every ID of a statement begun after a resume returned lies
// past that resume's instant.
func TestResumeUnderLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("draws for a few seconds")
	}
	db, _ := newDB(t)
	db.SetMaxOpenConns(8)
	ctx := context.Background()
	o := pgfunc.Options{Layout: shardid.JS53(), Lead: time.Second}
	sh := installWith(t, db, pgfunc.Shard{Schema: "load", ID: 6}, o)
	m, _ := migrate.New(db, o, migrate.Options{})
	type batch struct {
		start time.Time
		ids   []int64
	}
	var mu sync.Mutex
	var batches []batch
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				// At most 10 IDs per 2 ms per session, 20,000 a second for
				// the four, below js53's 25,600: the draws cannot hold the
				// counter at the lead's edge, where a resume by the same
				// lead finds it already past (a fast machine did, without
				// the pause), however fast or loaded the machine is.
				time.Sleep(2 * time.Millisecond)
				start := time.Now()
				rows, err := db.QueryContext(ctx, "SELECT load.next_id() FROM generate_series(1, 10)")
				if err != nil {
					errs <- err
					return
				}
				var b batch
				b.start = start
				for rows.Next() {
					var id int64
					if err := rows.Scan(&id); err != nil {
						errs <- err
						return
					}
					b.ids = append(b.ids, id)
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				batches = append(batches, b)
				mu.Unlock()
			}
		})
	}
	type resumed struct {
		done time.Time
		past time.Time
	}
	var resumes []resumed
	moved := 0
	for range 5 {
		time.Sleep(200 * time.Millisecond)
		res, err := resume.Run(ctx, m, []pgfunc.Shard{sh}, resume.Options{Lead: o.Lead}, nil)
		if err != nil || len(res) != 1 || res[0].Err != nil {
			t.Fatalf("resume under load: %+v, %v", res, err)
		}
		if res[0].Moved {
			moved++
		}
		resumes = append(resumes, resumed{time.Now(), res[0].Past})
	}
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	total, early := 0, 0
	l := shardid.JS53()
	for _, b := range batches {
		for _, id := range b.ids {
			total++
			if seen[id] {
				t.Fatalf("ID %d handed out twice while resume ran", id)
			}
			seen[id] = true
			p, _ := l.Decompose(id)
			for _, r := range resumes {
				if b.start.After(r.done) && p.Time.Add(l.TimeUnit).Before(r.past.Add(time.Nanosecond)) {
					early++
				}
			}
		}
	}
	if early > 0 {
		t.Fatalf("%d IDs drawn after a resume returned lie at or before its instant", early)
	}
	var begun, done int64
	if err := db.QueryRow("SELECT pg_sequence_last_value('load.next_id_jumps_begun'), pg_sequence_last_value('load.next_id_jumps_done')").Scan(&begun, &done); err != nil || begun != done {
		t.Fatalf("jump counters after resume under load: begun %d, done %d (%v)", begun, done, err)
	}
	if moved == 0 || total == 0 {
		t.Fatalf("%d of 5 resumes moved the counter, %d IDs drawn: the test did not resume under draws", moved, total)
	}
	t.Logf("4 sessions, %d IDs, 5 resumes (%d moved the counter): no ID twice", total, moved)
}

// TestResumeRefusals: resume refuses, per counter, a role that does not
// own the generators (the application role pg grant makes may draw, not
// move counters), and moves nothing. (The generator is applied looking
// after its database only, on the server the package's tests share.)
func TestResumeRefusals(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	shards := []pgfunc.Shard{{Schema: "rr", ID: 8}}
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	app := newRole(t, db, "app", "")
	if res, err := privilege.Grant(ctx, m.Server().DB(), shards, app, nil); err != nil || res[0].Err != nil {
		t.Fatalf("grant: %+v, %v", res, err)
	}
	state := func() string {
		var s string
		if err := db.QueryRow(`SELECT concat_ws(' ', pg_sequence_last_value('rr.next_id_seq'), pg_sequence_last_value('rr.next_id_jumps_begun'), pg_sequence_last_value('rr.next_id_jumps_done'))`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := db.Exec("SELECT rr.next_id()"); err != nil {
		t.Fatal(err)
	}
	before := state()
	asApp, _ := migrate.New(testsrv.Open(t, "pgx", dsnAs(t, dsn, app)), pgfunc.Options{}, migrate.Options{})
	res, err := resume.Run(ctx, asApp, shards, resume.Options{}, nil)
	if !pgfunc.IsPartial(err) || len(res) != 1 || res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "permission denied") || !strings.Contains(res[0].Err.Error(), "owner") {
		t.Fatalf("resume as the application role: %+v, %v; want the counter refused, naming the owner", res, err)
	}
	if after := state(); after != before {
		t.Fatalf("a refused resume moved counters: %s, before %s", after, before)
	}
}

// TestResumeEveryDatabase: without shards, resume moves the generators
// of every database of the server, template databases included (CREATE
// DATABASE copies them; up refuses to apply into a template, but
// template1 can hold one put there behind shardid's back, and a database
// made a template keeps its own), through the Connect the caller gives
// and through the connector the zero MigrateOptions derive from the pool;
// it reports a database it may not connect to as not read, a template
// that takes no connections included, as the census lists them.
func TestResumeEveryDatabase(t *testing.T) {
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	ctx := context.Background()
	nameOf := func(dsn string) string { return dbNameOf(t, testsrv.Open(t, "pgx", dsn)) }
	dsnA, dsnT, dsnS := testsrv.Database(t, srv), testsrv.Database(t, srv), testsrv.Database(t, srv)
	if _, err := srv.CreateDatabase(ctx, "closed"); err != nil {
		t.Fatal(err)
	}
	a := testsrv.Open(t, "pgx", dsnA)
	installWith(t, a, pgfunc.Shard{Schema: "in_a", ID: 1}, pgfunc.Options{})
	// A database made a template after it got a generator, and another
	// that takes no connections as well, as templates are often kept.
	tmpl, sealed := nameOf(dsnT), nameOf(dsnS)
	installWith(t, testsrv.Open(t, "pgx", dsnT), pgfunc.Shard{Schema: "in_tmpl", ID: 3}, pgfunc.Options{})
	installWith(t, testsrv.Open(t, "pgx", dsnS), pgfunc.Shard{Schema: "in_sealed", ID: 4}, pgfunc.Options{})
	execOn(t, dsnA, "ALTER DATABASE "+tmpl+" IS_TEMPLATE true", "ALTER DATABASE "+sealed+" IS_TEMPLATE true ALLOW_CONNECTIONS false",
		"ALTER DATABASE closed ALLOW_CONNECTIONS false")
	// template1 given a generator behind shardid's back (the migration's
	// Up without its checks, as a superuser's psql would run an older
	// one), once every other database has been created from it.
	t1, err := sql.Open("pgx", srv.DSN("template1"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = t1.Exec(stripChecks(t, renderedUp(t, pgfunc.Shard{Schema: "in_template", ID: 2}, pgfunc.Options{})))
	t1.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []struct {
		name string
		mo   migrate.Options
		ro   resume.Options
	}{
		{"Connect", migrate.Options{Connect: func(ctx context.Context, name string) (*sql.DB, error) { return sql.Open("pgx", srv.DSN(name)) }}, resume.Options{Lead: 5 * time.Second}},
		{"the derived connector", migrate.Options{}, resume.Options{After: time.Now().Add(time.Minute)}}, // past the first run's moves
	} {
		m, err := migrate.New(a, pgfunc.Options{}, how.mo)
		if err != nil {
			t.Fatal(err)
		}
		res, err := resume.Run(ctx, m, nil, how.ro, nil)
		if err != nil && !pgfunc.IsPartial(err) { // partial: each counter's result says
			t.Fatalf("%s: %v", how.name, err)
		}
		got := map[string]resume.Resumed{}
		for _, r := range res {
			got[r.Database+"."+r.Schema] = r
		}
		for _, where := range []string{".in_a", "template1.in_template", tmpl + ".in_tmpl"} {
			if r := got[where]; !r.Moved || r.Err != nil {
				t.Fatalf("%s: %s: %+v; want it moved (all: %+v)", how.name, where, r, res)
			}
		}
		for _, name := range []string{"closed", sealed} {
			if r := got[name+"."]; !errors.Is(r.Err, resume.ErrDatabaseNotRead) {
				t.Fatalf("%s: database %s, which takes no connections: %+v; want ErrDatabaseNotRead (all: %+v)", how.name, name, r, res)
			}
		}
		if len(res) != 5 {
			t.Fatalf("%s: %d results; want 3 counters and 2 databases not read: %+v", how.name, len(res), res)
		}
	}
	// The census of the same server lists the same databases.
	c, err := migrator(t, dsnA, pgfunc.Options{}, migrate.Options{}).Server().Census(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(c.Closed)
	slices.Sort(c.Templates)
	if want := []string{"closed", sealed}; !slices.Equal(c.Closed, want) || !slices.Equal(c.Templates, []string{tmpl, "template1"}) {
		t.Fatalf("census: closed %v, templates %v; want closed %v and templates %s, template1", c.Closed, c.Templates, want, tmpl)
	}
}
