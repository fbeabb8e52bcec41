package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// burstLayout is js53 with 16 IDs per 10 ms tick instead of 256: a burst
// runs a second ahead of the clock every 1,600 IDs instead of every
// 25,600, so the restore and failover tests get the time geometry of
// js53 bursts 16 times larger (a 12,500-ID burst here runs as far ahead as
// a 200,000-ID js53 burst) from 16 times fewer draws. The lead bounds
// time, not IDs: what these tests prove depends on how far ahead of the
// clock a burst gets, not on how many IDs it took to get there.
func burstLayout() shardid.Layout {
	l := shardid.JS53()
	l.Name, l.SeqBits = "", 4
	return l
}

// burstOptions renders burstLayout with the given lead on the per-session
// test clock (shardid_test.now), waiting 20 ms for the clock past the
// lead.
func burstOptions(lead time.Duration) pgfunc.Options {
	return pgfunc.WithLeadWait(pgfunc.WithClock(pgfunc.Options{Layout: burstLayout(), Lead: lead}, nowClock), 20*time.Millisecond)
}

// drawAsAllowed draws n IDs from schema on conn as fast as the generator
// lets a client, on conn's test clock, which starts at clock: chunks of
// 60 IDs in one statement (under 4 ticks of burstLayout, as 1,000 js53
// IDs are); when a chunk fails past the lead (SHR10), the clock moves on
// 100 ms (10 ticks: 160 IDs, more than a chunk, or the retries would
// draw the room up and never catch up) and the client tries again.
// It returns the IDs handed out and the clock reading of the last chunk
// that succeeded. A body without the lead never fails: its chunks all run
// at clock.
func drawAsAllowed(t *testing.T, conn *sql.Conn, schema string, n int, clock time.Time) (ids []int64, last time.Time) {
	t.Helper()
	setNow(t, conn, clock)
	for tries := 0; len(ids) < n; tries++ {
		if tries > 10_000 {
			t.Fatalf("%s: %d of %d IDs after %d statements", schema, len(ids), n, tries)
		}
		chunk, err := queryInt64s(conn, fmt.Sprintf("SELECT %s.next_id() FROM generate_series(1, %d)", schema, min(60, n-len(ids))))
		switch {
		case sqlState(err) == pgfunc.LeadExceededState:
			clock = clock.Add(100 * time.Millisecond)
			setNow(t, conn, clock)
		case err != nil:
			t.Fatalf("%s: %v", schema, err)
		default:
			ids, last = append(ids, chunk...), clock
		}
	}
	return ids, last
}

// repeats counts the IDs of b that are in a.
func repeats(a, b []int64) int {
	in := make(map[int64]bool, len(a))
	for _, id := range a {
		in[id] = true
	}
	n := 0
	for _, id := range b {
		if in[id] {
			n++
		}
	}
	return n
}

// restoreCase is one shard of TestRestoreAndFailover: its generator (with
// the lead, or the body without it), when the new primary draws (how
// long after the old one's last draw), and whether pg resume runs first.
type restoreCase struct {
	name    string
	shard   int64
	bounded bool          // the generator as rendered (false: withoutLead)
	delay   time.Duration // from the old primary's last draw to the new one's first
	resume  bool
}

