package tickets

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/template"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/internal/quote"
)

// Kind is what holds a ticket name's counter on a server.
type Kind string

const (
	// KindTable is the one-row ticket table (MySQL, MariaDB, TiDB).
	KindTable Kind = "table"
	// KindSequence is a TiDB SEQUENCE object: no row written per ticket;
	// each TiDB instance caches Counter.Cache values, so tickets are
	// unique but increase only per TiDB instance, and a restart skips the
	// unused cache.
	KindSequence Kind = "sequence"
)

// Limits and defaults of Counter.
const (
	// MaxIncrement is the largest increment, MySQL's own bound for
	// auto_increment_increment.
	MaxIncrement = 65535
	// DefaultCache is the number of values a TiDB instance caches of a
	// KindSequence counter.
	DefaultCache = 1000
)

// Sentinel errors; check them with errors.Is.
var (
	// ErrInvalidSettings is returned for a bad name, increment, offset,
	// start, kind or cache.
	ErrInvalidSettings = errors.New("invalid ticket settings")
	// ErrNotMySQL is returned by Up and Read for a server that is not
	// MySQL, MariaDB or TiDB.
	ErrNotMySQL = errors.New("not a MySQL-family server")
	// ErrNotTiDB is returned by Up for KindSequence on a server that is
	// not TiDB.
	ErrNotTiDB = errors.New("not a TiDB server")
	// ErrNoTickets is returned by Read (and by draws) when the database has
	// no ticket table or sequence of that name.
	ErrNoTickets = errors.New("no ticket table")
	// ErrSettingsDiffer is returned by Up when the server already holds
	// the name with another kind, increment or offset; nothing is changed.
	ErrSettingsDiffer = errors.New("ticket settings differ on the server")
	// ErrLossyCommit is returned by draws on a MySQL or MariaDB server that
	// may lose acknowledged commits in a crash
	// (innodb_flush_log_at_trx_commit other than 1, or a binary log
	// without sync_binlog=1): a ticket drawn just before such a crash
	// would be drawn again after it.
	ErrLossyCommit = errors.New("server may lose acknowledged commits")
)

// SettingError is the error for one bad field of Counter (returned by
// CheckName, Counter.Validate and the functions that take Counter); it
// wraps ErrInvalidSettings and names the field, so that a caller can point
// at its own name for it (a command-line flag, a configuration key).
type SettingError struct {
	// Field is the field's name in lower case: name, increment, offset,
	// start, kind or cache.
	Field string
	// Value is the refused value as Go writes it: 3, "queue".
	Value string
	// Reason says why, and what the field allows.
	Reason string
}

