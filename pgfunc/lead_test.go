package pgfunc_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/tools/testsrv"
)

// leadOptions is js53 with the given lead on the per-session test clock
// (shardid_test.now), waiting 20 ms for a clock that never moves.
func leadOptions(lead time.Duration) pgfunc.Options {
	return pgfunc.WithLeadWait(pgfunc.WithClock(pgfunc.Options{Layout: shardid.JS53(), Lead: lead}, nowClock), 20*time.Millisecond)
}

// setNow sets conn's test clock (shardid_test.now).
func setNow(t testing.TB, conn *sql.Conn, ts time.Time) {
	t.Helper()
	if _, err := conn.ExecContext(context.Background(), "SELECT set_config('shardid_test.now', $1, false)", ts.UTC().Format(time.RFC3339Nano)); err != nil {
		t.Fatal(err)
	}
}

// drawAt draws n IDs from schema in one statement on conn and returns how
// many came back and how many of them lie past the lead: their tick ends
// more than lead after clock, conn's test clock.
func drawAt(conn *sql.Conn, schema string, n int, clock time.Time, lead time.Duration) (got, pastLead int64, err error) {
	q := fmt.Sprintf(`SELECT count(*), count(*) FILTER (WHERE %[1]s.id_timestamp(id) + interval '10 ms' > $2::timestamptz + $3::interval)
		FROM (SELECT %[1]s.next_id() AS id FROM generate_series(1, $1::int)) s`, schema)
	err = conn.QueryRowContext(context.Background(), q, n, clock.UTC().Format(time.RFC3339Nano), lead.String()).Scan(&got, &pastLead)
	return got, pastLead, err
}

// recordNoLead makes sh's generator, applied with o, look applied by a
// shardid without the bounded lead: its counter's comment is rewritten as
// such a release wrote it (its metadata without lead_ms, marshalled by
// encoding/json, as every release has).
func recordNoLead(t *testing.T, db *sql.DB, sh pgfunc.Shard, o pgfunc.Options) {
	t.Helper()
	meta, err := pgfunc.MetaFor(sh, o)
	if err != nil {
		t.Fatal(err)
	}
	meta.LeadMS = 0
	text, err := json.Marshal(meta)
	if err != nil || strings.ContainsRune(string(text), '\'') {
		t.Fatalf("metadata %s (%v): not a plain literal", text, err)
	}
	if _, err := db.Exec(fmt.Sprintf("COMMENT ON SEQUENCE %s.next_id_seq IS '%s'", sh.Schema, text)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("DROP FUNCTION %s.next_id_meta()", sh.Schema)); err != nil { // which no such release had
		t.Fatal(err)
	}
}

