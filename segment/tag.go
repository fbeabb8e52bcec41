package segment

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/shardid/shardid/dialect"
)

// Tag is one row of an allocation table.
type Tag struct {
	// Tag names the ID space (Leaf's biz_tag).
	Tag string
	// MaxID is the highest ID handed out to any client so far: the next
	// segment starts above it.
	MaxID int64
	// Step is the tag's base step: the size of a client's first segment,
	// and the least its adaptive step shrinks to.
	Step int64
	// Description is free text.
	Description string
	// UpdateTime is when a segment was last taken (or the tag created).
	UpdateTime time.Time
	// Fenced is set from the moment a client finds the tag rewound until
	// ResumeTag: no segment is handed out meanwhile.
	Fenced bool
	// LastRewind is the last rewind a client found; zero when none was.
	LastRewind Rewind
}

// Rewind is a rewind of a tag's row that a client found: the table
// about to hand out IDs the client had already taken.
type Rewind struct {
	// Time is when the first client found it (the database's clock).
	Time time.Time
	// Seen is the highest ID any client that reported it had taken: a
	// resume moves the tag at least past it.
	Seen int64
	// Found is the tag's max_id when the rewind was found.
	Found int64
}

// DefaultTagStep is the base step of a tag created without one.
const DefaultTagStep = 1000

// ErrStartOutOfRange is returned by EnsureTag for a start that
// leaves less than one step of IDs below the largest int64: the tag's first
// segment could never be taken. MaxTagStart gives the bound.
var ErrStartOutOfRange = errors.New("start out of range")

// ErrStepOutOfRange is returned by EnsureTag for a base step above
// MaxTagStep, or one larger than the IDs an existing tag has left:
// either would strand the tag's remaining IDs.
var ErrStepOutOfRange = errors.New("step out of range")

// MaxTagStep is the largest base step EnsureTag accepts: every
// restarted client skips what is left of its segments, so a step is IDs a
// restart may throw away (and a step of 2^63 would use up the tag at once).
const MaxTagStep = 1_000_000_000

// MaxTagStart returns the largest start EnsureTag accepts for a
// tag of base step step (DefaultTagStep when 0): one segment of step
// IDs from it ends at math.MaxInt64.
func MaxTagStart(step int64) int64 {
	return math.MaxInt64 - cmp.Or(step, DefaultTagStep) + 1
}

// EnsureTag makes sure allocation table table (DefaultTable
// when "") on db has tag want.Tag: it creates the tag when missing (base
// step want.Step, or DefaultTagStep when 0; first ID start, or 1 when
// 0); for an existing tag it sets the base step when want.Step is not 0
// and, when start is not 0, raises max_id to start-1 if it is lower, never
// lowering it. A tag missing from the table that the record table
// (RecordTable) says was created before is created again only with a
// start above the highest ID recorded from it: below, it returns an error
// wrapping ErrRewound and changes nothing. It returns the row as it was
// (nil when created) and as it is, and records the tag. Other tags and clients' segments are untouched; concurrent callers
// are safe. A start above MaxTagStart of the tag's step returns an
// error wrapping ErrStartOutOfRange, a step above MaxTagStep or above
// the IDs an existing tag has left one wrapping ErrStepOutOfRange; either
// changes nothing.
//
// stores are record stores outside the allocation database
// (Settings.Records; nil ones are skipped): their record counts as the
// record table's, and the tag's record there is raised to its max_id.
func EnsureTag(ctx context.Context, db *sql.DB, d dialect.Dialect, table string, want Tag, start int64, stores ...RecordStore) (before *Tag, after Tag, err error) {
	v, err := newSegmentView(d, table)
	if err != nil {
		return nil, after, err
	}
	if err := CheckTag(want.Tag); err != nil {
		return nil, after, err
	}
	if want.Step < 0 || start < 0 {
		return nil, after, fmt.Errorf("segment tag %s: step %d and start %d must not be negative", want.Tag, want.Step, start)
	}
	if old, err := v.getTag(ctx, db, want.Tag); err == nil {
		before = &old
	} else if !errors.Is(err, ErrUnknownTag) {
		return nil, after, err
	}
	if before == nil {
		// Created before and gone: only above what was taken from it.
		rec, found, err := v.record(ctx, db, want.Tag)
		if err != nil {
			return nil, after, err
		}
		srec, sfound, err := storesRecord(ctx, stores, want.Tag)
		if err != nil {
			return nil, after, err
		}
		if sfound {
			rec, found = max(rec, srec), true
		}
		if found && max(start, 1)-1 < rec {
			return nil, after, missingError(v, want.Tag, rec)
		}
	}
	step := cmp.Or(want.Step, DefaultTagStep) // the step the tag will have
	if want.Step == 0 && before != nil {
		step = before.Step
	}
	if want.Step > MaxTagStep {
		return before, after, fmt.Errorf("tag %s: %w: %d (allowed 1-%d: a restarted client skips what is left of its segment)", want.Tag, ErrStepOutOfRange, want.Step, MaxTagStep)
	}
	if start > MaxTagStart(step) {
		return before, after, fmt.Errorf("tag %s: %w: %d leaves less than one step (%d IDs) below %d, the largest ID; the largest start for step %d is %d",
			want.Tag, ErrStartOutOfRange, start, step, int64(math.MaxInt64), step, MaxTagStart(step))
	}
	if before != nil && want.Step > 0 && before.MaxID >= MaxTagStart(step) {
		left := int64(math.MaxInt64) - before.MaxID
		return before, after, fmt.Errorf("tag %s: %w: step %d is more than the %d IDs the tag has left (above %d): a step of at most %d keeps them usable",
			want.Tag, ErrStepOutOfRange, want.Step, left, before.MaxID, max(left, 1))
	}
	type stmt struct {
		name string
		args []any
	}
	stmts := []stmt{{"add", []any{want.Tag, max(start, 1) - 1, cmp.Or(want.Step, DefaultTagStep), want.Description}}}
	if start > 0 {
		stmts = append(stmts, stmt{"raise", []any{start - 1, want.Tag, start - 1}})
	}
	if want.Step > 0 {
		stmts = append(stmts, stmt{"setstep", []any{want.Step, want.Tag}})
	}
	for _, s := range stmts {
		q, err := v.render(s.name)
		if err != nil {
			return before, after, err
		}
		if _, err := db.ExecContext(ctx, q, s.args...); err != nil {
			return before, after, fmt.Errorf("segment tag %s: %w", want.Tag, err)
		}
	}
	if after, err = v.getTag(ctx, db, want.Tag); err != nil {
		return before, after, err
	}
	if err := v.addRecord(ctx, db, want.Tag, after.MaxID); err != nil {
		return before, after, err
	}
	return before, after, raiseStores(ctx, stores, want.Tag, after.MaxID)
}

