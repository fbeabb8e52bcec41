package segment

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/words"
)

// rangeError is CheckTagRange's error: its text says what is allowed, and
// it wraps ErrStepOutOfRange or ErrStartOutOfRange.
type rangeError struct {
	msg  string
	kind error
}

// Error says what is out of range and what is allowed.
func (e *rangeError) Error() string { return e.msg }

// Unwrap returns ErrStepOutOfRange or ErrStartOutOfRange.
func (e *rangeError) Unwrap() error { return e.kind }

// CheckTagRange checks a base step and a start as EnsureTag takes them (0
// keeps an existing tag's step, or starts a new tag at 1) before anything
// connects: an error wrapping ErrStepOutOfRange for a step below 0 or
// above MaxTagStep, one wrapping ErrStartOutOfRange for a start below 0
// or, with a step given, above MaxTagStart of it. What depends on an
// existing tag's step EnsureTag checks.
func CheckTagRange(step, start int64) error {
	switch {
	case step < 0 || step > MaxTagStep:
		return &rangeError{fmt.Sprintf("%d is out of range (allowed: 1-%d, or 0 to keep)", step, MaxTagStep), ErrStepOutOfRange}
	case start < 0:
		return &rangeError{fmt.Sprintf("%d is out of range (allowed: 1 or more, or 0)", start), ErrStartOutOfRange}
	case step > 0 && start > MaxTagStart(step):
		return &rangeError{fmt.Sprintf("%d leaves less than one step (%d IDs) below the largest ID; the largest start for step %d is %d", start, step, step, MaxTagStart(step)), ErrStartOutOfRange}
	}
	return nil
}

// UpResult is what Up (or UpRecords) did to a table, for `shardid segment
// up` to print.
type UpResult struct {
	// Table is the allocation table.
	Table string
	// Server is where the table is: its DSN, the password redacted.
	Server string
	// Dialect is the server's.
	Dialect dialect.Dialect
	// Applied is Up's: the table was created.
	Applied bool
	// Records is set for UpRecords: the line names the record table of
	// Table (RecordTable).
	Records bool
}

// WriteText writes the line segment up prints for r: "allocation table T
// on S (D): created", or "already there"; "record table T_record ..." for
// Records.
func (r UpResult) WriteText(w io.Writer) error {
	what, name, state := "allocation table", r.Table, "already there"
	if r.Records {
		what, name = "record table", RecordTable(r.Table)
	}
	if r.Applied {
		state = "created"
	}
	_, err := fmt.Fprintf(w, "%s %s on %s (%s): %s\n", what, name, r.Server, r.Dialect, state)
	return err
}

// Ensured is EnsureTag's outcome: the row as it was (nil when created)
// and as it is.
type Ensured struct {
	Before *Tag
	After  Tag
}

// WriteText writes the line segment up prints for the tag: created,
// unchanged, or how its step and max_id moved.
func (e Ensured) WriteText(w io.Writer) error {
	var err error
	switch a := e.After; {
	case e.Before == nil:
		_, err = fmt.Fprintf(w, "tag %s: created, step %d, first ID %d\n", a.Tag, a.Step, a.MaxID+1)
	case *e.Before == a:
		_, err = fmt.Fprintf(w, "tag %s: already there, unchanged (step %d, IDs handed out up to %d)\n", a.Tag, a.Step, a.MaxID)
	default:
		_, err = fmt.Fprintf(w, "tag %s: step %d → %d, IDs handed out up to %d → %d\n", a.Tag, e.Before.Step, a.Step, e.Before.MaxID, a.MaxID)
	}
	return err
}

// Err returns, for a fenced tag, the error segment up ends with (what
// lifts the fence); nil otherwise.
func (e Ensured) Err() error {
	if a := e.After; a.Fenced {
		return fmt.Errorf("tag %s is FENCED: a client found the table rewound at %s; no client takes a segment until `shardid segment resume --tag %s` (--start does not lift the fence)",
			a.Tag, a.LastRewind.Time.UTC().Format(time.RFC3339), a.Tag)
	}
	return nil
}

// WriteText writes the survey as segment status prints it: a table of
// the tags (TAG, HANDED OUT UP TO, STEP, LAST SEGMENT TAKEN), under a tag
// its last rewind and whether it lies below its record, then a line for
// each tag missing from the table. Unsafe says what the lines mean.
func (s Survey) WriteText(w io.Writer) error {
	var b strings.Builder // written at once: the first write error is the one returned
	fmt.Fprintf(&b, "%-24s %-20s %-10s %s\n", "TAG", "HANDED OUT UP TO", "STEP", "LAST SEGMENT TAKEN")
	for _, t := range s.Tags {
		fmt.Fprintf(&b, "%-24s %-20d %-10d %s\n", t.Tag, t.MaxID, t.Step, t.UpdateTime.UTC().Format(time.RFC3339))
		if r := t.LastRewind; !r.IsZero() {
			state := "resumed since"
			if t.Fenced {
				state = "FENCED: no client takes a segment until `shardid segment resume`"
			}
			fmt.Fprintf(&b, "  last rewind %s: a client found the table at %d after taking IDs up to %d; %s\n",
				r.Time.UTC().Format(time.RFC3339), r.Found, r.Seen, state)
		}
		if rec, below := s.Record(t); below {
			fmt.Fprintf(&b, "  BELOW ITS RECORD: clients recorded IDs up to %d; the table was restored from an older copy (shardid segment resume --tag %s)\n", rec, t.Tag)
		}
	}
	for _, name := range s.Missing() {
		fmt.Fprintf(&b, "%-24s MISSING: created before, clients recorded IDs up to %d; the table was restored from an older copy (shardid segment up --tag %s --start %d or more)\n",
			name, s.Records[name], name, s.Records[name]+1)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Unsafe returns an error naming every tag that cannot hand out IDs
// safely, each with its Problems (or "missing"); nil when there is none.
func (s Survey) Unsafe() error {
	var bad []string
	for _, t := range s.Tags {
		if why := s.Problems(t); len(why) > 0 {
			bad = append(bad, t.Tag+" ("+strings.Join(why, ", ")+")")
		}
	}
	for _, name := range s.Missing() {
		bad = append(bad, name+" (missing)")
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%d %s cannot hand out IDs safely: %s", len(bad), words.Plural(len(bad), "tag", "tags"), strings.Join(bad, ", "))
}

// WriteText writes the line segment resume prints for r: how far the tag
// moved and the --to that repeats it, or FAILED and the error, its text
// passed through errText first (nil: as it is) so a caller can fold it
// to one line and scrub it.
func (r TagResult) WriteText(w io.Writer, errText func(string) string) error {
	if r.Err != nil {
		msg := r.Err.Error()
		if errText != nil {
			msg = errText(msg)
		}
		_, err := fmt.Fprintf(w, "tag %s: FAILED: %s\n", r.Tag, msg)
		return err
	}
	reported, fence := "", ""
	if r.Before.LastRewind.Seen > 0 {
		reported = fmt.Sprintf(" (clients reported IDs up to %d)", r.Before.LastRewind.Seen)
	}
	if r.Before.Fenced {
		fence = "; fence lifted"
	}
	_, err := fmt.Fprintf(w, "tag %s: IDs handed out up to %d → %d%s%s; next ID %d (to repeat this exactly: --tag %s --to %d)\n",
		r.Tag, r.Before.MaxID, r.After.MaxID, reported, fence, r.After.MaxID+1, r.Tag, r.After.MaxID+1)
	return err
}
