package lease

import (
	"fmt"
	"time"
)

// EventKind says what a Event reports.
type EventKind int

// The kinds of Event.
const (
	// Acquired is a node id leased: Node.
	Acquired EventKind = iota + 1
	// Renewed is a successful renewal: Age is how long after the
	// previous one (or the claim) it was sent, Took how long it took.
	Renewed
	// Expired is the generator stopped drawing because no renewal
	// succeeded in time (the database away, or the process paused): Age is
	// how long ago the last successful one was sent, Err what Next says.
	// It is reported by the first renewal that fails after the stop, or
	// else by the one that succeeds after it; the generator draws again
	// after a renewal succeeds.
	Expired
	// Lost is the lease's row no longer this holder's: taken over,
	// fenced, restored or edited. Err (wrapping ErrLost, and
	// ErrRewound when something other than a holder changed the row) says
	// which. The generator has stopped for good.
	Lost
	// Released is Close giving the node id back; Err is the release's
	// error, if any.
	Released
	// DatabaseDown is a renewal that failed with the database's error
	// after the last one succeeded; Err is the error. The generator draws
	// on until the last renewal runs out.
	DatabaseDown
	// DatabaseUp is a renewal that succeeded after one failed; Outage
	// is how long since the failure.
	DatabaseUp
	// ClockStepped is the wall clock (Settings.Generator.Clock) found
	// stepped by Step (forward positive, back negative) against the
	// monotonic clock at a renewal. The lease's deadlines are monotonic and
	// do not move; the generator refuses a clock stepped back past
	// MaxBackwardStep (shardid.ErrClockBackward) until it is past its last
	// tick again, and a clock stepped forward past what the table records
	// stops drawing until the next renewal records the new time.
	ClockStepped
)

// String names the kind: "acquired", "renewed", "expired", "lost",
// "released", "database down", "database up".
func (k EventKind) String() string {
	switch k {
	case Acquired:
		return "acquired"
	case Renewed:
		return "renewed"
	case Expired:
		return "expired"
	case Lost:
		return "lost"
	case Released:
		return "released"
	case DatabaseDown:
		return "database down"
	case DatabaseUp:
		return "database up"
	case ClockStepped:
		return "clock stepped"
	}
	return fmt.Sprintf("LeaseEventKind(%d)", int(k))
}

// Event is something that happened to a Lease, handed to
// Settings.OnEvent. Which fields are set depends on Kind.
type Event struct {
	// Kind says what happened.
	Kind EventKind
	// Node is the leased node id; Holder the lease's name in the table.
	Node   int64
	Holder string
	// Time is when, by the generator's Clock.
	Time time.Time
	// Age is, for Renewed, how long after the previous successful
	// renewal this one was sent; for Expired, how long ago the last
	// successful one was sent.
	Age time.Duration
	// Took is how long a renewal took.
	Took time.Duration
	// Outage is how long the database was down, for DatabaseUp.
	Outage time.Duration
	// Step is how far the wall clock stepped, for ClockStepped.
	Step time.Duration
	// Err is the error of Expired, Lost, DatabaseDown, and
	// of a failed release.
	Err error
}

// String is the event as one line, for a log.
func (e Event) String() string {
	switch e.Kind {
	case Renewed:
		return fmt.Sprintf("node %d: lease renewed %s after the previous renewal (took %s)", e.Node, e.Age.Round(time.Millisecond), e.Took.Round(time.Microsecond))
	case DatabaseUp:
		return fmt.Sprintf("node %d: database up again after %s", e.Node, e.Outage.Round(time.Millisecond))
	case ClockStepped:
		way := "forward"
		if e.Step < 0 {
			way = "back"
		}
		return fmt.Sprintf("node %d: the wall clock stepped %s by %s (the lease times its deadlines on the monotonic clock)", e.Node, way, e.Step.Abs().Round(time.Millisecond))
	}
	if e.Err != nil {
		return fmt.Sprintf("node %d: %s: %v", e.Node, e.Kind, e.Err)
	}
	return fmt.Sprintf("node %d: %s (holder %q)", e.Node, e.Kind, e.Holder)
}

// Stats is a snapshot of a Lease.
type Stats struct {
	// Node is the leased node id.
	Node int64
	// Renewals and Failures count the renewals that succeeded (the one
	// Acquire makes included) and failed.
	Renewals, Failures int64
	// LastRenewal is when the last successful renewal (or the claim) was
	// sent, by the local clock.
	LastRenewal time.Time
	// DrawUntil is when the generator stops drawing unless a renewal
	// succeeds first: the monotonic deadline, as a time of the lease's
	// clock read with Stats (with time.Now's monotonic reading, so a
	// comparison with time.Now is monotonic); zero once the lease is lost
	// or closed.
	DrawUntil time.Time
	// Err is why the lease is lost or closed; else the last renewal's
	// error, nil after a success.
	Err error
	// DatabaseDown is true while the last renewal failed with the
	// database's error.
	DatabaseDown bool
}