// Resume says how far ResumeTag moves a tag. The tag
// always moves at least past the highest ID the clients that found it
// rewound had taken (Tag.LastRewind.Seen), never down.
type Resume struct {
	// To is the least next ID: max_id is raised to To-1. 0 means no bound.
	// A rerun with the same To changes nothing.
	To int64
	// Skip is how many IDs to leave unused above the highest ID known to
	// be taken (the tag's max_id, or what clients reported, whichever is
	// higher): for the IDs handed out after the copy was made that no
	// client reported. Each run skips again (IDs skipped are never used,
	// so a rerun is safe); a rerun with To set to the result changes
	// nothing.
	Skip int64
}

// ResumeTag moves tag past every ID the table could have handed
// out before it was restored from an older copy, and lifts the fence a
// client put on it when it found the rewind, so clients take segments
// again. max_id becomes the highest of: itself, what clients reported,
// r.To-1 and, with r.Skip, the higher of the first two plus r.Skip; it
// never goes down; the record (RecordTable) counts as reported. Run it after restoring the allocation table, before
// clients start (or, if they run, as soon as one reports ErrRewound). It
// returns the row as it was and as it is. It returns errors wrapping
// ErrUnknownTag (ErrRewound when the record says the tag was created
// before: EnsureTag with a start above it makes it again), ErrInvalidTag,
// ErrInvalidTable, ErrStartOutOfRange (the
// target leaves less than one step below the largest ID) and the
// database's own; on error nothing is changed.
//
// stores are record stores outside the allocation database
// (Settings.Records; nil ones are skipped): their record counts as
// reported, and the tag's record there is raised to the new max_id.
func ResumeTag(ctx context.Context, db *sql.DB, d dialect.Dialect, table, tag string, r Resume, stores ...RecordStore) (before, after Tag, err error) {
	v, err := newSegmentView(d, table)
	if err != nil {
		return before, after, err
	}
	if err := CheckTag(tag); err != nil {
		return before, after, err
	}
	if r.To < 0 || r.Skip < 0 {
		return before, after, fmt.Errorf("resume tag %s: To %d and Skip %d must not be negative", tag, r.To, r.Skip)
	}
	rec, found, err := v.record(ctx, db, tag)
	if err != nil {
		return before, after, err
	}
	srec, sfound, err := storesRecord(ctx, stores, tag)
	if err != nil {
		return before, after, err
	}
	if sfound {
		rec, found = max(rec, srec), true
	}
	if before, err = v.getTag(ctx, db, tag); err != nil {
		if errors.Is(err, ErrUnknownTag) && found {
			return before, after, missingError(v, tag, rec)
		}
		return before, after, err
	}
	known := max(before.MaxID, before.LastRewind.Seen, rec)
	target := max(known, r.To-1)
	limit := int64(math.MaxInt64) - before.Step // the last max_id a segment fits above
	if r.Skip > 0 {
		if known > limit-r.Skip {
			return before, after, fmt.Errorf("resume tag %s: %w: %d IDs above %d pass the largest ID less one step (%d)", tag, ErrStartOutOfRange, r.Skip, known, limit)
		}
		target = max(target, known+r.Skip)
	}
	if target > limit {
		return before, after, fmt.Errorf("resume tag %s: %w: next ID %d leaves less than one step (%d IDs) below %d, the largest ID", tag, ErrStartOutOfRange, target+1, before.Step, int64(math.MaxInt64))
	}
	q, err := v.render("resume")
	if err != nil {
		return before, after, err
	}
	if _, err := db.ExecContext(ctx, q, target, tag); err != nil {
		return before, after, fmt.Errorf("resume tag %s: %w", tag, err)
	}
	if after, err = v.getTag(ctx, db, tag); err != nil {
		return before, after, err
	}
	if err := v.addRecord(ctx, db, tag, after.MaxID); err != nil {
		return before, after, err
	}
	return before, after, raiseStores(ctx, stores, tag, after.MaxID)
}

