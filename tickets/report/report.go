// Package report writes the text `shardid tickets` prints for the results
// of package tickets: what up did to a server, a status survey of every
// server of a ticket name, what resume moved, and a client's events. It
// computes no state of its own; the values come from tickets.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/tickets"
)

// Up is what tickets.Up did on one server, for `shardid tickets up` to
// print.
type Up struct {
	// Server names the server: its DSN, the password redacted.
	Server string
	// Counter is the counter asked for.
	Counter tickets.Counter
	// Ran and Got are tickets.Up's: the migrations it ran and the
	// server's settings after.
	Ran []string
	Got tickets.ServerSettings
}

// WriteText writes the line tickets up prints: the name, created or
// already there, the server's kind, increment and offset, and where its
// counter stands.
func (u Up) WriteText(w io.Writer) error {
	state := "already there, unchanged"
	switch {
	case len(u.Ran) == 1 && u.Ran[0] == tickets.ClassMigrationName(u.Counter.Name):
		state = "already there; class table " + tickets.ClassTable(u.Counter.Name) + " added"
	case len(u.Ran) > 0:
		state = "created"
	}
	first, _ := u.Counter.First()
	where := fmt.Sprintf("last ticket %d", u.Got.Last)
	switch g := u.Got; {
	case g.Kind == tickets.KindSequence:
		where = "a sequence tells its position only by drawing"
	case g.Last < first && g.Last+g.Increment == first:
		where = fmt.Sprintf("first ticket %d", first)
	}
	_, err := fmt.Fprintf(w, "%s on %s: %s (%s, increment %d, offset %d; %s)\n", u.Counter.Name, u.Server, state, u.Got.Kind, u.Got.Increment, u.Got.Offset, where)
	return err
}

// Options are what a Status needs beside tickets.Survey's answer. The zero
// value adds nothing to an error and leaves notes as they are.
type Options struct {
	// TimedOut is appended to the error of a server that did not answer
	// within the survey's timeout (the CLI names its --timeout).
	TimedOut string
	// Line is applied to every error and note before it is written or
	// kept (the CLI folds it to one line and scrubs passwords); nil: as
	// it is.
	Line func(string) string
}

// Status is `shardid tickets status`'s reading of tickets.Survey's answer:
// a row and a table line per server, the notes on what went back, lags
// or lacks its class table, and what makes the command fail.
type Status struct {
	// Name is the ticket name.
	Name string
	// Rows are the servers as --json writes them, in the order given.
	Rows []tickets.ServerRow
	// Notes are the lines written under the table.
	Notes []string
	// Read are the settings of the servers that could be read.
	Read []tickets.ServerSettings
	// Failed names the servers that could not be read, WentBack those
	// whose data went back and were not resumed ("name (offset N)").
	Failed, WentBack []string
	// Total is the number of servers surveyed.
	Total int

	lines []string // the table
}

// NewStatus reads got and top, tickets.Survey's answer for ticket name
// name, into a Status.
func NewStatus(name string, got []tickets.ServerStatus, top int64, o Options) *Status {
	line := o.Line
	if line == nil {
		line = func(s string) string { return s }
	}
	s := &Status{Name: name, Total: len(got)}
	// BEHIND is measured against the servers no resume moved ahead.
	s.lines = append(s.lines, fmt.Sprintf("%-40s %-8s %-9s %-6s %-20s %-20s %s", "SERVER", "KIND", "INCREMENT", "OFFSET", "LAST", "RECORDED", "BEHIND"))
	for _, g := range got {
		if g.Err != nil {
			msg := g.Err.Error()
			if g.TimedOut {
				msg += o.TimedOut
			}
			s.lines = append(s.lines, fmt.Sprintf("%-40s %s", g.Name, line(msg)))
			s.Rows = append(s.Rows, tickets.ServerRow{Server: g.Name, Error: line(msg)})
			s.Failed = append(s.Failed, g.Name)
			continue
		}
		row, set := g.Class, g.Settings
		s.Read = append(s.Read, set)
		last, behind, recorded := "-", "-", "-"
		switch {
		case set.Kind == tickets.KindTable:
			last, behind = fmt.Sprint(set.Last), fmt.Sprint(g.Behind)
		case set.LastKnown: // a sequence: the most it may have handed out, its instances' caches included
			last = fmt.Sprintf("<=%d", set.Last)
		}
		if row.Seen > 0 {
			recorded = fmt.Sprint(row.Seen)
		}
		s.lines = append(s.lines, fmt.Sprintf("%-40s %-8s %-9d %-6d %-20s %-20s %s", g.Name, set.Kind, set.Increment, set.Offset, last, recorded, behind))
		s.Rows = append(s.Rows, g.Row(top))
		s.note(line, g, name)
	}
	return s
}