// TestLeadBoundsDraws: with the clock stopped, a shard hands out IDs up to
// its lead ahead of the clock and no further: the next draw, in a
// transaction with a transaction id or without one, waits for the clock
// and then raises SHR10 naming the shard, how far ahead and the lead;
// once the clock moves on, draws go on, never past the lead; on a clock
// stepped back further than the lead, none. next_id_bulk() and next_ids()
// are held alike, and next_ids() refuses more IDs than the lead holds. The
// body without the lead (the negative control) runs past it.
func TestLeadBoundsDraws(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	conn := newConn(t, db)
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Second)
	setNow(t, conn, t0)
	const lead = time.Second // js53: 100 ticks of 256 IDs
	o := leadOptions(lead)
	sh := installWith(t, db, pgfunc.Shard{Schema: "lead", ID: 7}, o)
	got, past, err := drawAt(conn, sh.Schema, 25_600, t0, lead)
	if err != nil || got != 25_600 || past != 0 {
		t.Fatalf("25,600 draws at a stopped clock: %d IDs, %d past the lead, %v; want all of them within it", got, past, err)
	}
	check := func(what string, err error) {
		t.Helper()
		msg := fmt.Sprint(err)
		if sqlState(err) != pgfunc.LeadExceededState || !strings.Contains(msg, "shard 7 ") || !strings.Contains(msg, "lead of 1s") || !strings.Contains(msg, "ahead of the clock") {
			t.Fatalf("%s, past the lead: %v; want SQLSTATE %s naming the shard, how far ahead and the lead", what, err, pgfunc.LeadExceededState)
		}
	}
	var id int64
	check("an autocommit draw", conn.QueryRowContext(ctx, "SELECT lead.next_id()").Scan(&id))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "CREATE TEMP TABLE x (i int); INSERT INTO x VALUES (1)"); err != nil { // a transaction id
		t.Fatal(err)
	}
	check("a draw in a transaction with a transaction id", tx.QueryRowContext(ctx, "SELECT lead.next_id()").Scan(&id))
	_ = tx.Rollback()
	_, _, err = drawAt(conn, sh.Schema, 1000, t0, lead)
	check("a bulk draw", err)
	check("a draw of next_id_bulk()", conn.QueryRowContext(ctx, "SELECT lead.next_id_bulk()").Scan(&id))
	check("a reservation of next_ids(10)", conn.QueryRowContext(ctx, "SELECT count(*) FROM lead.next_ids(10)").Scan(&id))
	// More IDs at once than the lead holds (100 ticks of 256) are refused
	// before anything moves.
	err = conn.QueryRowContext(ctx, "SELECT count(*) FROM lead.next_ids(25601)").Scan(&id)
	if sqlState(err) != "22023" || !strings.Contains(fmt.Sprint(err), "want 1 to 25600 IDs") {
		t.Fatalf("next_ids(25601) with a lead of 25,600 IDs: %v; want invalid_parameter_value naming the most it takes", err)
	}
	// The clock moves on 100 ms (10 ticks): draws go on, within the lead.
	setNow(t, conn, t0.Add(100*time.Millisecond))
	got, past, err = drawAt(conn, sh.Schema, 2000, t0.Add(100*time.Millisecond), lead)
	if err != nil || past != 0 {
		t.Fatalf("2,000 draws once the clock moved 100 ms: %d IDs, %d past the lead, %v", got, past, err)
	}
	// A clock stepped back further than the lead: no draw until it has
	// caught up.
	setNow(t, conn, t0.Add(-10*time.Second))
	check("a draw on a clock stepped back 10 s", conn.QueryRowContext(ctx, "SELECT lead.next_id()").Scan(&id))

	// The negative control: the body without the lead, the same draws.
	broken := pgfunc.Shard{Schema: "lead_broken", ID: 8}
	installVariant(t, db, broken, o, withoutLead)
	setNow(t, conn, t0)
	got, past, err = drawAt(conn, broken.Schema, 30_000, t0, lead)
	if err != nil || past == 0 {
		t.Fatalf("%s: 30,000 draws at a stopped clock: %d IDs, %d past the lead, %v; the test would not catch a body without the lead", withoutLead.name, got, past, err)
	}
	t.Logf("lead 1s at a stopped clock: 25,600 IDs, then SHR10; %s: %d of 30,000 IDs past the lead", withoutLead.name, past)
}

// TestRefusedReservationStays: with the clock stopped and a lead of 1 s
// (25,600 js53 IDs), one next_ids(25600) takes the whole lead; three more
// are refused (SHR10) and leave the counter where it was but for the
// single values their tries drew, so once the clock moves on 100 ms
// next_id() draws again. (Before: each refused reservation had moved the
// counter past its n values first, 1 s further ahead each time, and every
// draw then failed until the clock caught up: a role with EXECUTE on
// next_ids could push the counter 45 s ahead in twelve calls, in an
// outside trial.)
func TestRefusedReservationStays(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	conn := newConn(t, db)
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Second)
	setNow(t, conn, t0)
	o := leadOptions(time.Second)
	installWith(t, db, pgfunc.Shard{Schema: "resv", ID: 7}, o)
	var n, last int64
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM resv.next_ids(25600)").Scan(&n); err != nil || n != 25600 {
		t.Fatalf("next_ids(25600) at a stopped clock: %d IDs, %v", n, err)
	}
	counter := func() int64 {
		t.Helper()
		var v int64
		if err := conn.QueryRowContext(ctx, "SELECT last_value FROM resv.next_id_seq").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	last = counter()
	for range 3 {
		err := conn.QueryRowContext(ctx, "SELECT count(*) FROM resv.next_ids(25600)").Scan(&n)
		if sqlState(err) != pgfunc.LeadExceededState {
			t.Fatalf("next_ids(25600) with the lead taken: %v; want SQLSTATE %s", err, pgfunc.LeadExceededState)
		}
		if now := counter(); now-last >= 256 {
			t.Fatalf("a refused reservation moved the counter from %d to %d (%d values)", last, now, now-last)
		} else {
			last = now
		}
	}
	setNow(t, conn, t0.Add(100*time.Millisecond))
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT resv.next_id()").Scan(&id); err != nil {
		t.Fatalf("a draw once the clock moved on 100 ms after refused reservations: %v", err)
	}
}

