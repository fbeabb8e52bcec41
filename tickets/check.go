package tickets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
)

// Errors of Check; check them with errors.Is.
var (
	// ErrIncrementMismatch is returned by Check (and NewClient) when the
	// servers of a name have different increments: their classes would
	// overlap.
	ErrIncrementMismatch = errors.New("ticket servers have different increments")
	// ErrOverlap is returned by Check (and NewClient) when two servers of
	// a name share a residue class (the same offset modulo the increment,
	// or the same server given twice): they would hand out the same
	// tickets.
	ErrOverlap = errors.New("ticket servers overlap")
)

// ServerSettings is what a server says about a ticket name.
type ServerSettings struct {
	// Server names the server in messages.
	Server string
	// Dialect is the server's SQL family (mysql or tidb).
	Dialect dialect.Dialect
	// Kind holds the counter.
	Kind Kind
	// Increment and Offset define the server's class.
	Increment, Offset int64
	// Last is the last ticket drawn (KindTable). For KindSequence it is
	// the highest value the sequence may have handed out: below TiDB's
	// NEXT_ROW_ID for it, which counts every value any TiDB instance took
	// into its cache, so above every ticket drawn.
	Last int64
	// LastKnown reports whether Last was read: always for KindTable; for
	// KindSequence unless NEXT_ROW_ID could not be read (a role that may
	// not SHOW the sequence, a server other than TiDB's own).
	LastKnown bool
}

// Read asks the server behind db what it holds for ticket name name. It
// returns errors wrapping ErrInvalidSettings, ErrNotMySQL, ErrNoTickets and
// the database's own.
func Read(ctx context.Context, db *sql.DB, name string) (ServerSettings, error) {
	var got ServerSettings
	if err := CheckName(name); err != nil {
		return got, err
	}
	d, err := dialect.Detect(ctx, db)
	if err != nil {
		return got, err
	}
	if d != dialect.MySQL && d != dialect.TiDB {
		return got, fmt.Errorf("%w: the server speaks %s", ErrNotMySQL, d)
	}
	got.Dialect = d
	v := newView(d, Counter{Name: name, Kind: KindTable})
	q, err := v.render("kind")
	if err != nil {
		return got, err
	}
	var typ string
	switch err := db.QueryRowContext(ctx, q, name).Scan(&typ); {
	case errors.Is(err, sql.ErrNoRows):
		return got, fmt.Errorf("%w %s in this database (create it with shardid tickets up)", ErrNoTickets, name)
	case err != nil:
		return got, fmt.Errorf("read ticket %s: %w", name, err)
	}
	if strings.EqualFold(typ, "SEQUENCE") && d == dialect.TiDB {
		got.Kind = KindSequence
		q, err = v.render("sequence")
		if err != nil {
			return got, err
		}
		var start int64
		if err := db.QueryRowContext(ctx, q, name).Scan(&got.Increment, &start); err != nil {
			return got, fmt.Errorf("read ticket sequence %s: %w", name, err)
		}
		if got.Increment < 1 {
			return got, fmt.Errorf("%w: sequence %s counts down (increment %d)", ErrInvalidSettings, name, got.Increment)
		}
		got.Offset = (start-1)%got.Increment + 1
		got.Last, got.LastKnown = sequenceLast(ctx, db, v)
		return got, nil
	}
	got.Kind, got.LastKnown = KindTable, true
	if q, err = v.render("settings"); err != nil {
		return got, err
	}
	switch err := db.QueryRowContext(ctx, q).Scan(&got.Last, &got.Increment, &got.Offset); {
	case errors.Is(err, sql.ErrNoRows):
		return got, fmt.Errorf("%w: table %s has no ticket row (stub 'a')", ErrNoTickets, name)
	case err != nil:
		return got, fmt.Errorf("read ticket table %s (is it a shardid ticket table?): %w", name, err)
	}
	if got.Increment < 1 || got.Offset < 1 || got.Offset > got.Increment {
		return got, fmt.Errorf("%w: table %s says increment %d, offset %d", ErrInvalidSettings, name, got.Increment, got.Offset)
	}
	return got, nil
}

