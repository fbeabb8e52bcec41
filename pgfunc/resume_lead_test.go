package pgfunc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestResumeLeadRaisedAfterBackup: a base backup records generators with
// a 5 s lead; after it, they are brought up again (down, then up) with a
// 30 s lead and a burst of 18,750 IDs (burstLayout) runs ~11.7 s ahead of the
// clock. The backup is restored and its server draws 1 s after the old
// server's last draw. Resumed by the lead the backup records (5 s, the
// negative control: what resume did when it trusted the backup), it
// repeats old IDs; resumed with ResumeOptions.Lead the largest lead the
// old server ran with (30 s), none; with no Lead, resume moves past the
// clock plus MaxLead, whatever the backup records, and says until when
// draws wait.
func TestResumeLeadRaisedAfterBackup(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a burst on a server of its own, restored from a base backup")
	}
	const burst = 18_750 // burstLayout: as far ahead as 300,000 js53 IDs
	ctx := context.Background()
	origin := testsrv.NewPG(t, dbserver.PGOptions{})
	dsn := testsrv.Database(t, origin)
	db := testsrv.Open(t, "pgx", dsn)
	dbName := dbNameOf(t, db)
	short, long := burstOptions(5*time.Second), burstOptions(30*time.Second)
	shards := []pgfunc.Shard{{Schema: "trusted", ID: 1}, {Schema: "told", ID: 2}, {Schema: "unknown", ID: 3}}
	at := clockAt(t, db, dsn)
	t0 := time.Now().UTC().Truncate(time.Second)
	m, _ := migrate.New(at(t0.Add(-time.Minute)), short, migrate.Options{OwnDatabaseOnly: true})
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	backup, err := origin.BaseBackup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backup.Remove() })
	// After the backup: the lead raised to 30 s, and a burst.
	later := at(t0.Add(-time.Minute))
	m, _ = migrate.New(later, short, migrate.Options{OwnDatabaseOnly: true})
	for _, r := range results(m.Down(ctx, shards, nil)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	m, _ = migrate.New(later, long, migrate.Options{OwnDatabaseOnly: true})
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	conn := newConn(t, db)
	old := map[string][]int64{}
	var last time.Time
	for _, sh := range shards[:2] {
		old[sh.Schema], last = drawAsAllowed(t, conn, sh.Schema, burst, t0)
	}
	restored, err := backup.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = restored.Stop() })
	start := last.Add(time.Second)
	rdb := testsrv.Open(t, "pgx", restored.DSN(dbName))
	if _, err := rdb.Exec(fmt.Sprintf("ALTER DATABASE %s SET shardid_test.now = '%s'", dbName, start.Format(time.RFC3339Nano))); err != nil {
		t.Fatal(err)
	}
	rm, _ := migrate.New(testsrv.Open(t, "pgx", restored.DSN(dbName)), short, migrate.Options{OwnDatabaseOnly: true})
	for _, c := range []struct {
		sh   pgfunc.Shard
		lead time.Duration
	}{{shards[0], 5 * time.Second}, {shards[1], 30 * time.Second}, {shards[2], 0}} {
		res, err := resume.Run(ctx, rm, []pgfunc.Shard{c.sh}, resume.Options{Lead: c.lead}, nil)
		if err != nil || len(res) != 1 || res[0].Err != nil || !res[0].Moved {
			t.Fatalf("resume of %s with lead %s: %+v, %v", c.sh.Schema, c.lead, res, err)
		}
		if c.lead == 0 && (res[0].Lead != pgfunc.MaxLead || !res[0].Past.Equal(start.Add(pgfunc.MaxLead)) || !strings.Contains(res[0].Note, "draws wait")) {
			t.Fatalf("resume with no Lead: %+v; want moved past the clock plus MaxLead, saying until when draws wait", res[0])
		}
	}
	rconn := newConn(t, rdb)
	for _, sh := range shards[:2] {
		ids, _ := drawAsAllowed(t, rconn, sh.Schema, burst, start)
		n := repeats(old[sh.Schema], ids)
		t.Logf("%s: %d of %d IDs repeated", sh.Schema, n, burst)
		switch {
		case sh.Schema == "trusted" && n == 0:
			t.Errorf("resumed by the backup's lead: no repeat; the test would not catch one")
		case sh.Schema == "told" && n > 0:
			t.Errorf("resumed by the old server's largest lead: %d IDs of the old server handed out again", n)
		}
	}
}

// TestResumeAfterCounterMovedBack: a superuser moves a counter back by
// hand (ALTER SEQUENCE ... RESTART) right after a burst of 6,250 IDs
// (burstLayout: as far ahead as 100,000 js53 IDs) ran it ahead of the
// clock. pg status cannot tell; pg resume with
// the generator's lead, run before writers go on, moves it past every ID
// the burst handed out, as after a restore: 0 repeats. The negative
// control, the same without the resume, repeats the burst's IDs.
func TestResumeAfterCounterMovedBack(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two bursts")
	}
	const burst = 6_250
	ctx := context.Background()
	db, dsn := newDB(t)
	short := burstOptions(5 * time.Second)
	moved, control := pgfunc.Shard{Schema: "movedback", ID: 1}, pgfunc.Shard{Schema: "movedcontrol", ID: 2}
	at := clockAt(t, db, dsn)
	t0 := time.Now().UTC().Truncate(time.Second)
	m, _ := migrate.New(at(t0), short, migrate.Options{OwnDatabaseOnly: true})
	for _, r := range results(m.Up(ctx, []pgfunc.Shard{moved, control}, nil)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	conn := newConn(t, db)
	old := map[string][]int64{}
	var last time.Time
	for _, sh := range []pgfunc.Shard{moved, control} {
		old[sh.Schema], last = drawAsAllowed(t, conn, sh.Schema, burst, t0)
		if _, err := conn.ExecContext(ctx, "ALTER SEQUENCE "+sh.Schema+".next_id_seq RESTART"); err != nil {
			t.Fatal(err)
		}
	}
	rm, _ := migrate.New(at(last), short, migrate.Options{OwnDatabaseOnly: true})
	res, err := resume.Run(ctx, rm, []pgfunc.Shard{moved}, resume.Options{Lead: 5 * time.Second}, nil)
	if err != nil || len(res) != 1 || res[0].Err != nil || !res[0].Moved {
		t.Fatalf("resume of the counter moved back: %+v, %v", res, err)
	}
	for _, sh := range []pgfunc.Shard{moved, control} {
		ids, _ := drawAsAllowed(t, conn, sh.Schema, burst, last)
		n := repeats(old[sh.Schema], ids)
		t.Logf("%s: %d of %d IDs repeated", sh.Schema, n, burst)
		switch {
		case sh == moved && n > 0:
			t.Errorf("resumed after the counter was moved back: %d IDs handed out again", n)
		case sh == control && n == 0:
			t.Errorf("negative control, no resume: no repeat; the test would not catch one")
		}
	}
}
