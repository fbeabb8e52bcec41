package report_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tickets/report"
)

// text runs a WriteText and returns what it wrote.
func text(t *testing.T, write func(*strings.Builder) error) string {
	t.Helper()
	var b strings.Builder
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestUp: where tickets up says the counter stands.
func TestUp(t *testing.T) {
	c := tickets.Counter{Name: "t", Increment: 2, Offset: 1}
	fresh := tickets.ServerSettings{Kind: tickets.KindTable, Increment: 2, Offset: 1, Last: -1}
	u := report.Up{Server: "s", Counter: c, Ran: []string{"00001"}, Got: fresh}
	if got := text(t, func(b *strings.Builder) error { return u.WriteText(b) }); got != "t on s: created (table, increment 2, offset 1; first ticket 1)\n" {
		t.Errorf("created: %q", got)
	}
	u.Ran, u.Got.Last = nil, 41
	if got := text(t, func(b *strings.Builder) error { return u.WriteText(b) }); got != "t on s: already there, unchanged (table, increment 2, offset 1; last ticket 41)\n" {
		t.Errorf("unchanged: %q", got)
	}
	u.Ran, u.Got.Kind = []string{tickets.ClassMigrationName("t")}, tickets.KindSequence
	if got := text(t, func(b *strings.Builder) error { return u.WriteText(b) }); !strings.Contains(got, "already there; class table "+tickets.ClassTable("t")+" added (sequence") || !strings.Contains(got, "a sequence tells its position only by drawing") {
		t.Errorf("class added: %q", got)
	}
}

// TestStatus: the table, the notes, the rows and the error of tickets
// status, from a survey built here; an empty one too.
func TestStatus(t *testing.T) {
	empty := report.NewStatus("t", nil, 0, report.Options{})
	if got := text(t, func(b *strings.Builder) error { return empty.WriteText(b) }); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "SERVER") || empty.Err() != nil {
		t.Errorf("empty: %q, %v", got, empty.Err())
	}
	set := func(off, last int64) tickets.ServerSettings {
		return tickets.ServerSettings{Server: "s", Kind: tickets.KindTable, Increment: 2, Offset: off, Last: last, LastKnown: true}
	}
	ok := []tickets.ServerStatus{{Name: "a", Settings: set(1, 11), HasClass: true}, {Name: "b", Settings: set(2, 12), HasClass: true}}
	st := report.NewStatus("t", ok, 12, report.Options{})
	if got := text(t, func(b *strings.Builder) error { return st.WriteText(b) }); !strings.HasSuffix(got, "2 servers, increment 2, no two in one class, none went back\n") || len(st.Rows) != 2 || st.Err() != nil {
		t.Errorf("sound: %q, %+v, %v", got, st.Rows, st.Err())
	}

	bad := []tickets.ServerStatus{
		{Name: "a", Settings: set(1, 11), Class: tickets.ClassRow{Seen: 21}, HasClass: true},
		{Name: "b", Err: errors.New("refused\nat dial"), TimedOut: true},
		{Name: "c", Settings: set(2, 4), Class: tickets.ClassRow{Rewinds: 1, RewoundGot: 3, RewoundHigh: 9, RewoundBy: "h:1"}},
	}
	fold := func(s string) string { return strings.ReplaceAll(s, "\n", " | ") }
	st = report.NewStatus("t", bad, 11, report.Options{TimedOut: " (slow)", Line: fold})
	got := text(t, func(b *strings.Builder) error { return st.WriteText(b) })
	for _, want := range []string{
		"b                                        refused | at dial (slow)\n",
		"a (offset 1) stands at 11, below 21, the highest ticket clients recorded from it: its data went back (shardid tickets resume --offset 1)\n",
		"c (offset 2) went back: its counter was back at 3, not above 9 (reported an unknown time by h:1); not resumed",
		"c has no class table t_class",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "none went back") || st.Rows[1].Error != "refused | at dial (slow)" || len(st.Notes) != 3 {
		t.Errorf("went back: %s\nrows %+v\nnotes %q", got, st.Rows, st.Notes)
	}
	if err := st.Err(); err == nil || err.Error() != "2 of 3 servers went back and are not resumed: a (offset 1), c (offset 2)" {
		t.Errorf("err: %v", err)
	}
}

// TestResumed: the line tickets resume prints, moved or left.
func TestResumed(t *testing.T) {
	r := report.Resumed{Name: "t", Offset: 1, Skip: 10, After: 5, Result: tickets.ResumeResult{Server: "a", Kind: tickets.KindTable, Seen: 7, From: 3, To: 21, Moved: true, Recorded: []string{"a", "b"}}}
	if got := text(t, func(b *strings.Builder) error { return r.WriteText(b) }); got != "t on a (offset 1): counter moved from 3 to 21 (10 tickets past the highest of: recorded from it 7, --after 5); resume recorded on a, b\n" {
		t.Errorf("moved: %q", got)
	}
	r.Result = tickets.ResumeResult{Server: "a", Already: 21, Recorded: []string{"b"}}
	if got := text(t, func(b *strings.Builder) error { return r.WriteText(b) }); got != "t on a (offset 1): resumed to 21 before and not gone back since: left as it is (--again moves it anyway); resume now recorded on b too\n" {
		t.Errorf("already: %q", got)
	}
	r.Result = tickets.ResumeResult{Server: "a", Kind: tickets.KindSequence, Target: 30}
	if got := text(t, func(b *strings.Builder) error { return r.WriteText(b) }); got != "t on a (offset 1): sequence already past 30 (10 tickets past the highest of: --after 5): left as it is\n" {
		t.Errorf("sequence: %q", got)
	}
}

// TestEventsAndLeftOut: a server down says when it is tried again; a
// server left out is an error that keeps its cause.
func TestEventsAndLeftOut(t *testing.T) {
	down := tickets.Event{Kind: tickets.EventServerDown, Server: "a", Backoff: time.Second, Err: errors.New("gone")}
	if got := report.EventLine(down); got != "a is down, drawing from the others; one draw tries it again in 1s: gone" {
		t.Errorf("down: %q", got)
	}
	if err := report.LeftOut(nil); err != nil {
		t.Errorf("none left out: %v", err)
	}
	rw := &tickets.RewindError{}
	err := report.LeftOut([]tickets.ServerState{{Name: "ok"}, {Name: "a", Rewound: rw}})
	if err == nil || !errors.Is(err, tickets.ErrRewound) || !strings.HasPrefix(err.Error(), "a went back and was left out") {
		t.Errorf("rewound: %v", err)
	}
}
