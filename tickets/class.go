package tickets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/shardid/shardid/dialect"
)

// ErrNoClassTable is returned by ReadClass when the database has no class
// table for the name: it was set up before class tables existed. Rerunning
// Up (shardid tickets up) with the same settings adds it.
var ErrNoClassTable = errors.New("no class table")

// ClassRow is what a class table (ClassTable) says about the server of one
// offset. Every server of a name holds a row for every server of the name;
// MergeClass keeps the highest of each field across them, since a restore
// takes a server's own rows back with its counter.
type ClassRow struct {
	// Offset is the server's class.
	Offset int64
	// Seen is the highest ticket a client recorded drawing from it: its
	// counter cannot be lower unless it went back.
	Seen int64
	// Rewinds counts the rewinds clients reported: the server handed out
	// a ticket not above one it had handed out before.
	Rewinds int64
	// Resumes is the number of those rewinds a resume (Resume, shardid
	// tickets resume) has dealt with. While Rewinds > Resumes, clients
	// leave the server out.
	Resumes int64
	// RewoundAt is when the last rewind was reported (server time; zero
	// if none), RewoundGot the ticket the server handed out then,
	// RewoundHigh the ticket it was not above, RewoundBy the client that
	// saw it (host and process id).
	RewoundAt               time.Time
	RewoundGot, RewoundHigh int64
	RewoundBy               string
	// ResumedTo is the value the last resume moved the counter to, at
	// ResumedAt (zero if none).
	ResumedTo int64
	ResumedAt time.Time
}

// Pending reports whether a rewind was reported that no resume has dealt
// with.
func (r ClassRow) Pending() bool { return r.Rewinds > r.Resumes }

// Resumed reports whether a resume moved the server of s ahead of its
// peers and it has not gone back below that since: its counter is then
// not compared with theirs.
func Resumed(s ServerSettings, r ClassRow) bool {
	return r.ResumedTo > 0 && s.Kind == KindTable && s.Last >= r.ResumedTo
}

// MergeClass merges class rows read from several servers into one row per
// offset, sorted by offset: the highest Seen, Rewinds, Resumes, and the
// details of the latest rewind and resume.
func MergeClass(rows ...[]ClassRow) []ClassRow {
	by := map[int64]ClassRow{}
	for _, list := range rows {
		for _, r := range list {
			by[r.Offset] = mergeRow(by[r.Offset], r)
		}
	}
	out := make([]ClassRow, 0, len(by))
	for _, r := range by {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out
}

func mergeRow(a, b ClassRow) ClassRow {
	m := a
	m.Offset = max(a.Offset, b.Offset)
	m.Seen, m.Rewinds, m.Resumes = max(a.Seen, b.Seen), max(a.Rewinds, b.Rewinds), max(a.Resumes, b.Resumes)
	// Two servers record one event within the same millisecond (the
	// stamps' precision); on a tie the higher value wins, so a server that
	// missed the record (its value left lower) never outvotes one that has
	// it, whatever order the rows are read in.
	if newer(b.RewoundAt, a.RewoundAt, b.RewoundHigh, a.RewoundHigh) {
		m.RewoundAt, m.RewoundGot, m.RewoundHigh, m.RewoundBy = b.RewoundAt, b.RewoundGot, b.RewoundHigh, b.RewoundBy
	}
	if newer(b.ResumedAt, a.ResumedAt, b.ResumedTo, a.ResumedTo) {
		m.ResumedTo, m.ResumedAt = b.ResumedTo, b.ResumedAt
	}
	return m
}

// newer reports whether the event stamped bAt with value bv supersedes the
// one stamped aAt with value av: later, or as late and higher.
func newer(bAt, aAt time.Time, bv, av int64) bool {
	return bAt.After(aAt) || bAt.Equal(aAt) && bv > av
}

// ReadClass reads the class table of ticket name name from the server
// behind db. It returns an error wrapping ErrNoClassTable when there is
// none the connection's role may see (MySQL-family servers hide a table a
// role has no privilege on), and the database's own otherwise.
func ReadClass(ctx context.Context, db *sql.DB, name string) ([]ClassRow, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	v := newView(dialect.MySQL, Counter{Name: name, Kind: KindTable})
	q, err := v.render("kind")
	if err != nil {
		return nil, err
	}
	var typ string
	switch err := db.QueryRowContext(ctx, q, ClassTable(name)).Scan(&typ); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("%w %s, or none this role may see (rerun shardid tickets up with the same settings to add it; a role that draws needs SELECT, INSERT, UPDATE on it)", ErrNoClassTable, ClassTable(name))
	case err != nil:
		return nil, fmt.Errorf("read class table %s: %w", ClassTable(name), err)
	}
	if q, err = v.render("class"); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read class table %s: %w", ClassTable(name), err)
	}
	defer rows.Close()
	var out []ClassRow
	for rows.Next() {
		var r ClassRow
		var rewoundAt, resumedAt float64
		if err := rows.Scan(&r.Offset, &r.Seen, &r.Rewinds, &r.Resumes, &rewoundAt, &r.RewoundGot, &r.RewoundHigh,
			&r.RewoundBy, &r.ResumedTo, &resumedAt); err != nil {
			return nil, fmt.Errorf("read class table %s: %w", ClassTable(name), err)
		}
		r.RewoundAt, r.ResumedAt = unixTime(rewoundAt), unixTime(resumedAt)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read class table %s: %w", ClassTable(name), err)
	}
	return out, nil
}

// unixTime turns Unix seconds (0: none) into a time.
func unixTime(sec float64) time.Time {
	if sec <= 0 {
		return time.Time{}
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(math.Round(frac*1e3))*1e6).UTC()
}

// mark is one (offset, ticket) pair for the seen statement.
type mark struct{ offset, ticket int64 }

// recordSeen raises the Seen of each mark in the class table behind db.
func recordSeen(ctx context.Context, db *sql.DB, name string, marks []mark) error {
	v := newView(dialect.MySQL, Counter{Name: name, Kind: KindTable})
	v.Rows = make([]struct{}, len(marks))
	q, err := v.render("seen")
	if err != nil {
		return err
	}
	args := make([]any, 0, 2*len(marks))
	for _, m := range marks {
		args = append(args, m.offset, m.ticket)
	}
	if _, err := db.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("record highest tickets in %s: %w", ClassTable(name), err)
	}
	return nil
}

// recordRewind reports a rewind of the server of offset in the class
// table behind db.
func recordRewind(ctx context.Context, db *sql.DB, name string, e *RewindError, offset int64) error {
	q, err := newView(dialect.MySQL, Counter{Name: name, Kind: KindTable}).render("rewound")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, q, offset, e.High, e.Got, e.High, whoAmI()); err != nil {
		return fmt.Errorf("record the rewind in %s: %w", ClassTable(name), err)
	}
	return nil
}

// recordResume records a resume of the server of offset in the class
// table behind db.
func recordResume(ctx context.Context, db *sql.DB, name string, offset, resumes, to int64) error {
	q, err := newView(dialect.MySQL, Counter{Name: name, Kind: KindTable}).render("resumed")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, q, offset, resumes, to); err != nil {
		return fmt.Errorf("record the resume in %s: %w", ClassTable(name), err)
	}
	return nil
}

// whoAmI names this process in rewind reports: host and process id.
func whoAmI() string {
	host, err := os.Hostname()
	if err != nil {
		host = "?"
	}
	s := fmt.Sprintf("%s pid %d", host, os.Getpid())
	if len(s) > 255 {
		s = s[:255]
	}
	return s
}