// TestRestoreAndFailover: a burst of 12,500 IDs per shard (burstLayout:
// about 7.8 s of ticks, as far ahead as 200,000 js53 IDs) on a
// server, then (a) a base backup taken before the burst is restored, and
// (b) an async standby that did not receive the burst is promoted; the new
// primary draws 200,000 IDs per shard, and they are checked against the
// old primary's. Time is the per-session test clock, the old server's last
// draw at its reading c. With the lead (5 s), a new primary whose first
// draw reads c + 5 s or later repeats nothing; one that draws sooner can
// repeat the old IDs, and pg resume before it draws makes that 0. The
// body without the lead (the negative control, the generator before it)
// repeats IDs even when drawing 5 s later.
func TestRestoreAndFailover(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("bursts on servers of its own, restored and promoted")
	}
	const (
		burst = 12_500
		lead  = 5 * time.Second
	)
	cases := []restoreCase{
		{"before: no lead, drawing 1 s later", 1, false, time.Second, false},
		{"negative control: no lead, drawing the lead later", 2, false, lead, false},
		{"lead, drawing 1 s later", 3, true, time.Second, false},
		{"lead, drawing 1 s later after pg resume", 4, true, time.Second, true},
		{"lead, drawing the lead later", 5, true, lead, false},
	}
	origin := testsrv.NewPG(t, dbserver.PGOptions{})
	ctx := context.Background()
	dsn := testsrv.Database(t, origin)
	db := testsrv.Open(t, "pgx", dsn)
	dbName := dbNameOf(t, db)
	o := burstOptions(lead)
	schema := func(c restoreCase) string { return fmt.Sprintf("r%d", c.shard) }
	for _, c := range cases {
		sh := pgfunc.Shard{Schema: schema(c), ID: c.shard}
		if c.bounded {
			installWith(t, db, sh, o)
		} else {
			installVariant(t, db, sh, o, withoutLead)
		}
	}
	backup, err := origin.BaseBackup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backup.Remove() })
	standby, err := origin.StartStandby(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Stop() })
	if err := origin.WaitReplay(ctx, standby); err != nil {
		t.Fatal(err)
	}
	if err := standby.Isolate(ctx); err != nil { // it receives nothing of the burst
		t.Fatal(err)
	}

	// The burst, every shard from the same instant t0.
	t0 := time.Now().UTC().Truncate(time.Second)
	old := map[int64][]int64{}
	last := map[int64]time.Time{}
	conn := newConn(t, db)
	for _, c := range cases {
		old[c.shard], last[c.shard] = drawAsAllowed(t, conn, schema(c), burst, t0)
	}

	restored, err := backup.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = restored.Stop() })
	// A standby still in recovery is refused by resume.
	inRecovery, _ := migrate.New(testsrv.Open(t, "pgx", standby.DSN(dbName)), o, migrate.Options{})
	if _, err := resume.Run(ctx, inRecovery, nil, resume.Options{}, nil); !errors.Is(err, resume.ErrInRecovery) {
		t.Fatalf("resume on a standby in recovery: %v; want ErrInRecovery", err)
	}
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	for _, srv := range []struct {
		name string
		s    *dbserver.PG
	}{{"restore of a backup taken before the burst", restored}, {"failover to an async standby that missed the burst", standby}} {
		db := testsrv.Open(t, "pgx", srv.s.DSN(dbName))
		conn := newConn(t, db)
		for _, c := range cases {
			start := last[c.shard].Add(c.delay)
			if c.resume {
				if _, err := db.Exec(fmt.Sprintf("ALTER DATABASE %s SET shardid_test.now = '%s'", dbName, start.Format(time.RFC3339Nano))); err != nil {
					t.Fatal(err)
				}
				at := testsrv.Open(t, "pgx", srv.s.DSN(dbName)) // its sessions read the new setting
				m, _ := migrate.New(at, o, migrate.Options{})
				res, err := resume.Run(ctx, m, []pgfunc.Shard{{Schema: schema(c), ID: c.shard}}, resume.Options{Lead: lead}, nil)
				if err != nil || len(res) != 1 || res[0].Err != nil || !res[0].Moved {
					t.Fatalf("%s: %s: resume: %+v, %v", srv.name, c.name, res, err)
				}
			}
			ids, _ := drawAsAllowed(t, conn, schema(c), burst, start)
			n := repeats(old[c.shard], ids)
			t.Logf("%s, %s: %d of %d IDs repeated (old primary's last draw at t0+%s)", srv.name, c.name, n, burst, last[c.shard].Sub(t0))
			switch {
			case c.bounded && (c.resume || c.delay >= lead) && n > 0:
				t.Errorf("%s, %s: %d IDs of the old primary handed out again", srv.name, c.name, n)
			case (!c.bounded && c.delay >= lead || c.bounded && !c.resume && c.delay < lead) && n == 0:
				t.Errorf("%s, %s: no repeat; the test would not catch a repeat (the new primary drew past every old ID)", srv.name, c.name)
			}
		}
	}
}

// TestFailoverToSyncStandby: with a synchronous standby, a shard whose
// sessions commit with synchronous_commit = on loses nothing it handed
// out when the standby is promoted, even drawing one tick after the old
// primary's last draw, without pg resume: its commits waited for the
// standby. The negative control, a shard drawn with synchronous_commit =
// local once the standby no longer receives, repeats IDs with the same
// timing.
func TestFailoverToSyncStandby(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("bursts on servers of its own, one promoted")
	}
	const burst = 12_500 // burstLayout: as far ahead as 200,000 js53 IDs
	ctx := context.Background()
	origin := testsrv.NewPG(t, dbserver.PGOptions{})
	db := testsrv.Open(t, "pgx", testsrv.Database(t, origin))
	dbName := dbNameOf(t, db)
	o := burstOptions(0)
	sync, local := pgfunc.Shard{Schema: "sync_on", ID: 1}, pgfunc.Shard{Schema: "sync_local", ID: 2}
	installWith(t, db, sync, o)
	installWith(t, db, local, o)
	standby, err := origin.StartStandby(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Stop() })
	for _, q := range []string{"ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var state sql.NullString
		if err := db.QueryRow("SELECT max(sync_state) FROM pg_stat_replication").Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state.String == "sync" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby is not synchronous after a minute (%q)", state.String)
		}
	}
	t0 := time.Now().UTC().Truncate(time.Second)
	conn := newConn(t, db)
	mustExec(t, conn, "SET synchronous_commit = on")
	oldSync, lastSync := drawAsAllowed(t, conn, sync.Schema, burst, t0)
	if err := standby.Isolate(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "SET synchronous_commit = local") // nothing waits for the standby, which receives nothing more
	oldLocal, lastLocal := drawAsAllowed(t, conn, local.Schema, burst, t0)
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	promoted := newConn(t, testsrv.Open(t, "pgx", standby.DSN(dbName)))
	tick := burstLayout().TimeUnit
	ids, _ := drawAsAllowed(t, promoted, sync.Schema, burst, lastSync.Add(tick))
	nSync := repeats(oldSync, ids)
	ids, _ = drawAsAllowed(t, promoted, local.Schema, burst, lastLocal.Add(tick))
	nLocal := repeats(oldLocal, ids)
	t.Logf("failover to a synchronous standby, drawing one tick after the old primary's last draw: synchronous_commit = on: %d of %d IDs repeated; local (the standby received nothing of it): %d", nSync, burst, nLocal)
	if nSync > 0 {
		t.Fatalf("%d IDs committed with synchronous_commit = on were handed out again after the synchronous standby was promoted", nSync)
	}
	if nLocal == 0 {
		t.Fatal("no repeat for the shard the standby never received: the test would not catch a repeat")
	}
}
