package segment_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestTagMissingAfterRestore, on PostgreSQL, MariaDB and TiDB: the
// allocation table is dumped before tag late exists, late is created and
// drawn from, then the dump is restored: late is gone from the table, its
// record (a table of its own, which the restore leaves) is not. The
// running client reports the rewind (ErrRewound, a Rewound event) once its
// buffer is used up; a client started then is refused with ErrRewound;
// EnsureTag (segment up --tag) refuses to create it again at 1 and creates
// it above the record; Records lists it. No ID twice. The negative control
// does the same with the record table renamed away, as a table without it
// is: the tag is created again at 1 and hands out the same IDs.
func TestTagMissingAfterRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("dumps and restores tables on three servers")
	}
	t.Parallel()
	ctx := context.Background()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ids, repeats := missingTag(t, s, "late", true)
			if repeats != 0 {
				t.Errorf("%d repeated IDs among %d across a restore that dropped the tag", repeats, ids)
			}
			rename := func(from, to string) {
				t.Helper()
				if _, err := s.db.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s RENAME TO %s", from, to)); err != nil {
					t.Fatal(err)
				}
			}
			rename(segment.RecordTable(""), "record_off")
			_, cRepeats := missingTag(t, s, "late2", false)
			rename("record_off", segment.RecordTable(""))
			t.Logf("negative control (no record table): %d repeated IDs", cRepeats)
			if cRepeats == 0 {
				t.Errorf("negative control: without the record table the tag created again handed out no repeated ID")
			}
		})
	}
}

// missingTag runs the scenario on tag and returns how many IDs were drawn
// and how many of them repeat; with checks, it fails t when the record
// does not catch the missing tag.
func missingTag(t *testing.T, s segDB, tag string, checks bool) (int, int) {
	t.Helper()
	ctx := context.Background()
	dump, err := dbserver.TakeTable(ctx, s.dialect, s.dsn, segment.DefaultTable)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: tag, Step: 100}, 0); err != nil {
		t.Fatal(err)
	}
	var log eventLog
	c, err := segment.New(ctx, s.db, segment.Settings{Tag: tag, MaxStep: 500, CheckEvery: 20 * time.Millisecond, OnEvent: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var all []int64
	for range 3000 {
		id, err := c.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, id)
	}
	if !checks {
		c.Close() // nothing that remembers runs
	}
	if err := dbserver.RestoreTable(ctx, s.dsn, dump); err != nil {
		t.Fatal(err)
	}
	if checks {
		// The running client: its buffer is good, then it refuses.
		deadline := time.Now().Add(time.Minute)
		for c.Stats().Refused == nil && time.Now().Before(deadline) {
			if id, err := c.Next(ctx); err == nil {
				all = append(all, id)
			} else if !errors.Is(err, segment.ErrExhausted) {
				t.Fatal(err)
			}
		}
		st := c.Stats()
		if !errors.Is(st.Refused, segment.ErrRewound) || !strings.Contains(st.Refused.Error(), "tag "+tag+" is missing from ") {
			t.Fatalf("the running client after the restore: %v; want ErrRewound saying the tag is missing", st.Refused)
		}
		if n, _ := countKind(&log, segment.Rewound); n != 1 {
			t.Errorf("%d Rewound events, want 1", n)
		}
		var fresh eventLog
		if _, err := segment.New(ctx, s.db, segment.Settings{Tag: tag, OnEvent: fresh.add}); !errors.Is(err, segment.ErrRewound) || len(fresh.all()) != 1 {
			t.Errorf("a client started after the restore: %v, %d events; want ErrRewound and a Rewound event", err, len(fresh.all()))
		}
		recs, err := segment.Records(ctx, s.db, s.dialect, "")
		if err != nil || recs[tag] < st.HighWater {
			t.Errorf("records: %v, %v; want %s at %d or more", recs, err, tag, st.HighWater)
		}
		before, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: tag, Step: 100}, 0)
		if !errors.Is(err, segment.ErrRewound) || before != nil || !strings.Contains(err.Error(), fmt.Sprintf("--start %d or more", recs[tag]+1)) {
			t.Fatalf("EnsureTag of the missing tag at 1: %v; want ErrRewound naming the start", err)
		}
		if _, _, err := segment.ResumeTag(ctx, s.db, s.dialect, "", tag, segment.Resume{}); !errors.Is(err, segment.ErrRewound) {
			t.Errorf("ResumeTag of the missing tag: %v; want ErrRewound", err)
		}
		if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: tag, Step: 100}, recs[tag]+1); err != nil {
			t.Fatal(err)
		}
	} else if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: tag, Step: 100}, 0); err != nil {
		t.Fatal(err)
	}
	again, err := segment.New(ctx, s.db, segment.Settings{Tag: tag})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for range 1000 {
		id, err := again.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, id)
	}
	return len(all), bench.Repeats(all)
}

// TestRecordGrants on MariaDB: a drawing role with SELECT, UPDATE on the
// allocation table only (the grants before the record table existed)
// still draws, the record table costing it an event (RecordFailed) at
// start and after its first segment, not an error; granted SELECT, UPDATE
// on the record table too, its segments raise the record.
func TestRecordGrants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dsn := testsrv.MariaDBDB(t)
	s := newSegDB(t, dialect.MySQL, "mysql", dsn)
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "t", Step: 10}, 0); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	user := "seg_" + strings.ToLower(cfg.DBName)
	user = user[:min(len(user), 32)]
	for _, stmt := range []string{
		"CREATE USER '" + user + "'@'%'",
		"GRANT SELECT, UPDATE ON `" + cfg.DBName + "`.shardid_segments TO '" + user + "'@'%'",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	cfg.User = user
	app := testsrv.Open(t, "mysql", cfg.FormatDSN())
	draw := func() *eventLog {
		t.Helper()
		var log eventLog
		c, err := segment.New(ctx, app, segment.Settings{Tag: "t", Dialect: dialect.MySQL, OnEvent: log.add})
		if err != nil {
			t.Fatalf("a role with the allocation table's grants only: %v", err)
		}
		defer c.Close()
		for range 25 {
			if _, err := c.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return &log
	}
	if n, _ := countKind(draw(), segment.RecordFailed); n < 1 {
		t.Errorf("no RecordFailed event for a role that may not read the record table")
	}
	if _, err := db.ExecContext(ctx, "GRANT SELECT, UPDATE ON `"+cfg.DBName+"`.shardid_segments_record TO '"+user+"'@'%'"); err != nil {
		t.Fatal(err)
	}
	if n, _ := countKind(draw(), segment.RecordFailed); n != 0 {
		t.Errorf("RecordFailed events with the grants on the record table")
	}
	if recs, err := segment.Records(ctx, s.db, s.dialect, ""); err != nil || recs["t"] < 25 {
		t.Errorf("the record after a granted role drew: %v, %v", recs, err)
	}
}
