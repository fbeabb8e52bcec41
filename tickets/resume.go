package tickets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Limits and defaults of ResumeSettings.
const (
	// DefaultSkip is how many tickets Resume moves a server past the
	// highest it could have handed out, by default: room for the draws
	// no client had recorded yet (records lag by RecordEvery).
	DefaultSkip = 1_000_000
	// MaxSkip is the largest Skip.
	MaxSkip = 1 << 40
	// maxTicket is the highest value Resume moves a counter to.
	maxTicket = 1 << 62
)

// ErrNoOffset is returned by Resume when none of the servers it could
// read has the offset asked for.
var ErrNoOffset = errors.New("no ticket server has the offset")

// ErrNoEvidence is returned by Resume when nothing says how far the
// server handed out and ResumeSettings.After is 0: it is the only server
// given (its own records go back with its counter in a restore), or no
// client recorded a ticket from it and no other server has a counter.
var ErrNoEvidence = errors.New("nothing says how far the server handed out")

// ErrUnreadServer is returned by Resume when a server given could not be
// read: nothing is moved, since the resume must be recorded on every
// server of the name (each counts the rewinds reported to it, and a
// client may read any one), and the server's counter and records are part
// of the target.
var ErrUnreadServer = errors.New("a ticket server could not be read")

// ResumeSettings says which server Resume moves, and how far.
type ResumeSettings struct {
	// Name is the ticket name.
	Name string
	// Offset picks the server to move: the one of the name with this
	// offset. Required.
	Offset int64
	// Skip is how many tickets of its class the counter is moved past the
	// highest it could have handed out; 0 means DefaultSkip, at most
	// MaxSkip.
	Skip int64
	// After is a ticket known to have been handed out, e.g. the highest
	// ticket the application's own tables hold; 0 means none.
	After int64
	// Again moves a server that was resumed before and has not gone back
	// since (without it, Resume leaves such a server as it is, so that a
	// rerun changes nothing).
	Again bool
	// Timeout bounds the work on each server; 0 means 10 seconds.
	Timeout time.Duration
}

// ResumeResult says what Resume found and did.
type ResumeResult struct {
	// Server names the server moved, Kind its kind.
	Server string
	Kind   Kind
	// Seen is the highest ticket clients recorded from it, Reported the
	// highest in a rewind report.
	Seen, Reported int64
	// Peer names the furthest other server of the name and PeerLast its
	// counter (kind table; a sequence tells its position only by
	// drawing), or the highest ticket recorded from any of them.
	Peer     string
	PeerLast int64
	// Target is the value the counter was moved to at least: the first of
	// its class Skip tickets past the highest of Seen, Reported, PeerLast
	// and After.
	Target int64
	// From and To are the counter before and after (kind table; 0 for a
	// sequence).
	From, To int64
	// Moved is true when the counter went forward.
	Moved bool
	// Already is set when the server was resumed before and has not gone
	// back since: nothing was changed. It is the earlier resume's target.
	Already int64
	// Acknowledged is the number of rewind reports the resume deals with.
	Acknowledged int64
	// Recorded names the servers whose class tables record the resume.
	Recorded []string
	// Unread are the servers that could not be read; Resume then moves
	// nothing (ErrUnreadServer).
	Unread []error
}

// Validate returns a *SettingError (wrapping ErrInvalidSettings) when s
// has a bad name, offset, skip or after, naming the field, the value and
// what is allowed.
func (s ResumeSettings) Validate() error {
	_, err := s.normalize()
	return err
}

// normalize fills the defaults and checks s.
func (s ResumeSettings) normalize() (ResumeSettings, error) {
	if err := CheckName(s.Name); err != nil {
		return s, err
	}
	if s.Skip == 0 {
		s.Skip = DefaultSkip
	}
	if s.Timeout <= 0 {
		s.Timeout = 10 * time.Second
	}
	switch {
	case s.Offset < 1 || s.Offset > MaxIncrement:
		return s, badSetting("offset", s.Offset, "is out of range (allowed 1-%d: the offset of the server to move)", MaxIncrement)
	case s.Skip < 1 || s.Skip > MaxSkip:
		return s, badSetting("skip", s.Skip, "is out of range (allowed 1-%d tickets)", int64(MaxSkip))
	case s.After < 0 || s.After > maxTicket:
		return s, badSetting("after", s.After, "is out of range (allowed 0-%d)", int64(maxTicket))
	}
	return s, nil
}

