package segment_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// recorder keeps the events a client handed to OnEvent.
type recorder[E any] struct {
	mu  sync.Mutex
	evs []E
}

func (r *recorder[E]) add(e E) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

// all returns the events so far.
func (r *recorder[E]) all() []E {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]E(nil), r.evs...)
}

// eventLog keeps a Segments client's events.
type eventLog = recorder[segment.Event]

// countKind returns how many of log's events are of kind k, and the sum
// of their Count.
func countKind(log *eventLog, k segment.EventKind) (n int, ids int64) {
	for _, e := range log.all() {
		if e.Kind == k {
			n++
			ids += e.Count
		}
	}
	return n, ids
}

// restoreRun is what one run of the restore scenario saw.
type restoreRun struct {
	repeats, decreases int   // over every ID handed out
	total              int   // IDs handed out
	refused            int   // clients that reported ErrRewound
	maxBefore          int64 // the highest ID a client took before the restore
}

// segmentClients starts n clients of tag, each with its own event log;
// forgetful ones believe whatever the table hands out.
func segmentClients(t *testing.T, s segDB, tag string, n int, forgetful bool) ([]*segment.Segments, []*eventLog) {
	t.Helper()
	var clients []*segment.Segments
	var logs []*eventLog
	for range n {
		log := &eventLog{}
		c, err := segment.New(context.Background(), s.db, segment.Settings{
			Tag: tag, MaxStep: 5000, CheckEvery: 50 * time.Millisecond, OnEvent: log.add})
		if err != nil {
			t.Fatal(err)
		}
		if forgetful {
			segment.BreakSegments(c, "forgetful")
		}
		t.Cleanup(func() { c.Close() })
		clients, logs = append(clients, c), append(logs, log)
	}
	return clients, logs
}

// rewindMidRun runs 3 clients of 2 goroutines on tag, dumps the
// allocation table after 20,000 IDs, lets them draw 100,000 more, restores
// the dump under them and lets them go on. Clients that remember what they
// took (the default) must fence the tag and stop; then a client started
// after the restore must be refused, and a resume lets all of them, and it,
// draw again. Forgetful clients (the negative control) draw on from the
// restored table.
func rewindMidRun(t *testing.T, s segDB, tag string, forgetful bool) restoreRun {
	ctx := context.Background()
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: tag, Step: 100}, 0); err != nil {
		t.Fatal(err)
	}
	clients, logs := segmentClients(t, s, tag, 3, forgetful)
	d := startDraws(clients, 2)
	testsrv.WaitFor(t, "20,000 IDs before the dump", func() bool { return d.total.Load() >= 20_000 })
	dump, err := dbserver.TakeTable(ctx, s.dialect, s.dsn, segment.DefaultTable)
	if err != nil {
		t.Fatal(err)
	}
	testsrv.WaitFor(t, "100,000 IDs after the dump", func() bool { return d.total.Load() >= 120_000 })
	if err := dbserver.RestoreTable(ctx, s.dsn, dump); err != nil {
		t.Fatal(err)
	}
	atRestore := d.total.Load()
	var run restoreRun
	if forgetful {
		testsrv.WaitFor(t, "50,000 IDs after the restore", func() bool { return d.total.Load() >= atRestore+50_000 })
		streams := d.finish()
		run.repeats, run.decreases = bench.Repeats(streams...), notIncreasing(streams...)
		for _, st := range streams {
			run.total += len(st)
		}
		return run
	}
	testsrv.WaitFor(t, "every client refused", func() bool {
		for _, c := range clients {
			if c.Stats().Refused == nil {
				return false
			}
		}
		return true
	})
	testsrv.WaitFor(t, "every buffered ID used", func() bool { return d.exhausted.Load() >= 30 })
	for i, c := range clients {
		st := c.Stats()
		if !errors.Is(st.Refused, segment.ErrRewound) {
			t.Errorf("client %d refused with %v, want ErrRewound", i, st.Refused)
		}
		if n, _ := countKind(logs[i], segment.Rewound); n < 1 {
			t.Errorf("client %d: no SegmentRewound event", i)
		}
		run.maxBefore = max(run.maxBefore, st.HighWater)
	}
	tags, err := segment.Tags(ctx, s.db, s.dialect, "")
	if err != nil {
		t.Fatal(err)
	}
	var row segment.Tag
	for _, tg := range tags {
		if tg.Tag == tag {
			row = tg
		}
	}
	if !row.Fenced || row.LastRewind.Seen < run.maxBefore || row.LastRewind.Found >= run.maxBefore || row.LastRewind.Time.IsZero() {
		t.Errorf("the tag's row after the rewind: %+v; want fenced, a rewind seen up to at least %d found below it", row, run.maxBefore)
	}
	if _, err := segment.New(ctx, s.db, segment.Settings{Tag: tag}); !errors.Is(err, segment.ErrRewound) {
		t.Errorf("a client started after the fence: %v, want ErrRewound", err)
	}
	before, after, err := segment.ResumeTag(ctx, s.db, s.dialect, "", tag, segment.Resume{})
	if err != nil || !before.Fenced || after.Fenced || after.MaxID < run.maxBefore {
		t.Fatalf("resume from the clients' reports: %+v → %+v, %v", before, after, err)
	}
	late, _ := segmentClients(t, s, tag, 1, false)
	d2 := startDraws(late, 1)
	resumedAt := d.total.Load()
	testsrv.WaitFor(t, "20,000 IDs after the resume", func() bool { return d.total.Load() >= resumedAt+20_000 && d2.total.Load() >= 5_000 })
	streams := append(d.finish(), d2.finish()...)
	if len(d.others)+len(d2.others) > 0 {
		t.Errorf("errors other than ErrSegmentsExhausted: %v %v", d.others, d2.others)
	}
	for _, st := range streams {
		run.total += len(st)
	}
	run.repeats, run.decreases, run.refused = bench.Repeats(streams...), notIncreasing(streams...), len(clients)
	return run
}