// TestLeadWaitsForTheClock: on the real clock, a burst faster than the
// layout's ticks (10,000 js53 IDs, 39 ticks of 256, with a lead of 100 ms)
// waits for the clock instead of failing: every ID comes back, none twice,
// and none lies past the lead of the clock read right after its draw.
func TestLeadWaitsForTheClock(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	const lead = 100 * time.Millisecond
	sh := installWith(t, db, pgfunc.Shard{Schema: "waits", ID: 9}, pgfunc.Options{Layout: shardid.JS53(), Lead: lead})
	var rows, dups, past int64
	var span float64
	err := db.QueryRow(`SELECT count(*), count(*) - count(DISTINCT id),
			count(*) FILTER (WHERE waits.id_timestamp(id) + interval '10 ms' > after + interval '100 ms'),
			extract(epoch FROM max(waits.id_timestamp(id)) - min(waits.id_timestamp(id)))
		FROM (SELECT waits.next_id() AS id, clock_timestamp() AS after FROM generate_series(1, 10000)) s`).Scan(&rows, &dups, &past, &span)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 10_000 || dups != 0 || past != 0 {
		t.Fatalf("%s: a burst of 10,000: %d IDs, %d duplicates, %d past the lead of the clock after their draw", sh.Schema, rows, dups, past)
	}
	if span <= lead.Seconds() {
		t.Fatalf("the burst's IDs span %.3fs, not more than the lead: the test did not make the burst outrun the ticks", span)
	}
	t.Logf("10,000 js53 IDs with a 100 ms lead: none past it, spanning %.0f ms of ticks", span*1000)
}

// TestLeadOption: the lead is validated, recorded in the generator's
// metadata in mode unique only, and not part of what makes two
// generators the same.
func TestLeadOption(t *testing.T) {
	t.Parallel()
	sh := pgfunc.Shard{Schema: "s", ID: 1}
	for _, c := range []struct {
		o    pgfunc.Options
		want string
	}{
		{pgfunc.Options{Lead: 500 * time.Microsecond}, "invalid lead 500µs"},
		{pgfunc.Options{Lead: 1500 * time.Microsecond}, "invalid lead 1.5ms"},
		{pgfunc.Options{Layout: shardid.JS53(), Lead: 5 * time.Millisecond}, "from the layout's tick (10ms)"},
		{pgfunc.Options{Lead: 2 * time.Hour}, "to 1h0m0s"},
		{pgfunc.Options{Lead: -time.Second}, "invalid lead -1s"},
	} {
		if _, err := pgfunc.Render(sh, c.o); !errors.Is(err, pgfunc.ErrInvalidLead) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Render with lead %s: %v; want ErrInvalidLead saying %q", c.o.Lead, err, c.want)
		}
	}
	def, err := pgfunc.MetaFor(sh, pgfunc.Options{})
	if err != nil || def.Lead() != pgfunc.DefaultLead {
		t.Fatalf("default lead: %+v, %v", def, err)
	}
	ten, _ := pgfunc.MetaFor(sh, pgfunc.Options{Lead: 10 * time.Second})
	if ten.LeadMS != 10_000 || !ten.SameGenerator(def) {
		t.Fatalf("lead 10s: %+v; want lead_ms 10000 and the same generator as the default's", ten)
	}
	classic, _ := pgfunc.MetaFor(sh, pgfunc.Options{Mode: pgfunc.ModeClassic})
	if classic.LeadMS != 0 {
		t.Fatalf("mode classic records a lead: %+v", classic)
	}
	text, _ := pgfunc.Render(sh, pgfunc.Options{Mode: pgfunc.ModeClassicSQL})
	if strings.Contains(string(text), `"lead_ms"`) {
		t.Fatal("a classic-sql generator's comment records a lead")
	}
}