// Resume moves the counter of the server of offset s.Offset, among
// servers (every server of ticket name s.Name), past anything it could
// have handed out before its data went back: s.Skip tickets past the
// highest of the tickets clients recorded from it or reported in a rewind,
// the furthest other server's counter, and s.After. It only moves a
// counter forward, then records the resume in the class table of every
// server, which puts the server back in the rotation of every client that
// left it out. A rerun leaves a server that was resumed and has not gone
// back since as it is (s.Again moves it anyway).
//
// It returns errors wrapping ErrInvalidSettings for a bad offset, skip or
// after; ErrNoServer when no servers are given; ErrNoOffset when no
// readable server has the offset;
// ErrIncrementMismatch or ErrOverlap for servers that clash;
// ErrUnreadServer, moving nothing, when a server cannot be read;
// ErrNoEvidence when nothing says how far the server handed out (a single
// server needs s.After); and, with the result,
// an error when the counter moved but the resume could not be recorded
// where a client could read it.
func Resume(ctx context.Context, servers []Server, s ResumeSettings) (ResumeResult, error) {
	var res ResumeResult
	s, err := s.normalize()
	if err != nil {
		return res, err
	}
	if len(servers) == 0 {
		return res, fmt.Errorf("%w: no servers given", ErrNoServer)
	}
	type read struct {
		set      ServerSettings
		rows     []ClassRow
		hasClass bool
		err      error
	}
	got := make([]read, len(servers))
	var wg sync.WaitGroup
	for i, sv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, s.Timeout)
			defer cancel()
			r := &got[i]
			if r.set, r.err = Read(rctx, sv.DB, s.Name); r.err != nil {
				return
			}
			r.set.Server = sv.Name
			r.rows, r.err = ReadClass(rctx, sv.DB, s.Name)
			r.hasClass = r.err == nil
			if errors.Is(r.err, ErrNoClassTable) {
				r.err = nil
			}
		}()
	}
	wg.Wait()
	var sets []ServerSettings
	var rows [][]ClassRow
	target := -1
	for i, r := range got {
		if r.err != nil {
			res.Unread = append(res.Unread, fmt.Errorf("%s: %w", servers[i].Name, r.err))
		}
	}
	if len(res.Unread) > 0 {
		return res, fmt.Errorf("%w%s: nothing moved; the resume must be recorded on every server of %s: bring it back and run again, or leave it out if it is gone for good",
			ErrUnreadServer, unreadNote(res.Unread), s.Name)
	}
	for i, r := range got {
		sets, rows = append(sets, r.set), append(rows, r.rows)
		if r.set.Offset == s.Offset {
			target = i
		}
	}
	if err := Check(sets); err != nil {
		return res, err
	}
	if target < 0 {
		return res, fmt.Errorf("%w %d among the servers of %s that could be read%s", ErrNoOffset, s.Offset, s.Name, unreadNote(res.Unread))
	}
	me := got[target].set
	res.Server, res.Kind = servers[target].Name, me.Kind
	var row ClassRow
	for _, r := range MergeClass(rows...) {
		if r.Offset == s.Offset {
			row = r
		} else if r.Seen > res.PeerLast {
			res.Peer, res.PeerLast = fmt.Sprintf("offset %d (recorded)", r.Offset), r.Seen
		}
	}
	for i, r := range got {
		if i != target && r.err == nil && r.set.Kind == KindTable && r.set.Last >= res.PeerLast {
			res.Peer, res.PeerLast = servers[i].Name, r.set.Last
		}
	}
	res.Seen, res.Reported, res.Acknowledged = row.Seen, row.RewoundHigh, row.Rewinds
	if me.Kind == KindTable {
		res.From, res.To = me.Last, me.Last
	}
	if row.ResumedTo > 0 && !row.Pending() && !s.Again &&
		(!me.LastKnown || me.Last >= row.ResumedTo && me.Last >= row.Seen) {
		res.Already = row.ResumedTo
		// A resume recorded on some servers only (one failed): record it
		// on the others now, so that a rerun completes it.
		for i, r := range got {
			if !r.hasClass || ownRow(r.rows, s.Offset).Resumes >= row.Resumes && ownRow(r.rows, s.Offset).ResumedTo >= row.ResumedTo {
				continue
			}
			rctx, cancel := context.WithTimeout(ctx, s.Timeout)
			err := recordResume(rctx, servers[i].DB, s.Name, s.Offset, row.Resumes, row.ResumedTo)
			cancel()
			if err != nil {
				return res, fmt.Errorf("%s of %s was resumed to %d, but the resume is still not recorded on %s: %w", s.Name, res.Server, row.ResumedTo, servers[i].Name, err)
			}
			res.Recorded = append(res.Recorded, servers[i].Name)
		}
		return res, nil
	}
	if len(servers) == 1 && s.After == 0 {
		return res, fmt.Errorf("%w: %s (offset %d) is the only server of %s given, and a restore takes its own records back with its counter; give the highest ticket your data holds (After)",
			ErrNoEvidence, res.Server, s.Offset, s.Name)
	}
	base := max(res.Seen, res.Reported, res.PeerLast, s.After)
	if base <= 0 {
		return res, fmt.Errorf("%w: no ticket recorded from %s (offset %d), no other server of %s to compare with%s; give the highest ticket your data holds (After)",
			ErrNoEvidence, res.Server, s.Offset, s.Name, unreadNote(res.Unread))
	}
	if base > maxTicket-s.Skip*me.Increment {
		return res, badSetting("skip", s.Skip, "moves the counter past %d from %d (allowed: a target up to %d)", int64(maxTicket), base, int64(maxTicket))
	}
	res.Target = align(base+s.Skip*me.Increment, me.Offset, me.Increment)
	db := servers[target].DB
	v := newView(me.Dialect, Counter{Name: s.Name, Kind: me.Kind})
	v.Target = res.Target
	q, err := v.render("resume")
	if err != nil {
		return res, err
	}
	wctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	if me.Kind == KindSequence {
		var set sql.NullInt64
		if err := db.QueryRowContext(wctx, q).Scan(&set); err != nil {
			return res, fmt.Errorf("move %s of %s to %d: %w", s.Name, res.Server, res.Target, err)
		}
		res.Moved = set.Valid // SETVAL returns NULL when the sequence is already past
	} else {
		if _, err := db.ExecContext(wctx, q); err != nil {
			return res, fmt.Errorf("move %s of %s to %d: %w", s.Name, res.Server, res.Target, err)
		}
		now, err := Read(wctx, db, s.Name)
		if err != nil {
			return res, fmt.Errorf("read %s of %s back after moving it to %d: %w", s.Name, res.Server, res.Target, err)
		}
		res.To, res.Moved = now.Last, now.Last > res.From
		if now.Last < res.Target {
			return res, fmt.Errorf("%s of %s stands at %d after moving it to %d: moved by someone else meanwhile? run it again", s.Name, res.Server, now.Last, res.Target)
		}
	}
	var failed []string
	for i, r := range got {
		if r.err != nil || !r.hasClass {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, s.Timeout)
		err := recordResume(rctx, servers[i].DB, s.Name, s.Offset, row.Rewinds, res.Target)
		cancel()
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", servers[i].Name, err))
			continue
		}
		res.Recorded = append(res.Recorded, servers[i].Name)
	}
	switch {
	case len(failed) > 0:
		return res, fmt.Errorf("moved %s of %s to %d, but the resume is not recorded on %s", s.Name, res.Server, res.Target, strings.Join(failed, "; "))
	case len(res.Recorded) == 0 && row.Pending():
		return res, fmt.Errorf("%w: moved %s of %s to %d, but no server has a class table to record the resume in: clients that left it out keep doing so until they restart", ErrNoClassTable, s.Name, res.Server, res.Target)
	}
	return res, nil
}

// ownRow is the row of offset among rows (zero if none).
func ownRow(rows []ClassRow, offset int64) ClassRow {
	for _, r := range rows {
		if r.Offset == offset {
			return r
		}
	}
	return ClassRow{Offset: offset}
}

// align returns the smallest value ≥ v in the class offset modulo inc.
func align(v, offset, inc int64) int64 {
	r := (v - offset) % inc
	if r < 0 {
		r += inc
	}
	if r == 0 {
		return v
	}
	return v + inc - r
}

// unreadNote names the servers that could not be read, for an error.
func unreadNote(unread []error) string {
	if len(unread) == 0 {
		return ""
	}
	var names []string
	for _, err := range unread {
		names = append(names, err.Error())
	}
	return " (could not read: " + strings.Join(names, "; ") + ")"
}
