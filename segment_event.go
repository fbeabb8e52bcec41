package shardid

import (
	"fmt"
	"time"
)

// SegmentEventKind says what a SegmentEvent reports.
type SegmentEventKind int

// The kinds of SegmentEvent.
const (
	// SegmentLoaded is a segment taken: First to Last, Step IDs, the
	// statement taking Took.
	SegmentLoaded SegmentEventKind = iota + 1
	// SegmentDiscarded is Count buffered IDs dropped without being handed
	// out, the lowest First and the highest Last: at Close, or (Err set)
	// because a rewind made them unsafe. Nobody hands them out, ever.
	SegmentDiscarded
	// SegmentRewound is the tag found rewound or fenced: the client had
	// taken IDs up to Seen, the table's max_id is Found, and Err (wrapping
	// ErrRewound) says what to do. No segment is taken until a resume.
	SegmentRewound
	// SegmentDatabaseDown is a statement that failed after the last one
	// succeeded; Err is its error. Next goes on from the buffered IDs.
	SegmentDatabaseDown
	// SegmentDatabaseUp is a statement that succeeded after one failed;
	// Outage is how long since the failure was noticed.
	SegmentDatabaseUp
)

// String names the kind: "loaded", "discarded", "rewound", "database
// down", "database up".
func (k SegmentEventKind) String() string {
	switch k {
	case SegmentLoaded:
		return "loaded"
	case SegmentDiscarded:
		return "discarded"
	case SegmentRewound:
		return "rewound"
	case SegmentDatabaseDown:
		return "database down"
	case SegmentDatabaseUp:
		return "database up"
	}
	return fmt.Sprintf("SegmentEventKind(%d)", int(k))
}

// SegmentEvent is something that happened to a Segments client, handed to
// SegmentSettings.OnEvent. Which fields are set depends on Kind.
type SegmentEvent struct {
	// Kind says what happened.
	Kind SegmentEventKind
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
	// Outage is how long the database was down, for SegmentDatabaseUp.
	Outage time.Duration
	// Err is the error of SegmentRewound and SegmentDatabaseDown, and the
	// rewind behind a SegmentDiscarded that is not Close's.
	Err error
}

// String is the event as one line, for a log.
func (e SegmentEvent) String() string {
	switch e.Kind {
	case SegmentLoaded:
		return fmt.Sprintf("tag %s: segment %d-%d loaded (step %d, %s)", e.Tag, e.First, e.Last, e.Step, e.Took.Round(time.Microsecond))
	case SegmentDiscarded:
		if e.Err != nil {
			return fmt.Sprintf("tag %s: %d buffered IDs (%d-%d) discarded unused: the table may have handed them out again", e.Tag, e.Count, e.First, e.Last)
		}
		return fmt.Sprintf("tag %s: %d buffered IDs (%d-%d) discarded unused at close; nobody hands them out", e.Tag, e.Count, e.First, e.Last)
	case SegmentRewound, SegmentDatabaseDown:
		return fmt.Sprintf("tag %s: %s: %v", e.Tag, e.Kind, e.Err)
	case SegmentDatabaseUp:
		return fmt.Sprintf("tag %s: database up again after %s", e.Tag, e.Outage.Round(time.Millisecond))
	}
	return fmt.Sprintf("tag %s: %s", e.Tag, e.Kind)
}