// TestUpAndTheLead: up refuses to change a live generator's lead (it is
// next_id()'s body, which up does not replace) and status reports it as
// differing; down then up with the new lead carries the counter on. (One
// database's generator: the Migrators look after their database only, on
// the server the package's tests share.)
func TestUpAndTheLead(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	shards := shardsFor(t, "12")
	own := migrate.Options{OwnDatabaseOnly: true}
	five, _ := migrate.New(db, pgfunc.Options{}, own)
	ten, _ := migrate.New(db, pgfunc.Options{Lead: 10 * time.Second}, own)
	if r, _ := five.Up(ctx, shards, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	var last int64
	if err := db.QueryRow("SELECT max(insta12.next_id()) FROM generate_series(1, 3000)").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if r, _ := ten.Up(ctx, shards, nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) || !strings.Contains(r[0].Err.Error(), "lead of 5s, requested 10s") {
		t.Fatalf("up with another lead: applied=%v err=%v; want ErrGeneratorMismatch naming both leads", r[0].Applied, r[0].Err)
	}
	if st, err := ten.Status(ctx, shards); err != nil || st[0].Matches {
		t.Fatalf("status with another lead: %+v, %v; want it not to match", st, err)
	}
	if r, _ := five.Down(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("down: %+v", r[0])
	}
	if r, _ := ten.Up(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("up with the new lead after down: %+v", r[0])
	}
	var first int64
	if err := db.QueryRow("SELECT insta12.next_id()").Scan(&first); err != nil || first <= last {
		t.Fatalf("after down and up with another lead: %d (%v), not above %d", first, err, last)
	}
	st, err := ten.Status(ctx, shards)
	if err != nil || !st[0].Matches || st[0].Installed.Lead() != 10*time.Second {
		t.Fatalf("status after up with lead 10s: %+v, %v", st, err)
	}
}

// TestStatusCounterPastLead: the application role cannot move a counter
// back, but its USAGE lets it push one ahead with raw nextval calls.
// Status reports a counter further ahead than its lead (and none after
// draws through next_id(), whatever their rate). It reads the counters
// of its own database while it reads the whole server: another database
// holds a schema of the same name, drawn through next_id(), which status
// there reports within its lead, and the census of either finds all
// three generators.
func TestStatusCounterPastLead(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	dsn, dsnB := testsrv.Database(t, srv), testsrv.Database(t, srv)
	db := testsrv.Open(t, "pgx", dsn)
	ctx := context.Background()
	js := pgfunc.Options{Layout: shardid.JS53()}
	m := migrator(t, dsn, js, migrate.Options{})
	shards := []pgfunc.Shard{{Schema: "pushed", ID: 3}, {Schema: "drawn", ID: 4}}
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	other := migrator(t, dsnB, js, migrate.Options{})
	if r := up(other, pgfunc.Shard{Schema: "pushed", ID: 5}); r.Err != nil {
		t.Fatal(r.Err)
	}
	app := newRole(t, db, "app", "")
	if res, err := privilege.Grant(ctx, m.Server().DB(), shards, app, nil); err != nil || res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("grant: %+v, %v", res, err)
	}
	conn := asRole(t, dsn, app)
	// The first draw moves the counter to the clock; 300,000 values more
	// are 11.7 s of js53 ticks: far past the 5 s lead.
	if _, err := conn.ExecContext(ctx, "SELECT pushed.next_id()"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT count(nextval('pushed.next_id_seq')) FROM generate_series(1, 300000)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT count(drawn.next_id()) FROM generate_series(1, 20000)"); err != nil {
		t.Fatal(err)
	}
	execOn(t, dsnB, "SELECT count(pushed.next_id()) FROM generate_series(1, 20000)")
	st, err := m.Status(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]migrate.Status{}
	for _, s := range st {
		got[s.Shard.Schema] = s
	}
	if s := got["pushed"]; len(st) != 2 || !s.PastLead() {
		t.Fatalf("a counter pushed 11.7 s ahead by raw nextval: %+v (all: %+v); want it reported past its lead", s, st)
	}
	if s := got["drawn"]; !s.CounterRead || s.PastLead() {
		t.Fatalf("a counter drawn through next_id(): %+v; want it read and not past the lead", s)
	}
	stB, err := other.Status(ctx, nil)
	if err != nil || len(stB) != 1 || stB[0].Shard.ID != 5 || !stB[0].CounterRead || stB[0].PastLead() {
		t.Fatalf("status of the other database's schema pushed, drawn through next_id(): %+v, %v; want it read and not past the lead", stB, err)
	}
	for _, mm := range []*migrate.Migrator{m, other} {
		if c, err := mm.Server().Census(ctx); err != nil || len(c.Generators) != 3 {
			t.Fatalf("census of %s: %+v, %v; want the 3 generators of both databases", c.Database, c, err)
		}
	}
	t.Logf("status: pushed %s ahead (past its 5s lead); drawn %s; the other database's pushed %s", got["pushed"].Ahead.Round(time.Millisecond),
		got["drawn"].Ahead.Round(time.Millisecond), stB[0].Ahead.Round(time.Millisecond))
}

