package tickets

import (
	"errors"
	"fmt"
	"time"

	"github.com/shardid/shardid/internal/words"
)

// More sentinel errors of the Client; check them with errors.Is.
var (
	// ErrRewound is returned (as a server's error, wrapped in a
	// *RewindError) when a server hands out a ticket not above one it
	// handed out before, or its counter is below the highest ticket
	// clients recorded from it: its counter went back, as when its data
	// was restored from an older copy. The ticket is never returned; the
	// server stays out of rotation, in every client that reads the class
	// table, until Resume (shardid tickets resume) moves it past what it
	// handed out.
	ErrRewound = errors.New("ticket server went back")
	// ErrNoAnswer is returned (as a server's error, in a *NoAnswerError)
	// when a server was silent for its budget while another server was
	// left to ask, or did not answer a draw within what was left of the
	// call's Timeout: a hung or overloaded server.
	ErrNoAnswer = errors.New("ticket server did not answer in time")
)

// NoAnswerError is the error of a draw that a server did not answer in
// time. It wraps ErrNoAnswer.
type NoAnswerError struct {
	// Server names the server.
	Server string
	// Wait is how long the call gave it: until it had been silent for
	// Silent, or what was left of the call's Timeout; 0 when nothing was
	// left to ask it in. It is the limit the client set, not a time
	// measured around the draw.
	Wait time.Duration
	// Silent is how long the server had answered nothing when the call
	// left it: its budget (Budget true), or Wait.
	Silent time.Duration
	// Budget is true when the call left the server after its budget of
	// silence, with another server left to ask.
	Budget bool
	// Timeout is the call's Timeout.
	Timeout time.Duration
}

// Error says how long the call waited and why that long.
func (e *NoAnswerError) Error() string {
	switch {
	case e.Wait <= 0:
		return fmt.Sprintf("%v: not asked: the call's timeout (%s) was spent on the servers before", ErrNoAnswer, e.Timeout)
	case e.Budget:
		return fmt.Sprintf("%v: silent for %s (its budget, with another server left to ask)", ErrNoAnswer, e.Silent.Round(time.Millisecond))
	}
	return fmt.Sprintf("%v: waited %s (what was left of the call's timeout, %s)", ErrNoAnswer, e.Wait.Round(time.Millisecond), e.Timeout)
}

// Unwrap returns ErrNoAnswer.
func (e *NoAnswerError) Unwrap() error { return ErrNoAnswer }

// RewindError is the error of a server whose counter went back. It wraps
// ErrRewound.
type RewindError struct {
	// Server names the server.
	Server string
	// Got is the ticket the server handed out (never returned to a
	// caller), or, when Reported, its counter as read.
	Got int64
	// High is the ticket Got is not above: the highest this client drew
	// from the server, or the highest any client recorded (Recorded).
	High int64
	// Recorded is true when High comes from the class table rather than
	// this client's own draws.
	Recorded bool
	// Reported is true when the rewind was found in the class table, as a
	// report by another client (Got and High are then that report's).
	Reported bool
}

// Error names the server, both values and what to do.
func (e *RewindError) Error() string {
	switch {
	case e.Reported:
		return fmt.Sprintf("%v: %s was reported handing out %d, not above %d: left out until shardid tickets resume moves it past what it handed out",
			ErrRewound, e.Server, e.Got, e.High)
	case e.Recorded:
		return fmt.Sprintf("%v: %s stands at %d, not above %d, the highest ticket clients recorded from it (restored from an older copy?): left out until shardid tickets resume moves it past what it handed out",
			ErrRewound, e.Server, e.Got, e.High)
	}
	return fmt.Sprintf("%v: %s handed out %d, not above %d it handed out before (restored from an older copy?): the ticket is discarded and the server left out until shardid tickets resume moves it past what it handed out",
		ErrRewound, e.Server, e.Got, e.High)
}

// Unwrap returns ErrRewound.
func (e *RewindError) Unwrap() error { return ErrRewound }

// EventKind says what an Event reports.
type EventKind int