// TestSegmentsRestoredTable restores the allocation table from a dump
// (pg_dump or mysqldump, then reloaded) under 3 drawing clients on
// PostgreSQL, MariaDB and TiDB. Every client finds the rewind (its next
// segment would not be above the IDs it took), the tag is fenced, the
// clients hand out what is left of their buffers above the restored
// max_id and then report ErrRewound; a client started then is refused;
// ResumeSegmentTag, from the clients' reports alone, lets everyone draw
// again. No ID is handed out twice and each goroutine's IDs increase. The
// negative control runs the same with clients that believe the table, as
// a client without memory of what it took does: repeated IDs, and
// mostly IDs that go back (see the test body for when they do not).
func TestSegmentsRestoredTable(t *testing.T) {
	if testing.Short() {
		t.Skip("dumps and restores tables under load on three servers")
	}
	t.Parallel()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run := rewindMidRun(t, s, "orders", false)
			t.Logf("%s, clients that remember: %d IDs, %d repeated, %d decreases; %d clients refused until the resume", name, run.total, run.repeats, run.decreases, run.refused)
			if run.repeats != 0 || run.decreases != 0 {
				t.Errorf("%d repeated IDs and %d decreases across a restored table", run.repeats, run.decreases)
			}
			broken := rewindMidRun(t, s, "forgetful", true)
			t.Logf("%s, negative control (clients that believe the table): %d IDs, %d repeated, %d decreases", name, broken.total, broken.repeats, broken.decreases)
			// Repeats are what a rewound table hands out to clients that
			// believe it. Whether a forgetful client's own stream also goes
			// back depends on where it stood: one that took no segment
			// since the dump (starved by the scheduler) takes the rewound
			// range above all it took itself, and one that did goes back
			// only once its buffered segments run out. A run where the
			// segments taken after the restore all went to the first kind
			// has repeats and no decrease (CI saw 25,000 and 0 on MariaDB
			// under load). TestStreamChecks shows the decrease count counts.
			if broken.repeats == 0 {
				t.Errorf("the forgetful clients drew %d repeats (%d decreases): the scenario does not rewind the table", broken.repeats, broken.decreases)
			}
		})
	}
}