// TestOutdatedWithoutLead: a generator in mode unique applied by a
// shardid without the bounded lead (its comment records no lead_ms) is
// outdated: up refuses it, status flags it; down (with its own options)
// then up replaces it and carries its counter on. (One database's
// generator, on the server the package's tests share.)
func TestOutdatedWithoutLead(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	shards := shardsFor(t, "13")
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	var last int64
	if err := db.QueryRow("SELECT max(insta13.next_id()) FROM generate_series(1, 3000)").Scan(&last); err != nil {
		t.Fatal(err)
	}
	recordNoLead(t, db, shards[0], pgfunc.Options{})
	if r, _ := m.Up(ctx, shards, nil); !errors.Is(r[0].Err, pgfunc.ErrOutdatedGenerator) || !strings.Contains(r[0].Err.Error(), "no lead") {
		t.Fatalf("up over a generator without a lead: %+v; want ErrOutdatedGenerator saying why", r[0])
	}
	if st, err := m.Status(ctx, shards); err != nil || !st[0].Outdated {
		t.Fatalf("status: %+v, %v; want it outdated", st, err)
	}
	if r, _ := m.DownInstalled(ctx, shards, migrate.Asked{}, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("down: %+v", r[0])
	}
	if r, _ := m.Up(ctx, shards, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("up after down: %+v", r[0])
	}
	var first int64
	if err := db.QueryRow("SELECT insta13.next_id()").Scan(&first); err != nil || first <= last {
		t.Fatalf("after down and up: %d (%v), not above %d", first, err, last)
	}
}

