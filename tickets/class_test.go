package tickets_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
)

// TestMergeClass: rows read from several servers merge into one per
// offset with the highest counts and the latest rewind and resume, so a
// server whose own rows went back with its data is outvoted by its peers'.
func TestMergeClass(t *testing.T) {
	t.Parallel()
	t1, t2 := time.Unix(1000, 0), time.Unix(2000, 0)
	restored := []tickets.ClassRow{{Offset: 1, Seen: 10}, {Offset: 2, Seen: 8}}
	peer := []tickets.ClassRow{
		{Offset: 1, Seen: 500, Rewinds: 2, Resumes: 1, RewoundAt: t2, RewoundGot: 11, RewoundHigh: 499, RewoundBy: "x", ResumedTo: 300, ResumedAt: t1},
		{Offset: 2, Seen: 900},
	}
	other := []tickets.ClassRow{{Offset: 1, Seen: 480, Rewinds: 1, Resumes: 1, RewoundAt: t1, RewoundGot: 5, RewoundHigh: 200, ResumedTo: 300, ResumedAt: t1}}
	got := tickets.MergeClass(restored, peer, other)
	want := []tickets.ClassRow{
		{Offset: 1, Seen: 500, Rewinds: 2, Resumes: 1, RewoundAt: t2, RewoundGot: 11, RewoundHigh: 499, RewoundBy: "x", ResumedTo: 300, ResumedAt: t1},
		{Offset: 2, Seen: 900},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("MergeClass:\n got %+v\nwant %+v", got, want)
	}
	if !got[0].Pending() || got[1].Pending() {
		t.Errorf("pending: %v %v; want true false", got[0].Pending(), got[1].Pending())
	}
	// One resume recorded on two servers in the same millisecond, one of
	// which lost its value: the recorded value wins in either order.
	missed := []tickets.ClassRow{{Offset: 1, Resumes: 0, ResumedTo: 0, ResumedAt: t2, RewoundAt: t2, RewoundHigh: 0}}
	kept := []tickets.ClassRow{{Offset: 1, Resumes: 1, ResumedTo: 700, ResumedAt: t2, RewoundAt: t2, RewoundHigh: 650}}
	for _, order := range [][][]tickets.ClassRow{{missed, kept}, {kept, missed}} {
		if got := tickets.MergeClass(order...); got[0].ResumedTo != 700 || got[0].RewoundHigh != 650 || got[0].Resumes != 1 {
			t.Errorf("same stamp, one lower: %+v; want resumed to 700, rewound high 650", got[0])
		}
	}
}

// TestEventWords: every kind has a name, and the errors say what happened
// with both values.
func TestEventWords(t *testing.T) {
	t.Parallel()
	for k, want := range map[tickets.EventKind]string{
		tickets.EventServerDown: "server down", tickets.EventServerUp: "server up", tickets.EventFailover: "failover",
		tickets.EventRewound: "rewound", tickets.EventResumed: "resumed", tickets.EventSkipped: "skipped",
		tickets.EventBehind: "behind", tickets.EventRecordFailed: "record failed", tickets.EventRefused: "refused",
		tickets.EventSlow: "slow", tickets.EventClockStepped: "clock stepped",
		tickets.EventKind(99): "EventKind(99)",
	} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", int(k), got, want)
		}
	}
	for _, c := range []struct {
		e    *tickets.RewindError
		want string
	}{
		{&tickets.RewindError{Server: "a", Got: 7, High: 99}, "a handed out 7, not above 99 it handed out before (restored from an older copy?): the ticket is discarded"},
		{&tickets.RewindError{Server: "a", Got: 7, High: 99, Recorded: true}, "a stands at 7, not above 99, the highest ticket clients recorded from it"},
		{&tickets.RewindError{Server: "a", Got: 7, High: 99, Reported: true}, "a was reported handing out 7, not above 99"},
	} {
		if !errors.Is(c.e, tickets.ErrRewound) || !strings.Contains(c.e.Error(), c.want) || !strings.Contains(c.e.Error(), "shardid tickets resume") {
			t.Errorf("%q; want %q and the way out", c.e, c.want)
		}
	}
	for _, c := range []struct {
		e    tickets.Event
		want string
	}{
		{tickets.Event{Kind: tickets.EventFailover, Server: "a", To: "b", Wait: 250 * time.Millisecond, Err: tickets.ErrNoAnswer},
			"a draw left a after 250ms and drew from b: ticket server did not answer in time"},
		// A gap after draws given up on names them, and claims no restart.
		{tickets.Event{Kind: tickets.EventSkipped, Server: "a", Ticket: 31, High: 11, Count: 9, Abandoned: 2},
			"a came back with ticket 31, 9 tickets past 11, the last this client drew from it (2 draws this client gave up on since may have taken some; the rest went to other clients' draws through the same TiDB instance, or a TiDB restart dropping its cache of the sequence)"},
		{tickets.Event{Kind: tickets.EventSkipped, Server: "a", Ticket: 31, High: 11, Count: 9},
			"a came back with ticket 31, 9 tickets past 11, the last this client drew from it (other clients' draws through the same TiDB instance, or a TiDB restart dropping its cache of the sequence)"},
		{tickets.Event{Kind: tickets.EventSlow, Server: "b", Wait: 412 * time.Millisecond, Backoff: 1648 * time.Millisecond, Ticket: 8},
			"b is slow, not gone: a draw the client left for another server after its budget answered 412ms after it began; in rotation with a budget of 1.648s (its ticket 8 is not handed out)"},
		{tickets.Event{Kind: tickets.EventClockStepped, Step: -time.Hour},
			"the wall clock stepped back by 1h0m0s (the client times everything on the monotonic clock; other processes' clocks did not step)"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.e.Kind, got, c.want)
		}
	}
}