// takeTables dumps the allocation table and its record table and returns
// what restores both: a restore of the whole database, which takes the
// record back too.
func takeTables(t *testing.T, s segDB) (restore func()) {
	t.Helper()
	ctx := context.Background()
	var dumps []dbserver.TableDump
	for _, table := range []string{segment.DefaultTable, segment.RecordTable("")} {
		d, err := dbserver.TakeTable(ctx, s.dialect, s.dsn, table)
		if err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, d)
	}
	return func() {
		t.Helper()
		for _, d := range dumps {
			if err := dbserver.RestoreTable(ctx, s.dsn, d); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSegmentsResumeAfterRestore: the table and its record are restored
// while no client runs, so nothing remembers what was taken. A client with Floor (the
// largest ID the application's data holds) refuses the restored table and
// fences it; `resume --skip` moves the tag past everything and new clients
// draw without a repeat. The negative control draws from the restored
// table without the resume: the IDs repeat.
func TestSegmentsResumeAfterRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders", Step: 100}, 0); err != nil {
				t.Fatal(err)
			}
			drawN := func(set segment.Settings, n int) []int64 {
				t.Helper()
				c, err := segment.New(ctx, s.db, set)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				ids := make([]int64, n)
				for i := range ids {
					if ids[i], err = c.Next(ctx); err != nil {
						t.Fatal(err)
					}
				}
				return ids
			}
			before := drawN(segment.Settings{Tag: "orders"}, 1000)
			restore := takeTables(t, s) // the record table too: a whole database restored
			before = append(before, drawN(segment.Settings{Tag: "orders"}, 5000)...)
			maxBefore := before[len(before)-1]
			restore()
			unresumed := drawN(segment.Settings{Tag: "orders"}, 2000)
			if n := bench.Repeats(before, unresumed); n == 0 {
				t.Fatalf("negative control: a restored table without a resume gave no repeats (%d… after %d…)", unresumed[0], before[0])
			} else {
				t.Logf("%s: without a resume, %d of 2,000 IDs repeat", name, n)
			}

			restore()
			if _, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", Floor: maxBefore}); !errors.Is(err, segment.ErrRewound) {
				t.Fatalf("a client with Floor %d on the restored table: %v, want ErrRewound", maxBefore, err)
			}
			if _, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders"}); !errors.Is(err, segment.ErrRewound) {
				t.Fatalf("a client without Floor after one with it found the rewind: %v, want ErrRewound (fenced)", err)
			}
			for run := range 2 { // the second run moves it again, never back
				prev, after, err := segment.ResumeTag(ctx, s.db, s.dialect, "", "orders", segment.Resume{Skip: 1_000_000})
				if err != nil || after.Fenced || after.MaxID < maxBefore || after.MaxID < prev.MaxID {
					t.Fatalf("resume %d: %+v → %+v, %v", run, prev, after, err)
				}
			}
			after := drawN(segment.Settings{Tag: "orders"}, 2000)
			if n := bench.Repeats(before, after); n != 0 || after[0] <= maxBefore {
				t.Errorf("after the resume: %d repeats; first ID %d, last before the restore %d", n, after[0], maxBefore)
			}
			_, again, err := segment.ResumeTag(ctx, s.db, s.dialect, "", "orders", segment.Resume{To: 5})
			if err != nil || again.MaxID < after[len(after)-1] {
				t.Errorf("resume to a lower value: %+v, %v; want max_id kept", again, err)
			}
		})
	}
}

// TestSegmentsFenceReachesFreshClients: a client that started after the
// restore, before anyone found it, takes a segment the table handed out
// before (those IDs repeat: nobody can tell yet). Once a client that
// remembers finds the rewind and fences the tag, the fresh client's next
// check drops every buffered ID at or below the fenced max_id and it hands
// out nothing more until the resume, then only IDs above everything.
func TestSegmentsFenceReachesFreshClients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders", Step: 1000}, 0); err != nil {
				t.Fatal(err)
			}
			restore := takeTables(t, s) // the record table too: a whole database restored
			// The old client: segments of 1,000, checking only when it
			// loads, so the test decides when it finds the rewind. It
			// draws into its third segment, so it has taken up to 3,000.
			old, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", MaxStep: 1000, CheckEvery: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			var oldIDs []int64
			for range 2050 {
				id, err := old.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				oldIDs = append(oldIDs, id)
			}
			restore()
			log := &eventLog{}
			fresh, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", MaxStep: 1000, CheckEvery: 20 * time.Millisecond, OnEvent: log.add})
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			var freshIDs []int64
			for range 10 {
				id, err := fresh.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				freshIDs = append(freshIDs, id)
			}
			if bench.Repeats(oldIDs, freshIDs) == 0 {
				t.Fatalf("the restore did not rewind the table: old %v…, fresh %v…", oldIDs[:3], freshIDs[:3])
			}
			testsrv.WaitFor(t, "the old client's third segment", func() bool { return old.Stats().Loads == 3 })
			// The old client draws past its threshold: its background load
			// finds the table (at 1,000) below what it took and fences the
			// tag.
			for range 100 {
				id, err := old.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				oldIDs = append(oldIDs, id)
			}
			testsrv.WaitFor(t, "the old client to find the rewind", func() bool { return old.Stats().Refused != nil })
			testsrv.WaitFor(t, "the fresh client to see the fence", func() bool { return fresh.Stats().Refused != nil })
			st := fresh.Stats()
			if st.Buffered != 0 || st.Discarded != 1000-10 {
				t.Errorf("fresh client after the fence: %+v; want its 990 buffered IDs discarded", st)
			}
			if n, ids := countKind(log, segment.Discarded); n != 1 || ids != 990 {
				t.Errorf("%d discard events of %d IDs, want 1 of 990", n, ids)
			}
			if id, err := fresh.Next(ctx); !errors.Is(err, segment.ErrRewound) {
				t.Errorf("fresh client after the fence: %d, %v; want ErrRewound", id, err)
			}
			if _, _, err := segment.ResumeTag(ctx, s.db, s.dialect, "", "orders", segment.Resume{}); err != nil {
				t.Fatal(err)
			}
			for range 2000 {
				id, err := fresh.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				freshIDs = append(freshIDs, id)
			}
			for _, id := range freshIDs[10:] {
				if id <= oldIDs[len(oldIDs)-1] {
					t.Fatalf("after the resume the fresh client hands out %d, not above the old client's %d", id, oldIDs[len(oldIDs)-1])
				}
			}
			if n := bench.Repeats(oldIDs, freshIDs[10:]); n != 0 {
				t.Errorf("%d repeats after the fence", n)
			}
		})
	}
}

