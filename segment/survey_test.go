package segment_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestSurveyAndResumeTags on PostgreSQL: tag a is put back below its
// record (max_id 0 after 300 IDs), tag b's row is deleted and its record
// kept only in a second database. ReadSurvey without that database sees a
// below its record and nothing missing; with it, b missing (the two
// record tables merged); a database with no record table is NoOutside.
// ResumeTags over Names moves a past its record and fails b alone (a
// missing tag is created again by EnsureTag, not resumed): a *PartialError
// of 1 of 2; the survey after it finds a sound.
func TestSurveyAndResumeTags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, dsn := testsrv.PGDB(t)
	s := newSegDB(t, dialect.Postgres, "pgx", dsn)
	recDB, _ := testsrv.PGDB(t)
	if _, err := segment.UpRecords(ctx, recDB, dialect.Postgres, ""); err != nil {
		t.Fatal(err)
	}
	store, err := segment.DBRecords(recDB, dialect.Postgres, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"a", "b"} {
		if _, _, err := segment.EnsureTag(ctx, s.db, dialect.Postgres, "", segment.Tag{Tag: tag, Step: 100}, 0, store); err != nil {
			t.Fatal(err)
		}
		c, err := segment.New(ctx, s.db, segment.Settings{Tag: tag, Records: store})
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			if _, err := c.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
	}
	sv, err := segment.ReadSurvey(ctx, s.db, dialect.Postgres, "", recDB, dialect.Postgres)
	if err != nil || sv.RecordsErr != nil || sv.NoOutside {
		t.Fatalf("ReadSurvey: %v, %v, NoOutside %v", err, sv.RecordsErr, sv.NoOutside)
	}
	for _, tag := range sv.Tags {
		if why := sv.Problems(tag); len(why) > 0 {
			t.Errorf("tag %s before the damage: problems %v", tag.Tag, why)
		}
	}
	for _, q := range []string{
		"UPDATE shardid_segments SET max_id = 0 WHERE tag = 'a'",
		"DELETE FROM shardid_segments WHERE tag = 'b'",
		"DELETE FROM " + segment.RecordTable("") + " WHERE tag = 'b'",
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	alone, err := segment.ReadSurvey(ctx, s.db, dialect.Postgres, "", nil, "")
	if err != nil || len(alone.Tags) != 1 {
		t.Fatalf("ReadSurvey without the outside records: %+v, %v", alone, err)
	}
	if why := alone.Problems(alone.Tags[0]); !slices.Equal(why, []string{"below its record"}) {
		t.Errorf("tag a put back to 0: problems %v, want below its record", why)
	}
	if m := alone.Missing(); len(m) != 0 {
		t.Errorf("without the outside records: missing %v, want none (b's record is there only)", m)
	}
	sv, err = segment.ReadSurvey(ctx, s.db, dialect.Postgres, "", recDB, dialect.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if m := sv.Missing(); !slices.Equal(m, []string{"b"}) {
		t.Errorf("with the outside records: missing %v, want [b]", m)
	}
	if names := sv.Names(); !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("Names %v, want [a b]", names)
	}
	bare, _ := testsrv.PGDB(t)
	if none, err := segment.ReadSurvey(ctx, s.db, dialect.Postgres, "", bare, dialect.Postgres); err != nil || !none.NoOutside {
		t.Errorf("an outside database without a record table: NoOutside %v, %v", none.NoOutside, err)
	}
	res, err := segment.ResumeTags(ctx, s.db, dialect.Postgres, "", sv.Names(), segment.Resume{}, store)
	var pe *segment.PartialError
	if !errors.As(err, &pe) || pe.Failed != 1 || pe.Total != 2 || len(res) != 2 {
		t.Fatalf("ResumeTags: %d results, %v; want 1 of 2 failed", len(res), err)
	}
	if res[0].Tag != "a" || res[0].Err != nil || res[0].After.MaxID < 300 || res[1].Tag != "b" || res[1].Err == nil {
		t.Errorf("ResumeTags results %+v; want a moved to 300 or more, b failed", res)
	}
	after, err := segment.ReadSurvey(ctx, s.db, dialect.Postgres, "", recDB, dialect.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if why := after.Problems(after.Tags[0]); len(why) != 0 {
		t.Errorf("tag a after ResumeTags: problems %v", why)
	}
}
