package shardid

import (
	"fmt"
	"time"
)

// LeaseEventKind says what a LeaseEvent reports.
type LeaseEventKind int

// The kinds of LeaseEvent.
const (
	// LeaseAcquired is a node id leased: Node.
	LeaseAcquired LeaseEventKind = iota + 1
	// LeaseRenewed is a successful renewal: Age is how long after the
	// previous one (or the claim) it was sent, Took how long it took.
	LeaseRenewed
	// LeaseExpired is the generator stopped drawing because no renewal
	// succeeded in time (the database away, or the process paused): Age is
	// how long ago the last successful one was sent, Err what Next says.
	// It is reported by the first renewal that fails after the stop, or
	// else by the one that succeeds after it; the generator draws again
	// after a renewal succeeds.
	LeaseExpired
	// LeaseLost is the lease's row no longer this holder's: taken over,
	// fenced, restored or edited. Err (wrapping ErrLeaseLost, and
	// ErrRewound when something other than a holder changed the row) says
	// which. The generator has stopped for good.
	LeaseLost
	// LeaseReleased is Close giving the node id back; Err is the release's
	// error, if any.
	LeaseReleased
	// LeaseDatabaseDown is a renewal that failed with the database's error
	// after the last one succeeded; Err is the error. The generator draws
	// on until the last renewal runs out.
	LeaseDatabaseDown
	// LeaseDatabaseUp is a renewal that succeeded after one failed; Outage
	// is how long since the failure.
	LeaseDatabaseUp
)

// String names the kind: "acquired", "renewed", "expired", "lost",
// "released", "database down", "database up".
func (k LeaseEventKind) String() string {
	switch k {
	case LeaseAcquired:
		return "acquired"
	case LeaseRenewed:
		return "renewed"
	case LeaseExpired:
		return "expired"
	case LeaseLost:
		return "lost"
	case LeaseReleased:
		return "released"
	case LeaseDatabaseDown:
		return "database down"
	case LeaseDatabaseUp:
		return "database up"
	}
	return fmt.Sprintf("LeaseEventKind(%d)", int(k))
}

// LeaseEvent is something that happened to a Lease, handed to
// LeaseSettings.OnEvent. Which fields are set depends on Kind.
type LeaseEvent struct {
	// Kind says what happened.
	Kind LeaseEventKind
	// Node is the leased node id; Holder the lease's name in the table.
	Node   int64
	Holder string
	// Time is when, by the generator's Clock.
	Time time.Time
	// Age is, for LeaseRenewed, how long after the previous successful
	// renewal this one was sent; for LeaseExpired, how long ago the last
	// successful one was sent.
	Age time.Duration
	// Took is how long a renewal took.
	Took time.Duration
	// Outage is how long the database was down, for LeaseDatabaseUp.
	Outage time.Duration
	// Err is the error of LeaseExpired, LeaseLost, LeaseDatabaseDown, and
	// of a failed release.
	Err error
}

// String is the event as one line, for a log.
func (e LeaseEvent) String() string {
	switch e.Kind {
	case LeaseRenewed:
		return fmt.Sprintf("node %d: lease renewed %s after the previous renewal (took %s)", e.Node, e.Age.Round(time.Millisecond), e.Took.Round(time.Microsecond))
	case LeaseDatabaseUp:
		return fmt.Sprintf("node %d: database up again after %s", e.Node, e.Outage.Round(time.Millisecond))
	}
	if e.Err != nil {
		return fmt.Sprintf("node %d: %s: %v", e.Node, e.Kind, e.Err)
	}
	return fmt.Sprintf("node %d: %s (holder %q)", e.Node, e.Kind, e.Holder)
}

// LeaseStats is a snapshot of a Lease.
type LeaseStats struct {
	// Node is the leased node id.
	Node int64
	// Renewals and Failures count the renewals that succeeded (the one
	// AcquireLease makes included) and failed.
	Renewals, Failures int64
	// LastRenewal is when the last successful renewal (or the claim) was
	// sent, by the local clock.
	LastRenewal time.Time
	// DrawUntil is when the generator stops drawing unless a renewal
	// succeeds first, by the local monotonic clock; zero once the lease is
	// lost or closed.
	DrawUntil time.Time
	// Err is why the lease is lost or closed; else the last renewal's
	// error, nil after a success.
	Err error
	// DatabaseDown is true while the last renewal failed with the
	// database's error.
	DatabaseDown bool
}
