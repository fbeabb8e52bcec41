package segment_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestSegmentsRecordsElsewhere on PostgreSQL, MariaDB and TiDB: the whole
// allocation database goes back to a copy made before a client took
// 10,000 IDs (the allocation table and the record table beside it, from
// one moment), with no client running. With the tag's record kept in a
// second database (Settings.Records, DBRecords), a client started then
// finds the row below the record before it hands anything out and refuses
// (ErrRewound); the restored row gets fenced. The negative control, a
// client with only the record beside the table, draws the first client's
// IDs again (an outside trial: 5,000 of 10,000, segment status exit 0).
func TestSegmentsRecordsElsewhere(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			_, dsn := b.open(t)
			driver := "mysql"
			if b.dialect == dialect.Postgres {
				driver = "pgx"
			}
			s := newSegDB(t, b.dialect, driver, dsn)
			recDB, _ := b.open(t)
			if applied, err := segment.UpRecords(ctx, recDB, b.dialect, ""); err != nil || !applied {
				t.Fatalf("UpRecords: %v, %v", applied, err)
			}
			if applied, err := segment.UpRecords(ctx, recDB, b.dialect, ""); err != nil || applied {
				t.Fatalf("UpRecords again: %v, %v; want nothing applied", applied, err)
			}
			store, err := segment.DBRecords(recDB, b.dialect, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := segment.EnsureTag(ctx, s.db, b.dialect, "", segment.Tag{Tag: "orders", Step: 500}, 0, store); err != nil {
				t.Fatal(err)
			}
			var copies []dbserver.TableDump
			for _, table := range []string{segment.DefaultTable, segment.RecordTable("")} {
				dump, err := dbserver.TakeTable(ctx, b.dialect, dsn, table)
				if err != nil {
					t.Fatal(err)
				}
				copies = append(copies, dump)
			}
			c, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", MaxStep: 500, Records: store})
			if err != nil {
				t.Fatal(err)
			}
			var first []int64
			for range 10_000 {
				id, err := c.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				first = append(first, id)
			}
			c.Close()
			for _, dump := range copies {
				if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
					t.Fatal(err)
				}
			}
			if high, found, err := store.Record(ctx, "orders"); err != nil || !found || high < first[len(first)-1] {
				t.Fatalf("the store's record after the restore: %d, %v, %v; want at least %d", high, found, err, first[len(first)-1])
			}
			if _, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", Records: store}); !errors.Is(err, segment.ErrRewound) {
				t.Fatalf("a client with the record kept elsewhere, after the restore: %v; want ErrRewound", err)
			}
			if tags, err := segment.Tags(ctx, s.db, b.dialect, ""); err != nil || !tags[0].Fenced {
				t.Errorf("the restored tag: %+v, %v; want it fenced", tags, err)
			}
			// Negative control: the record beside the table only (and the
			// fence lifted, as by a resume that knew nothing more).
			if _, err := s.db.ExecContext(ctx, "UPDATE shardid_segments SET fenced = FALSE"); err != nil {
				t.Fatal(err)
			}
			blind, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", MaxStep: 500})
			if err != nil {
				t.Fatal(err)
			}
			defer blind.Close()
			var again []int64
			for range 5000 {
				id, err := blind.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				again = append(again, id)
			}
			n := bench.Repeats(first, again)
			t.Logf("negative control: %d of %d IDs repeat with the record beside the table only", n, len(again))
			if n == 0 {
				t.Errorf("negative control: a client without the record store drew none of the first client's IDs after the restore")
			}
		})
	}
}

// TestSegmentsStepIgnoresWallClock: the client's wall clock jumps an hour
// forward at every ID drawn (a clock stepped again and again). Segments
// are used up in milliseconds by the monotonic clock, so the step doubles
// up to MaxStep as it should, and the steps are reported (ClockStepped).
// A client that timed its segments on the wall clock found each lasting
// hours and shrank the step to MinStep: a load per 100 IDs.
func TestSegmentsStepIgnoresWallClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dsn := backends[0].open(t)
	db.Close()
	s := newSegDB(t, dialect.Postgres, "pgx", dsn)
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "t", Step: 100}, 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	off := time.Duration(0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(off) }
	var log eventLog
	c, err := segment.New(ctx, s.db, segment.Settings{Tag: "t", MaxStep: 1600, TargetInterval: time.Minute, CheckEvery: 10 * time.Millisecond, Clock: clock, OnEvent: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 5000 {
		mu.Lock()
		off += time.Hour
		mu.Unlock()
		if _, err := c.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Step != 1600 {
		t.Errorf("the step after 5,000 IDs with the wall clock jumping: %d; want MaxStep, 1600 (stats %+v)", st.Step, st)
	}
	testsrv.WaitFor(t, "a clock step reported", func() bool { n, _ := countKind(&log, segment.ClockStepped); return n > 0 })
}