// TestUpRefusesLayoutEnd: up refuses a layout that has ended (js53 from
// 1980 ended in 2023: every draw would raise) or ends within the end
// margin, naming the end; a smaller margin lets the second through. (Up's
// own check, made before it reads the server: the Migrators look after
// their database only, on the server the package's tests share.)
func TestUpRefusesLayoutEnd(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	old := shardid.JS53()
	old.Epoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	soon := shardid.JS53()
	soon.Epoch = time.Now().Add(-soon.End().Sub(soon.Epoch)).Add(180 * 24 * time.Hour) // ends in about 180 days
	for _, c := range []struct {
		name   string
		l      shardid.Layout
		margin time.Duration
		want   string // "" for no refusal
	}{
		{"ended", old, 0, "ended at 2023-"},
		{"ended, no margin", old, -1, "ended at 2023-"},
		{"ends within the default margin", soon, 0, "within the end margin of 365 days"},
		{"ends after a 30-day margin", soon, 30 * 24 * time.Hour, ""},
		{"ends after no margin", soon, -1, ""},
	} {
		m, err := migrate.New(db, pgfunc.Options{Layout: c.l}, migrate.Options{EndMargin: c.margin, OwnDatabaseOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		schema := "end_" + strings.NewReplacer(" ", "_", ",", "", "-", "_").Replace(c.name)
		r := results(m.Up(ctx, []pgfunc.Shard{{Schema: schema, ID: 1 + int64(len(schema))}}, nil))[0]
		switch {
		case c.want == "" && r.Err != nil:
			t.Errorf("%s: %v", c.name, r.Err)
		case c.want != "" && (!errors.Is(r.Err, pgfunc.ErrLayoutEnds) || !strings.Contains(r.Err.Error(), c.want) || r.Applied):
			t.Errorf("%s: applied=%v err=%v; want ErrLayoutEnds saying %q", c.name, r.Applied, r.Err, c.want)
		}
		if c.want == "" {
			if _, err := db.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil { // free the shard id
				t.Fatal(err)
			}
		}
	}
}

// TestMinIDAnyTimestamp: min_id answers for every timestamp, as its
// comment says: -infinity and instants before the epoch give 0, infinity
// and instants past the layout's end (294247 AD included) the smallest ID
// of its last tick, never an error. Each layout has a database of its
// own: generators of layouts whose IDs can meet never share one.
func TestMinIDAnyTimestamp(t *testing.T) {
	t.Parallel()
	for i, name := range shardid.LayoutNames() {
		db, _ := newDB(t)
		l, _ := shardid.LayoutByName(name)
		schema := "minid_" + name
		installWith(t, db, pgfunc.Shard{Schema: schema, ID: int64(i)}, pgfunc.Options{Layout: l})
		last := l.MaxTicks() << (l.ShardBits + l.SeqBits)
		mid, _ := l.Compose(time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC), 0, 0)
		for ts, want := range map[string]int64{
			"-infinity": 0, "1900-01-01 00:00:00+00": 0, "2030-06-01 00:00:00+00": mid,
			"2200-01-01 00:00:00+00": last, "294247-06-01 00:00:00+00": last, "294276-12-31 00:00:00+00": last, "infinity": last,
		} {
			var got int64
			if err := db.QueryRow("SELECT "+schema+".min_id($1::timestamptz)", ts).Scan(&got); err != nil || got != want {
				t.Errorf("%s.min_id('%s') = %d, %v; want %d", schema, ts, got, err, want)
			}
		}
	}
}

// TestDownInstalled: down can take a generator's layout, epoch and mode
// from the database, and holds it only to the options a caller names. On
// a server with several databases (the Migrators read them all), it
// takes down the schema of its own database, not another database's
// schema of the same name.
func TestDownInstalled(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	dsn, dsnB := testsrv.Database(t, srv), testsrv.Database(t, srv)
	db := testsrv.Open(t, "pgx", dsn)
	ctx := context.Background()
	l := shardid.JS53()
	l.Epoch = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	o := pgfunc.Options{Layout: l, Mode: pgfunc.ModeClassic}
	gen := migrator(t, dsn, o, migrate.Options{})
	shards := []pgfunc.Shard{{Schema: "own", ID: 5}}
	if r, _ := gen.Up(ctx, shards, nil); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	if r := up(migrator(t, dsnB, o, migrate.Options{}), pgfunc.Shard{Schema: "own", ID: 6}); r.Err != nil {
		t.Fatal(r.Err)
	}
	def := migrator(t, dsn, pgfunc.Options{}, migrate.Options{})
	if r, _ := def.Down(ctx, shards, nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) {
		t.Fatalf("Down with other options: %+v; want ErrGeneratorMismatch", r[0])
	}
	for _, asked := range []migrate.Asked{{Layout: true}, {Epoch: true}, {Mode: true}} {
		if r, _ := def.DownInstalled(ctx, shards, asked, nil); !errors.Is(r[0].Err, pgfunc.ErrGeneratorMismatch) || r[0].Applied {
			t.Fatalf("DownInstalled naming %+v, which differs: %+v; want ErrGeneratorMismatch", asked, r[0])
		}
	}
	js := migrator(t, dsn, pgfunc.Options{Layout: shardid.JS53(), Mode: pgfunc.ModeClassic}, migrate.Options{})
	if r, _ := js.DownInstalled(ctx, shards, migrate.Asked{Layout: true, Mode: true}, nil); r[0].Err != nil || !r[0].Applied {
		t.Fatalf("DownInstalled naming the layout and mode it has (not the epoch): %+v", r[0])
	}
	var left bool
	if err := db.QueryRow("SELECT to_regprocedure('own.next_id()') IS NOT NULL").Scan(&left); err != nil || left {
		t.Fatalf("next_id() still there after down (%v)", err)
	}
	var id int64
	if err := testsrv.Open(t, "pgx", dsnB).QueryRow("SELECT own.next_id()").Scan(&id); err != nil {
		t.Fatalf("the other database's schema own after down here: %v; want its generator left alone", err)
	}
	c, err := def.Server().Census(ctx)
	if err != nil || len(c.Generators) != 1 || c.Generators[0].Meta.Shard != 6 || len(c.Retired) != 1 || c.Retired[0].Meta.Shard != 5 {
		t.Fatalf("census after down: %+v, %v; want shard 6 live in the other database and shard 5's counter kept here", c, err)
	}
}

// TestLeadIsNotAKind: generators that differ only in their lead make the
// same IDs for the same shard ids, so one server holds them side by side
// without AllowMixed: up applies a shard with another lead beside one of
// the default lead (in another database, and in the same one through
// goose alone), and beside a generator that records no lead (applied by
// an older shardid); the census finds one kind.
func TestLeadIsNotAKind(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	dsnA, dsnB := testsrv.Database(t, srv), testsrv.Database(t, srv)
	if r := up(migrator(t, dsnA, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "insta1", ID: 1}); r.Err != nil || !r.Applied {
		t.Fatalf("up of shard 1, lead 5s: %+v", r)
	}
	ten := pgfunc.Options{Lead: 10 * time.Second}
	if r := up(migrator(t, dsnB, ten, migrate.Options{}), pgfunc.Shard{Schema: "insta2", ID: 2}); r.Err != nil || !r.Applied {
		t.Fatalf("up of shard 2, lead 10s, beside shard 1 of lead 5s in another database: %+v; want it applied without AllowMixed", r)
	}
	if err := gooseUp(t, testsrv.Open(t, "pgx", dsnA), "goose_lead", []pgfunc.Shard{{Schema: "insta3", ID: 3}}, pgfunc.Options{Lead: 2 * time.Second}); err != nil {
		t.Fatalf("goose up of shard 3, lead 2s, beside shard 1 of lead 5s: %v", err)
	}
	// A generator applied by a shardid without the lead records none.
	recordNoLead(t, testsrv.Open(t, "pgx", dsnA), pgfunc.Shard{Schema: "insta1", ID: 1}, pgfunc.Options{})
	m := migrator(t, dsnB, pgfunc.Options{}, migrate.Options{})
	if r := up(m, pgfunc.Shard{Schema: "insta4", ID: 4}); r.Err != nil || !r.Applied {
		t.Fatalf("up of shard 4 beside a generator that records no lead: %+v; want it applied without AllowMixed", r)
	}
	c, err := m.Server().Census(context.Background())
	if err != nil || len(c.Generators) != 4 {
		t.Fatalf("census: %+v, %v; want 4 generators", c, err)
	}
	if pairs := inventory.Mixed(c.Generators); len(pairs) != 0 {
		t.Fatalf("Mixed: %+v; want one kind", pairs)
	}
}