// Tags lists every tag of allocation table table
// (DefaultTable when "") on db.
func Tags(ctx context.Context, db *sql.DB, d dialect.Dialect, table string) ([]Tag, error) {
	v, err := newSegmentView(d, table)
	if err != nil {
		return nil, err
	}
	q, err := v.render("list")
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list segment tags: %w%s", err, segmentTableHint(err))
	}
	defer rows.Close()
	var out []Tag
	for rows.Next() {
		t, err := scanTag(rows)
		if err != nil {
			return nil, fmt.Errorf("list segment tags: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list segment tags: %w", err)
	}
	return out, nil
}

// getTag reads one tag, or returns an error wrapping ErrUnknownTag.
func (v segmentView) getTag(ctx context.Context, q dialect.Querier, tag string) (Tag, error) {
	text, err := v.render("get")
	if err != nil {
		return Tag{}, err
	}
	t, err := scanTag(q.QueryRowContext(ctx, text, tag))
	switch {
	case errors.Is(err, sql.ErrNoRows) && ctx.Err() != nil:
		// No row from a read whose deadline passed says nothing about the
		// tag: a missing tag is a rewind, so only a read that ran to its
		// end may report one.
		return t, fmt.Errorf("read segment tag %s: %w", tag, ctx.Err())
	case errors.Is(err, sql.ErrNoRows):
		return t, fmt.Errorf("%w %q", ErrUnknownTag, tag)
	case err != nil:
		return t, fmt.Errorf("read segment tag %s: %w%s", tag, err, segmentTableHint(err))
	case t.Tag != tag:
		return t, fmt.Errorf("%w: asked for %q, the table holds %q and compares tags ignoring case; use %q, or give the table's tag column a binary collation (utf8mb4_bin) to keep them apart", ErrTagCase, tag, t.Tag, t.Tag)
	}
	return t, nil
}

// scanTag reads one row of the get and list statements.
func scanTag(row interface{ Scan(...any) error }) (Tag, error) {
	var t Tag
	var updated, rewound any
	err := row.Scan(&t.Tag, &t.MaxID, &t.Step, &t.Description, &updated, &t.Fenced, &rewound, &t.LastRewind.Seen, &t.LastRewind.Found)
	t.UpdateTime, t.LastRewind.Time = scanTime(updated), scanTime(rewound)
	return t, err
}

// segmentTableHint says what to do about err, an error reading the
// allocation table, when the server says a column is missing: the table
// predates the fence migration. "" otherwise.
func segmentTableHint(err error) string {
	switch dialect.ErrorCode(err) {
	case "42703", "1054": // undefined_column; ER_BAD_FIELD_ERROR
		return " (the table lacks the fence columns: bring it up to date with `shardid segment up` or the goose migration " + FenceMigrationName + ")"
	case "42P01", "1146": // undefined_table; ER_NO_SUCH_TABLE
		return " (create it with `shardid segment up`, segment.Up or the migrations of segment.Migrations)"
	}
	return ""
}

// scanTime reads a timestamp column whichever way the driver delivers it:
// a time.Time (pgx; go-sql-driver/mysql with parseTime=true) or text
// (go-sql-driver/mysql without it, in the server's time zone, read as
// UTC). Anything else is the zero time: the column is informational.
func scanTime(v any) time.Time {
	switch t := v.(type) {
	case time.Time:
		return t
	case []byte:
		p, _ := time.Parse("2006-01-02 15:04:05.999999", string(t))
		return p
	case string:
		p, _ := time.Parse("2006-01-02 15:04:05.999999", t)
		return p
	}
	return time.Time{}
}