// note adds the notes on g, a server that was read, to s.
func (s *Status) note(line func(string) string, g tickets.ServerStatus, name string) {
	row, set := g.Class, g.Settings
	who := fmt.Sprintf("%s (offset %d)", g.Name, set.Offset)
	resume := fmt.Sprintf("shardid tickets resume --offset %d", set.Offset)
	var notes []string
	switch {
	case row.Pending():
		notes = append(notes, fmt.Sprintf("%s went back: %s; not resumed, so clients leave it out (%s)", who, rewindSeen(row), resume))
		s.WentBack = append(s.WentBack, who)
	case set.Kind == tickets.KindTable && row.Seen > 0 && row.Seen > set.Last:
		notes = append(notes, fmt.Sprintf("%s stands at %d, below %d, the highest ticket clients recorded from it: its data went back (%s)", who, set.Last, row.Seen, resume))
		s.WentBack = append(s.WentBack, who)
	case set.Kind == tickets.KindSequence && set.LastKnown && row.Seen > set.Last:
		notes = append(notes, fmt.Sprintf("%s is a sequence that has handed out at most %d, below %d, the highest ticket clients recorded from it: its data went back (%s)", who, set.Last, row.Seen, resume))
		s.WentBack = append(s.WentBack, who)
	case row.Rewinds > 0:
		notes = append(notes, fmt.Sprintf("%s: last rewind seen: %s; resumed to %d at %s", who, rewindSeen(row), row.ResumedTo, words.Stamp(row.ResumedAt)))
	}
	if g.Lagging() {
		notes = append(notes, fmt.Sprintf("%s is %d tickets behind the furthest server of %s: down for a while, or its data went back past what clients recorded?", who, g.Behind, name))
	}
	if !g.HasClass {
		notes = append(notes, fmt.Sprintf("%s has no class table %s this role may see (rerun shardid tickets up with the same settings; a role that draws needs SELECT, INSERT, UPDATE on it): rewinds are not recorded there", g.Name, tickets.ClassTable(name)))
	}
	for _, n := range notes {
		s.Notes = append(s.Notes, line(n))
	}
}

// Err returns what makes tickets status fail: two servers in one class
// (tickets.Check), servers that went back and were not resumed, servers
// not read; nil when none.
func (s *Status) Err() error {
	if err := tickets.Check(s.Read); err != nil {
		return err
	}
	switch servers := words.Plural(s.Total, "server", "servers"); {
	case len(s.WentBack) > 0:
		return fmt.Errorf("%d of %d %s went back and %s not resumed: %s", len(s.WentBack), s.Total, servers, words.Plural(len(s.WentBack), "is", "are"), strings.Join(s.WentBack, ", "))
	case len(s.Failed) > 0:
		return fmt.Errorf("%d of %d %s could not be read: %s", len(s.Failed), s.Total, servers, strings.Join(s.Failed, ", "))
	}
	return nil
}