// sequenceLast reads the highest value a TiDB sequence may have handed out
// (ServerSettings.Last): one below its NEXT_GLOBAL_ROW_ID, and whether that
// could be read.
func sequenceLast(ctx context.Context, db *sql.DB, v view) (int64, bool) {
	q, err := v.render("sequence_next")
	if err != nil {
		return 0, false
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, false
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, false
	}
	next, kind := -1, -1
	for i, c := range cols {
		switch strings.ToUpper(c) {
		case "NEXT_GLOBAL_ROW_ID":
			next = i
		case "ID_TYPE":
			kind = i
		}
	}
	if next < 0 || kind < 0 {
		return 0, false
	}
	var last int64
	known := false
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if rows.Scan(ptrs...) != nil {
			return 0, false
		}
		if strings.EqualFold(vals[kind].String, "SEQUENCE") {
			if n, err := strconv.ParseInt(vals[next].String, 10, 64); err == nil {
				last, known = n-1, true
			}
		}
	}
	if rows.Err() != nil {
		return 0, false
	}
	return last, known
}

// Check refuses servers that could hand out the same ticket: increments
// that differ (ErrIncrementMismatch) or two servers in one residue class
// (ErrOverlap). Read the settings from the servers, never from
// configuration: the servers are what draws.
func Check(servers []ServerSettings) error {
	for i, a := range servers {
		for _, b := range servers[:i] {
			switch {
			case a.Increment != b.Increment:
				return fmt.Errorf("%w: %s has increment %d, %s has %d (all servers of a name need the same)", ErrIncrementMismatch, b.Server, b.Increment, a.Server, a.Increment)
			case a.Offset%a.Increment == b.Offset%b.Increment:
				return fmt.Errorf("%w: %s and %s both have offset %d of increment %d (each server needs its own offset; is one server listed twice?)", ErrOverlap, b.Server, a.Server, a.Offset, a.Increment)
			}
		}
	}
	return nil
}

// Up creates ticket name s.Name on the server behind db through goose
// (version table HistoryTable(s.Name)), then reads the settings back. A
// rerun is a no-op. When the server already holds the name with another
// kind, increment or offset it changes nothing and returns the server's
// settings and an error wrapping ErrSettingsDiffer. ran lists the
// migration files that ran.
func Up(ctx context.Context, db *sql.DB, s Counter) (ran []string, got ServerSettings, err error) {
	s, err = s.normalize()
	if err != nil {
		return nil, got, err
	}
	d, err := dialect.Detect(ctx, db)
	if err != nil {
		return nil, got, err
	}
	if prior, err := Read(ctx, db, s.Name); err == nil {
		if err := differ(prior, s); err != nil {
			return nil, prior, err
		}
	} else if !errors.Is(err, ErrNoTickets) {
		return nil, got, err
	}
	files, err := migrationFiles(d, s)
	if err != nil {
		return nil, got, err
	}
	if ran, err = gooseup.Up(ctx, db, d, HistoryTable(s.Name), files); err != nil {
		return ran, got, fmt.Errorf("tickets %s: %w", s.Name, err)
	}
	if got, err = Read(ctx, db, s.Name); err != nil {
		return ran, got, err
	}
	return ran, got, differ(got, s)
}

// differ returns an error wrapping ErrSettingsDiffer unless got is what s
// asks for.
func differ(got ServerSettings, s Counter) error {
	if got.Kind != s.Kind || got.Increment != s.Increment || got.Offset != s.Offset {
		return fmt.Errorf("%w: %s is a %s with increment %d, offset %d; asked for a %s with increment %d, offset %d: left as it is",
			ErrSettingsDiffer, s.Name, got.Kind, got.Increment, got.Offset, s.Kind, s.Increment, s.Offset)
	}
	return nil
}
