package segment

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"github.com/shardid/shardid/dialect"
)

// Survey is what an allocation table and its record tables say about
// every tag: the rows of the table, the highest ID recorded from each tag
// (the record table beside it, merged with one outside the allocation
// database when there is one), and so which tags cannot hand out IDs
// safely: fenced, below their record, or missing (recorded, yet no row).
// `shardid segment status` prints one; `segment resume` without --tag
// resumes the tags it names.
type Survey struct {
	// Table is the allocation table read.
	Table string
	// Tags are the rows of the allocation table, in its order.
	Tags []Tag
	// Records maps every tag ever recorded to the highest ID any client
	// recorded taking from it, the larger of the two record tables'; nil
	// when there is none.
	Records map[string]int64
	// RecordsErr is why the record table beside the allocation table
	// could not be read (a role without SELECT on it), nil when it was:
	// then Records holds only the outside one's, and a tag below or
	// missing from that table alone goes unseen.
	RecordsErr error
	// NoOutside is set when an outside database was given and holds no
	// record table (UpRecords creates it).
	NoOutside bool
}

// OutsideError is an error of ReadSurvey reading the record table outside
// the allocation database: a caller can say which database it came from.
type OutsideError struct{ Err error }

// Error returns the error of the outside record table.
func (e *OutsideError) Error() string { return e.Err.Error() }

// Unwrap returns the error of the outside record table.
func (e *OutsideError) Unwrap() error { return e.Err }

// ReadSurvey reads the tags of allocation table table (DefaultTable when
// "") on db and its record table, and, when outside is not nil, the record
// table kept on outside (dialect od, from UpRecords): the records a
// restore of the allocation database does not take back. An error reading
// the tags is returned; one reading the record table beside them is kept
// in Survey.RecordsErr; one reading the outside table is an
// *OutsideError, and no record table there sets Survey.NoOutside.
func ReadSurvey(ctx context.Context, db *sql.DB, d dialect.Dialect, table string, outside *sql.DB, od dialect.Dialect) (Survey, error) {
	s := Survey{Table: table}
	if table == "" {
		s.Table = DefaultTable
	}
	var err error
	if s.Tags, err = Tags(ctx, db, d, table); err != nil {
		return s, err
	}
	s.Records, s.RecordsErr = Records(ctx, db, d, table)
	if outside == nil {
		return s, nil
	}
	recs, err := Records(ctx, outside, od, table)
	s.NoOutside = err == nil && recs == nil
	if err != nil {
		return s, &OutsideError{err}
	}
	if s.Records == nil {
		s.Records = map[string]int64{}
	}
	for tag, high := range recs {
		s.Records[tag] = max(s.Records[tag], high)
	}
	return s, nil
}

// Record returns the highest ID recorded from tag t, and whether it lies
// above the tag's max_id: the table was restored from an older copy.
func (s Survey) Record(t Tag) (high int64, below bool) {
	high, ok := s.Records[t.Tag]
	return high, ok && high > t.MaxID
}

// Problems names what keeps tag t from handing out IDs safely: "fenced",
// "below its record"; none for a sound tag.
func (s Survey) Problems(t Tag) []string {
	var why []string
	if !t.LastRewind.IsZero() && t.Fenced {
		why = append(why, "fenced")
	}
	if _, below := s.Record(t); below {
		why = append(why, "below its record")
	}
	return why
}

// Missing lists, in order, the tags recorded and missing from the table:
// lost with a restore of it (or deleted by hand).
func (s Survey) Missing() []string {
	in := make(map[string]bool, len(s.Tags))
	for _, t := range s.Tags {
		in[t.Tag] = true
	}
	var out []string
	for tag := range s.Records {
		if !in[tag] {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}

// Names lists every tag to resume: the table's, then the missing ones
// (ResumeTag says how to create those again).
func (s Survey) Names() []string {
	out := make([]string, 0, len(s.Tags))
	for _, t := range s.Tags {
		out = append(out, t.Tag)
	}
	return append(out, s.Missing()...)
}

// ResumeNames is Names for resuming every tag: an error when the record
// table beside the allocation table could not be read (a tag missing from
// the table would go unseen), or when there is no tag at all.
func (s Survey) ResumeNames() ([]string, error) {
	if s.RecordsErr != nil {
		return nil, s.RecordsErr
	}
	if names := s.Names(); len(names) > 0 {
		return names, nil
	}
	return nil, fmt.Errorf("allocation table %s holds no tag: nothing to resume", s.Table)
}

// PartialError is ResumeTags' error when some tags failed: the others
// are resumed.
type PartialError struct {
	// Failed and Total count the tags that failed and those tried.
	Failed, Total int
}

// Error says how many tags failed.
func (e *PartialError) Error() string {
	return fmt.Sprintf("%d of %d tags failed (the others are resumed)", e.Failed, e.Total)
}

// TagResult is the outcome of resuming one tag in ResumeTags.
type TagResult struct {
	// Tag is the tag resumed.
	Tag string
	// Before and After are its row before and after; zero when Err is set.
	Before, After Tag
	// Err is why the tag could not be resumed.
	Err error
}

// ResumeTags runs ResumeTag on every tag of names (a Survey's Names for
// all of them), each on its own: one that fails leaves the others
// resumed. Every tag's outcome is in the results; the error is a
// *PartialError when any failed.
func ResumeTags(ctx context.Context, db *sql.DB, d dialect.Dialect, table string, names []string, r Resume, stores ...RecordStore) ([]TagResult, error) {
	out := make([]TagResult, 0, len(names))
	failed := 0
	for _, name := range names {
		before, after, err := ResumeTag(ctx, db, d, table, name, r, stores...)
		if err != nil {
			failed++
		}
		out = append(out, TagResult{Tag: name, Before: before, After: after, Err: err})
	}
	if failed > 0 {
		return out, &PartialError{Failed: failed, Total: len(names)}
	}
	return out, nil
}