// Error returns "invalid ticket settings: FIELD VALUE REASON".
func (e *SettingError) Error() string {
	return fmt.Sprintf("%v: %s %s %s", ErrInvalidSettings, e.Field, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidSettings.
func (e *SettingError) Unwrap() error { return ErrInvalidSettings }

// badSetting returns the SettingError for field's value v.
func badSetting(field string, v any, reason string, args ...any) error {
	value := fmt.Sprint(v)
	if str, ok := v.(string); ok {
		value = fmt.Sprintf("%q", str)
	}
	return &SettingError{Field: field, Value: value, Reason: fmt.Sprintf(reason, args...)}
}

// Counter describes one ticket name's counter on one server, as Up creates
// it: its name, its class (increment and offset), its first ticket and
// its kind. (A Client's options are Settings.)
type Counter struct {
	// Name is the ticket table (or sequence): lower-case letters, digits
	// and _, starting with a letter or _, not pg_*, at most 46 bytes (its
	// goose version table, HistoryTable, adds 17), not ending in _class
	// (the suffix of class tables, ClassTable).
	Name string
	// Increment is the number of residue classes, the same on every
	// server of the name: 1..MaxIncrement. 0 means 1.
	Increment int64
	// Offset is this server's class, 1..Increment: its tickets are
	// Offset, Offset+Increment, … 0 means 1.
	Offset int64
	// Start is the least first ticket: the first ticket is the smallest
	// value ≥ Start in the server's class (for taking over from an
	// existing counter). 0 means 1.
	Start int64
	// Kind is KindTable ("" means it) or KindSequence (TiDB only).
	Kind Kind
	// Cache is the number of values each TiDB instance caches for
	// KindSequence; 0 means DefaultCache. KindTable takes none: another
	// value is refused, not ignored.
	Cache int64
}

// CheckName returns a *SettingError (wrapping ErrInvalidSettings) unless
// name is a valid ticket name (see Counter.Name): the rule every
// counter's table follows, without a schema (a ticket name lives in the
// DSN's database), at most 46 bytes (HistoryTable appends 17).
func CheckName(name string) error {
	if quote.CheckTable(name, false, len(historySuffix)) != nil {
		return badSetting("name", name, "is not a ticket name (allowed: lower-case letters, digits and _, starting with a letter or _, not pg_*, at most %d bytes)", quote.MaxIdent-len(historySuffix))
	}
	return nil
}

// Validate returns a *SettingError (wrapping ErrInvalidSettings) when s
// has a bad name, increment, offset, start, kind or cache, naming the
// field, the value and what is allowed.
func (s Counter) Validate() error {
	_, err := s.normalize()
	return err
}

// First returns the first ticket s hands out: the smallest value at or
// above Start in the server's class.
func (s Counter) First() (int64, error) {
	s, err := s.normalize()
	if err != nil {
		return 0, err
	}
	return s.first(), nil
}

// normalize fills the defaults and checks s.
func (s Counter) normalize() (Counter, error) {
	if err := CheckName(s.Name); err != nil {
		return s, err
	}
	if strings.HasSuffix(s.Name, classSuffix) {
		return s, badSetting("name", s.Name, "ends in %s, the suffix of class tables (%s is the class table of ticket name %s)",
			classSuffix, s.Name, strings.TrimSuffix(s.Name, classSuffix))
	}
	if s.Increment == 0 {
		s.Increment = 1
	}
	if s.Offset == 0 {
		s.Offset = 1
	}
	if s.Start == 0 {
		s.Start = 1
	}
	if s.Kind == "" {
		s.Kind = KindTable
	}
	if s.Kind == KindSequence && s.Cache == 0 {
		s.Cache = DefaultCache
	}
	switch {
	case s.Increment < 1 || s.Increment > MaxIncrement:
		return s, badSetting("increment", s.Increment, "is out of range (allowed 1-%d)", MaxIncrement)
	case s.Offset < 1 || s.Offset > s.Increment:
		return s, badSetting("offset", s.Offset, "is out of range (allowed 1-%d, the increment)", s.Increment)
	case s.Start < 1 || s.Start > 1<<62:
		return s, badSetting("start", s.Start, "is out of range (allowed 1-%d)", int64(1<<62))
	case s.Kind != KindTable && s.Kind != KindSequence:
		return s, badSetting("kind", string(s.Kind), "is not a kind (allowed: table, sequence)")
	case s.Kind == KindTable && s.Cache != 0:
		return s, badSetting("cache", s.Cache, "is not taken by kind table (a cache applies only to kind sequence)")
	case s.Kind == KindSequence && (s.Cache < 1 || s.Cache > 1_000_000):
		return s, badSetting("cache", s.Cache, "is out of range (allowed 1-1000000)")
	}
	return s, nil
}

// first returns the first ticket: the smallest value ≥ Start in the class.
func (s Counter) first() int64 {
	r := (s.Start - s.Offset) % s.Increment
	if r < 0 {
		r += s.Increment
	}
	if r == 0 {
		return s.Start
	}
	return s.Start + s.Increment - r
}

// historySuffix makes a name's goose version table (HistoryTable).
const historySuffix = "_goose_db_version"

// HistoryTable is the goose version table that records name's migration:
// one per ticket name, so it mixes with no other goose history.
func HistoryTable(name string) string { return name + historySuffix }

// MigrationName is the file name of name's goose migration.
func MigrationName(name string) string { return "00001_tickets_" + name + ".sql" }

// classSuffix ends the name of every class table.
const classSuffix = "_class"

// ClassTable is the table that records, on every server of ticket name
// name, the highest ticket clients drew from each server of the name and
// the rewinds and resumes seen (ClassRow).
func ClassTable(name string) string { return name + classSuffix }

// ClassMigrationName is the file name of the goose migration that creates
// ClassTable(name).
func ClassMigrationName(name string) string { return "00002_tickets_" + name + classSuffix + ".sql" }

// view is the data of the sql/*.sql.tmpl templates.
type view struct {
	Dialect              dialect.Dialect
	Kind                 Kind
	Name                 string     // quoted
	Class                string     // the class table, quoted
	Rows                 []struct{} // seen: one per server
	Target               int64      // resume: the value to move the counter to
	Increment, Offset    int64
	First, Before, Cache int64
	MaxIncrement         int
	Guard                bool // draws refuse servers that may lose acknowledged commits
}

//go:embed sql/*.sql.tmpl
var templateFS embed.FS

var templates = template.Must(template.New("tickets").ParseFS(templateFS, "sql/*.sql.tmpl"))

// newView returns the template data for s on dialect d. The numbers are
// only needed by the migration, which passes normalized settings; the
// runtime statements need the name and kind alone.
func newView(d dialect.Dialect, s Counter) view {
	v := view{Dialect: d, Kind: s.Kind, Name: quote.Table(s.Name, false), Class: quote.Table(ClassTable(s.Name), false), Increment: s.Increment, Offset: s.Offset,
		Cache: s.Cache, MaxIncrement: MaxIncrement, Guard: d == dialect.MySQL}
	if s.Increment > 0 {
		v.First = s.first()
		v.Before = v.First - s.Increment
	}
	return v
}

func (v view) render(name string) (string, error) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, v); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// Migrations returns the goose migrations that create ticket name s.Name
// on a server of dialect d (mysql or tidb), at the root of the file
// system: the ticket table or sequence (MigrationName) and its class table
// (ClassMigrationName). Hand them to a goose Provider whose version table
// is HistoryTable(s.Name), or copy them into a migration directory of your
// own; Up applies them.
func Migrations(d dialect.Dialect, s Counter) (fs.FS, error) {
	files, err := migrationFiles(d, s)
	if err != nil {
		return nil, err
	}
	return gooseup.Files(files), nil
}

// migrationFiles renders the migrations, keyed by file name.
func migrationFiles(d dialect.Dialect, s Counter) (map[string][]byte, error) {
	s, err := s.normalize()
	if err != nil {
		return nil, err
	}
	switch {
	case d != dialect.MySQL && d != dialect.TiDB:
		return nil, fmt.Errorf("%w: dialect %q (allowed: mysql, tidb)", ErrNotMySQL, d)
	case s.Kind == KindSequence && d != dialect.TiDB:
		return nil, fmt.Errorf("%w: kind sequence needs TiDB (this server speaks MySQL's dialect; use kind table)", ErrNotTiDB)
	}
	v := newView(d, s)
	text, err := v.render("migration.sql.tmpl")
	if err != nil {
		return nil, err
	}
	class, err := v.render("class.sql.tmpl")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{MigrationName(s.Name): []byte(text + "\n"), ClassMigrationName(s.Name): []byte(class + "\n")}, nil
}