// The events a Client reports through Settings.OnEvent.
const (
	// EventServerDown: a server failed a draw or did not answer within
	// the budget; it is passed over for Event.Backoff, after which one
	// caller at a time probes it. Err says why.
	EventServerDown EventKind = iota + 1
	// EventServerUp: a server that was down drew a ticket again.
	EventServerUp
	// EventFailover: a call left Server after it failed (Err) or did not
	// answer within Wait, and drew its ticket from To instead.
	EventFailover
	// EventRewound: Server's counter went back (Err is a *RewindError
	// with both values; Ticket is the ticket discarded, High the ticket
	// it was not above). The server is out of rotation until resumed.
	EventRewound
	// EventResumed: a rewound server was moved past what it handed out
	// (Resume) and is back in rotation.
	EventResumed
	// EventSkipped: a TiDB sequence came back from an outage with a gap:
	// its first ticket (Ticket) is Count tickets past the last this
	// client drew from that TiDB instance (High). Draws this client gave
	// up on (Abandoned of them since) may have taken some; other clients'
	// draws through the instance take some; a TiDB restart drops the
	// instance's cache of the sequence. LIMIT: only an outage a draw of
	// this client saw (a failed or abandoned draw) is followed by the
	// remark; a restart between two draws, which the connection pool
	// rides out by opening a new connection, is not.
	EventSkipped
	// EventBehind: when the client read the servers, Server's counter
	// (Ticket) was Count tickets behind the furthest of the name (High):
	// down for a while, or restored from an older copy. Drawn from as
	// usual; shardid tickets status shows it.
	EventBehind
	// EventRecordFailed: the client could not record its highest tickets
	// or a rewind in Server's class table (Err). Rewinds are then not
	// known to clients that start later.
	EventRecordFailed
	// EventRefused: a server is refused for good (Err): its tickets fall
	// outside its class, or its settings clash with another server's.
	EventRefused
	// EventSlow: a draw the client left after Server's budget of
	// silence answered later, within Timeout (Wait is how long it took):
	// the server is slow, not gone. Its ticket (Ticket) is never handed
	// out; the server is in rotation (EventServerUp follows when it had
	// been passed over) with a budget (Backoff) raised to what it answers
	// in.
	EventSlow
	// EventClockStepped: the wall clock (Settings.Clock) stepped by
	// Step (forward positive, back negative) against the monotonic clock
	// between two records. The client takes no decision on the wall
	// clock; the step is reported since other processes' clocks did not
	// take it.
	EventClockStepped
)

var eventNames = [...]string{"", "server down", "server up", "failover", "rewound", "resumed", "skipped", "behind", "record failed", "refused", "slow", "clock stepped"}

// String returns the kind in words: "server down", "failover", …
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one thing that happened in a Client, handed to
// Settings.OnEvent. Fields that do not apply to a kind are zero.
type Event struct {
	// Kind says what happened.
	Kind EventKind
	// Server names the server it happened to.
	Server string
	// To names the server a failed-over call drew from.
	To string
	// Ticket and High are the tickets the kind's doc names.
	Ticket, High int64
	// Count is a number of tickets (EventSkipped, EventBehind).
	Count int64
	// Abandoned is how many draws on Server this client gave up on since
	// its last ticket from it (EventSkipped).
	Abandoned int64
	// Step is how far the wall clock stepped (EventClockStepped).
	Step time.Duration
	// Wait is how long the call spent on Server (EventFailover).
	Wait time.Duration
	// Backoff is how long Server is passed over (EventServerDown), or
	// its budget from now on (EventSlow).
	Backoff time.Duration
	// Err is the server's error, if any.
	Err error
}

// String describes the event in one line.
func (e Event) String() string {
	switch e.Kind {
	case EventServerDown:
		return fmt.Sprintf("%s is down, passed over for %s: %v", e.Server, e.Backoff, e.Err)
	case EventServerUp:
		return fmt.Sprintf("%s draws again", e.Server)
	case EventFailover:
		return fmt.Sprintf("a draw left %s after %s and drew from %s: %v", e.Server, e.Wait.Round(time.Millisecond), e.To, e.Err)
	case EventResumed:
		return fmt.Sprintf("%s was resumed and is back in rotation", e.Server)
	case EventSkipped:
		why := "other clients' draws through the same TiDB instance, or a TiDB restart dropping its cache of the sequence"
		if e.Abandoned > 0 {
			why = fmt.Sprintf("%d %s this client gave up on since may have taken some; the rest went to %s", e.Abandoned, words.Plural(e.Abandoned, "draw", "draws"), why)
		}
		return fmt.Sprintf("%s came back with ticket %d, %d tickets past %d, the last this client drew from it (%s)",
			e.Server, e.Ticket, e.Count, e.High, why)
	case EventSlow:
		return fmt.Sprintf("%s is slow, not gone: a draw the client left for another server after its budget answered %s after it began; in rotation with a budget of %s (its ticket %d is not handed out)",
			e.Server, e.Wait.Round(time.Millisecond), e.Backoff.Round(time.Millisecond), e.Ticket)
	case EventClockStepped:
		way := "forward"
		if e.Step < 0 {
			way = "back"
		}
		return fmt.Sprintf("the wall clock stepped %s by %s (the client times everything on the monotonic clock; other processes' clocks did not step)", way, e.Step.Abs().Round(time.Millisecond))
	case EventBehind:
		return fmt.Sprintf("%s stands at %d, %d tickets behind %d, the furthest server of the name: down for a while, or restored from an older copy?",
			e.Server, e.Ticket, e.Count, e.High)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Server, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Server)
}

// Stats is a snapshot of a Client's counters (Client.Stats).
type Stats struct {
	// Draws is the number of tickets handed out.
	Draws int64
	// Failovers counts calls that left a server and drew elsewhere.
	Failovers int64
	// Abandoned counts draws given up after a server's budget of silence
	// or the call's Timeout. The server may still have taken the ticket:
	// it is then never handed out, a gap.
	Abandoned int64
	// Late counts the abandoned draws that answered later (EventSlow):
	// their servers were slow, not hung.
	Late int64
	// Probes counts draws on a server that was down, made by the one
	// caller allowed to try it.
	Probes int64
	// Rewinds counts rewinds found (EventRewound).
	Rewinds int64
	// Skipped sums the gaps remarked after outages (EventSkipped).
	Skipped int64
	// Servers is what the client knows of each server (Client.Servers).
	Servers []ServerState
}