// TestSegmentsRestoredBelowRecord: a client takes one segment and goes on
// drawing from it; the allocation table alone is dumped; another client
// takes 300 IDs and ends (the record keeps the highest); the dump is
// restored. The first client remembers less than the record, yet its next
// allocation is refused (ErrRewound), the tag fenced, and none of its IDs
// repeats the other client's. The negative control, the same client
// without the record in its allocation, takes the restored table's
// segments: repeats. (Before: 3,000 repeats on PostgreSQL and MariaDB in an
// outside trial, with no event and segment status clean afterwards.)
func TestSegmentsRestoredBelowRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("dumps and restores tables on three servers")
	}
	t.Parallel()
	ctx := context.Background()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run := func(tag string, broken bool) (repeats int, err error) {
				t.Helper()
				if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: tag, Step: 100}, 0); err != nil {
					t.Fatal(err)
				}
				log := &eventLog{}
				set := segment.Settings{Tag: tag, MaxStep: 100, OnEvent: log.add}
				c0, err := segment.New(ctx, s.db, set)
				if err != nil {
					t.Fatal(err)
				}
				defer c0.Close()
				if broken {
					segment.BreakSegments(c0, "unrecorded")
				}
				var mine []int64
				id, err := c0.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				mine = append(mine, id)
				// The dump, after c0's own prefetch (if any) has landed.
				testsrv.WaitFor(t, "c0's loads to settle", func() bool { return c0.Stats().Loads >= 1 })
				dump, err := dbserver.TakeTable(ctx, s.dialect, s.dsn, segment.DefaultTable)
				if err != nil {
					t.Fatal(err)
				}
				c1, err := segment.New(ctx, s.db, segment.Settings{Tag: tag, MaxStep: 100})
				if err != nil {
					t.Fatal(err)
				}
				var theirs []int64
				for range 300 {
					id, err := c1.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					theirs = append(theirs, id)
				}
				c1.Close()
				if err := dbserver.RestoreTable(ctx, s.dsn, dump); err != nil {
					t.Fatal(err)
				}
				for range 400 {
					id, err := c0.Next(ctx)
					if err != nil {
						return bench.Repeats(mine, theirs), err
					}
					mine = append(mine, id)
				}
				return bench.Repeats(mine, theirs), nil
			}
			repeats, err := run("below_record", false)
			if repeats != 0 || !errors.Is(err, segment.ErrRewound) {
				t.Fatalf("a running client below the record: %d repeats, %v; want none and ErrRewound", repeats, err)
			}
			repeats, err = run("below_record_broken", true)
			if repeats == 0 {
				t.Fatalf("negative control: the client without the record in its allocation drew no repeat (%v)", err)
			}
			t.Logf("%s: refused with %v; without the record in the allocation: %d repeats", name, segment.ErrRewound, repeats)
		})
	}
}