// WriteText writes the status as tickets status prints it: a table of the
// servers (SERVER, KIND, INCREMENT, OFFSET, LAST, RECORDED, BEHIND), the
// notes, and, when Err is nil, a line saying all is well.
func (s *Status) WriteText(w io.Writer) error {
	var b strings.Builder // written at once: the first write error is the one returned
	for _, l := range append(s.lines, s.Notes...) {
		b.WriteString(l + "\n")
	}
	if s.Err() == nil && len(s.Read) > 0 {
		fmt.Fprintf(&b, "%d %s, increment %d, no two in one class, none went back\n", len(s.Read), words.Plural(len(s.Read), "server", "servers"), s.Read[0].Increment)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rewindSeen describes the last rewind a class row records.
func rewindSeen(r tickets.ClassRow) string {
	return fmt.Sprintf("its counter was back at %d, not above %d (reported %s by %s)", r.RewoundGot, r.RewoundHigh, words.Stamp(r.RewoundAt), r.RewoundBy)
}

// Resumed is what tickets.Resume did, for `shardid tickets resume` to
// print.
type Resumed struct {
	// Name is the ticket name, Offset the server's class.
	Name   string
	Offset int64
	// Skip and After are the settings the resume ran with
	// (tickets.ResumeSettings).
	Skip, After int64
	// Result is tickets.Resume's.
	Result tickets.ResumeResult
}

// WriteText writes the line tickets resume prints: left as it was
// (resumed before, or already past), or moved, from what evidence, and
// which servers record the resume.
func (r Resumed) WriteText(w io.Writer) error {
	res := r.Result
	var b strings.Builder
	who := fmt.Sprintf("%s on %s (offset %d)", r.Name, res.Server, r.Offset)
	recorded, too := "; resume recorded on ", ""
	if res.Already > 0 {
		fmt.Fprintf(&b, "%s: resumed to %d before and not gone back since: left as it is (--again moves it anyway)", who, res.Already)
		recorded, too = "; resume now recorded on ", " too"
	} else {
		var from []string
		for _, e := range []struct {
			what string
			v    int64
		}{{"recorded from it", res.Seen}, {"in the rewind report", res.Reported}, {"the furthest other server, " + res.Peer, res.PeerLast}, {"--after", r.After}} {
			if e.v > 0 {
				from = append(from, fmt.Sprintf("%s %d", e.what, e.v))
			}
		}
		why := fmt.Sprintf("%d tickets past the highest of: %s", r.Skip, strings.Join(from, ", "))
		switch {
		case res.Kind == tickets.KindSequence && res.Moved:
			fmt.Fprintf(&b, "%s: sequence moved to %d (%s)", who, res.Target, why)
		case res.Kind == tickets.KindSequence:
			fmt.Fprintf(&b, "%s: sequence already past %d (%s): left as it is", who, res.Target, why)
		case res.Moved:
			fmt.Fprintf(&b, "%s: counter moved from %d to %d (%s)", who, res.From, res.To, why)
		default:
			fmt.Fprintf(&b, "%s: counter at %d, already past %d (%s): left as it is", who, res.From, res.Target, why)
		}
	}
	if len(res.Recorded) > 0 {
		b.WriteString(recorded + strings.Join(res.Recorded, ", ") + too)
	}
	_, err := io.WriteString(w, b.String()+"\n")
	return err
}

// EventLine says what a ticket client's event means, in one line: a
// rewind or refusal its error, a server down that the others are drawn
// from and when it is tried again, otherwise the event's String.
func EventLine(e tickets.Event) string {
	switch e.Kind {
	case tickets.EventRewound, tickets.EventRefused:
		return e.Err.Error()
	case tickets.EventServerDown:
		return fmt.Sprintf("%s is down, drawing from the others; one draw tries it again in %s: %v", e.Server, e.Backoff, e.Err)
	}
	return e.String()
}

// leftOutError is LeftOut's error for a server that went back: worded for
// the user, the *tickets.RewindError kept for errors.Is and errors.As.
type leftOutError struct {
	msg string
	err error
}

// Error says which server went back and what to do.
func (e *leftOutError) Error() string { return e.msg }

// Unwrap returns the server's *tickets.RewindError.
func (e *leftOutError) Unwrap() error { return e.err }

// LeftOut returns, after a client drew, why a server of states
// (tickets.Client.Servers) was left out: refused, or went back; nil when
// none was. The tickets drawn are unique either way.
func LeftOut(states []tickets.ServerState) error {
	for _, st := range states {
		switch {
		case st.Refused != nil:
			return fmt.Errorf("%s was refused (the tickets printed are unique): %w", st.Name, st.Refused)
		case st.Rewound != nil:
			return &leftOutError{fmt.Sprintf("%s went back and was left out; the tickets printed are unique (shardid tickets status shows it, shardid tickets resume brings it back)", st.Name), st.Rewound}
		}
	}
	return nil
}
