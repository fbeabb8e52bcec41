package segment

import (
	"fmt"
	"time"
)

// EventKind says what a Event reports.
type EventKind int

// The kinds of Event.
const (
	// Loaded is a segment taken: First to Last, Step IDs, the
	// statement taking Took.
	Loaded EventKind = iota + 1
	// Discarded is Count buffered IDs dropped without being handed
	// out, the lowest First and the highest Last: at Close, or (Err set)
	// because a rewind made them unsafe. Nobody hands them out, ever.
	Discarded
	// Rewound is the tag found rewound or fenced: the client had
	// taken IDs up to Seen, the table's max_id is Found, and Err (wrapping
	// ErrRewound) says what to do. No segment is taken until a resume.
	Rewound
	// DatabaseDown is a statement that failed after the last one
	// succeeded; Err is its error. Next goes on from the buffered IDs.
	DatabaseDown
	// DatabaseUp is a statement that succeeded after one failed;
	// Outage is how long since the failure was noticed.
	DatabaseUp
	// LoadRefused is a load the package refused though the database
	// answered (Err): commits that are not durable (ErrLossyCommit), the
	// tag gone (ErrUnknownTag), its ID space used up. Told once per
	// cause, until a load succeeds.
	LoadRefused
	// RecordFailed is the record table (RecordTable) not read at New or
	// not written after a segment (Err says why, e.g. a role without
	// SELECT or UPDATE on it): the client draws on from its own memory;
	// clients started later, segment up and segment resume know only what
	// was recorded before.
	RecordFailed
	// ClockStepped is the wall clock (Settings.Clock) found stepped by
	// ClockStep (forward positive, back negative) against the monotonic clock,
	// at a check of the tag's row: the client's timing is monotonic and
	// does not move; the events' times do.
	ClockStepped
)

// String names the kind: "loaded", "discarded", "rewound", "database
// down", "database up", "load refused", "record failed", "clock stepped".
func (k EventKind) String() string {
	switch k {
	case Loaded:
		return "loaded"
	case Discarded:
		return "discarded"
	case Rewound:
		return "rewound"
	case DatabaseDown:
		return "database down"
	case DatabaseUp:
		return "database up"
	case LoadRefused:
		return "load refused"
	case RecordFailed:
		return "record failed"
	case ClockStepped:
		return "clock stepped"
	}
	return fmt.Sprintf("SegmentEventKind(%d)", int(k))
}

// Event is something that happened to a Segments client, handed to
// Settings.OnEvent. Which fields are set depends on Kind.
type Event struct {
	// Kind says what happened.
	Kind EventKind
	// Tag is the client's tag.
	Tag string
	// Time is when, by the client's Clock.
	Time time.Time
	// First and Last are the IDs of a segment loaded, or the lowest and
	// highest of the IDs discarded.
	First, Last int64
	// Step is the size of a segment loaded.
	Step int64
	// Count is the number of IDs discarded.
	Count int64
	// Seen is the highest ID the client had taken when it found a rewind
	// (math.MinInt64 when it had taken none); Found is the tag's max_id.
	Seen, Found int64
	// Took is how long the statement that loaded a segment took.
	Took time.Duration
	// Outage is how long the database was down, for DatabaseUp.
	Outage time.Duration
	// ClockStep is how far the wall clock stepped, for ClockStepped.
	ClockStep time.Duration
	// Err is the error of Rewound and DatabaseDown, and the
	// rewind behind a Discarded that is not Close's.
	Err error
}

// String is the event as one line, for a log.
func (e Event) String() string {
	switch e.Kind {
	case Loaded:
		return fmt.Sprintf("tag %s: segment %d-%d loaded (step %d, %s)", e.Tag, e.First, e.Last, e.Step, e.Took.Round(time.Microsecond))
	case Discarded:
		if e.Err != nil {
			return fmt.Sprintf("tag %s: %d buffered IDs (%d-%d) discarded unused: the table may have handed them out again", e.Tag, e.Count, e.First, e.Last)
		}
		return fmt.Sprintf("tag %s: %d buffered IDs (%d-%d) discarded unused at close; nobody hands them out", e.Tag, e.Count, e.First, e.Last)
	case Rewound, DatabaseDown, LoadRefused, RecordFailed:
		return fmt.Sprintf("tag %s: %s: %v", e.Tag, e.Kind, e.Err)
	case DatabaseUp:
		return fmt.Sprintf("tag %s: database up again after %s", e.Tag, e.Outage.Round(time.Millisecond))
	case ClockStepped:
		way := "forward"
		if e.ClockStep < 0 {
			way = "back"
		}
		return fmt.Sprintf("tag %s: the wall clock stepped %s by %s (the client times its loads on the monotonic clock)", e.Tag, way, e.ClockStep.Abs().Round(time.Millisecond))
	}
	return fmt.Sprintf("tag %s: %s", e.Tag, e.Kind)
}
