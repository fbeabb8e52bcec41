// Package dsn is the one place shardid reads a connection string. It tells
// a PostgreSQL DSN (a postgres:// or postgresql:// URL, or key=value words,
// read by pgx) from a go-sql-driver/mysql DSN (user:pw@tcp(host:3306)/db),
// refuses before anything connects a DSN its driver would read otherwise
// than the user meant, opens and pings a pool, tells which dialect the
// server speaks, and masks passwords in whatever is shown (redact.go).
//
// Parse's errors are plain: they say what is wrong without quoting the
// DSN. Check words them for the flag, variable or file that gave the DSN;
// Open and Connect return errors already scrubbed of its passwords.
package dsn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // also the database/sql driver "pgx"
	"github.com/shardid/shardid/dialect"
)

// Form is a kind of connection string; forms combine with |.
type Form int

const (
	// Postgres is a postgres:// or postgresql:// URL or key=value words,
	// read by pgx.
	Postgres Form = 1 << iota
	// MySQL is a go-sql-driver/mysql DSN, user:pw@tcp(host:3306)/db.
	MySQL
)

// PingTimeout bounds the ping with which Open and OpenPG check that the
// server answers, and Detect's question.
const PingTimeout = 15 * time.Second

// Errors returned by Parse (inside an *Error); check them with errors.Is.
var (
	// ErrEmpty is returned for an empty DSN.
	ErrEmpty = errors.New("no DSN")
	// ErrNotAllowed is returned for a DSN of a form the caller does not
	// take; Error.Form says which form it has (0: none).
	ErrNotAllowed = errors.New("DSN of a form not allowed")
	// ErrAtInUserInfo is returned for a PostgreSQL URL whose user name or
	// password holds an unescaped @: pgx ends the user info at the first
	// @ before a /, net/url at the last, so pgx would take part of the
	// password for the host name (and print it).
	ErrAtInUserInfo = errors.New("@ in the user name or password")
	// ErrMySQLURL is returned for a mysql:// URL, which go-sql-driver/mysql
	// does not read.
	ErrMySQLURL = errors.New("a mysql:// URL")
	// ErrSyntax is returned when the DSN's driver refuses it; Error.Reason
	// says why.
	ErrSyntax = errors.New("unreadable DSN")
	// ErrConnect is matched (errors.Is) by the error of Open and OpenPG
	// when the server did not answer a ping within
	// PingTimeout; the error's message is the driver's.
	ErrConnect = errors.New("connect")
)

// Error is what Parse returns for a DSN it refuses. Its message never
// quotes the DSN.
type Error struct {
	// Err is one of ErrEmpty, ErrNotAllowed, ErrAtInUserInfo, ErrMySQLURL
	// and ErrSyntax.
	Err error
	// Form is the form the DSN has (0 when it has none of the forms).
	Form Form
	// Reason is why the driver refused the DSN (ErrSyntax): pgx's last
	// reason, or go-sql-driver/mysql's error.
	Reason string
}

func (e *Error) Error() string {
	if e.Reason != "" {
		return e.Err.Error() + " (" + e.Reason + ")"
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// DSN is a connection string Parse accepted.
type DSN struct {
	// Form is Postgres or MySQL.
	Form Form
	// Driver is the database/sql driver: "pgx" or "mysql".
	Driver string
	// Source is what to open: the DSN as given for PostgreSQL; for MySQL
	// the DSN with parseTime=true (goose's MySQL and TiDB dialects scan
	// timestamps into time.Time).
	Source string
}

// Parse checks, before anything connects, that s is a connection string of
// an allowed form that its driver reads as the user meant. Its errors are
// *Error values.
func Parse(s string, allowed Form) (DSN, error) {
	switch {
	case s == "":
		return DSN{}, &Error{Err: ErrEmpty}
	case IsPostgres(s):
		if allowed&Postgres == 0 {
			return DSN{}, &Error{Err: ErrNotAllowed, Form: Postgres}
		}
		if !kvStart.MatchString(s) {
			rest := s[strings.Index(s, "://")+3:]
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				rest = rest[:i]
			}
			if strings.Count(rest, "@") > 1 {
				return DSN{}, &Error{Err: ErrAtInUserInfo, Form: Postgres}
			}
		}
		if _, err := pgx.ParseConfig(s); err != nil {
			return DSN{}, &Error{Err: ErrSyntax, Form: Postgres, Reason: Reason(err)}
		}
		return DSN{Form: Postgres, Driver: "pgx", Source: s}, nil
	case strings.HasPrefix(s, "mysql://") && allowed&MySQL == 0:
		// Someone's MySQL URL given where only PostgreSQL goes: its form
		// is beside the point, the server is.
		return DSN{}, &Error{Err: ErrNotAllowed, Form: MySQL}
	case strings.HasPrefix(s, "mysql://"):
		return DSN{}, &Error{Err: ErrMySQLURL}
	case allowed&MySQL == 0:
		return DSN{}, &Error{Err: ErrNotAllowed}
	}
	cfg, err := mysql.ParseDSN(s)
	if err != nil {
		return DSN{}, &Error{Err: ErrSyntax, Form: MySQL, Reason: err.Error()}
	}
	cfg.ParseTime = true
	return DSN{Form: MySQL, Driver: "mysql", Source: cfg.FormatDSN()}, nil
}

// IsPostgres reports whether s has the form of a PostgreSQL connection
// string: a postgres:// or postgresql:// URL or key=value words.
func IsPostgres(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") || kvStart.MatchString(s)
}

// PGConfig reads a PostgreSQL DSN as pgx does; its error is pgx's (Reason
// words it without the DSN).
func PGConfig(s string) (*pgx.ConnConfig, error) { return pgx.ParseConfig(s) }

// MySQLConfig reads a go-sql-driver/mysql DSN; its error is the driver's.
func MySQLConfig(s string) (*mysql.Config, error) { return mysql.ParseDSN(s) }

// Reason says why pgx.ParseConfig refused a DSN without quoting the DSN
// (pgx masks only a password it recognizes, and net/url's errors quote the
// whole URL): the last reason in pgx's message.
func Reason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
		// pgx wraps the reason in parentheses opened before the cut.
		for strings.Count(msg, ")") > strings.Count(msg, "(") {
			msg = strings.TrimSuffix(msg, ")")
		}
		return msg
	}
	return "unparsable"
}

// connectError is a ping that failed, with the driver's error and message.
type connectError struct{ err error }

func (e *connectError) Error() string        { return connectMessage(e.err) }
func (e *connectError) Unwrap() error        { return e.err }
func (e *connectError) Is(target error) bool { return target == ErrConnect }

// tlsRefused ends pgx's report of an attempt to which the server answered
// that it does not speak TLS.
const tlsRefused = "tls error: server refused TLS connection"

// connectMessage is err's message with pgx's list of connection attempts
// pared down to what says why it failed. Under sslmode=prefer (pgx's
// default) or allow, pgx tries each address twice, with TLS and without; a
// TLS attempt the server refused says nothing when a later attempt went
// further, and would stand before the real cause. Attempts that failed
// alike are said once; the rest are joined on one line.
func connectMessage(err error) string {
	msg := err.Error()
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return msg
	}
	joined, ok := ce.Unwrap().(interface{ Unwrap() []error })
	if !ok {
		return msg
	}
	attempts := joined.Unwrap()
	var kept []string
	for i, a := range attempts {
		m := a.Error()
		if i < len(attempts)-1 && strings.HasSuffix(m, tlsRefused) || slices.Contains(kept, m) {
			continue
		}
		kept = append(kept, m)
	}
	tidy := fmt.Sprintf("failed to connect to `user=%s database=%s`: %s", ce.Config.User, ce.Config.Database, strings.Join(kept, "; "))
	return strings.Replace(msg, ce.Error(), tidy, 1)
}

// ping pings db within PingTimeout, closing it when the ping fails.
func ping(ctx context.Context, db *sql.DB) error {
	pctx, cancel := context.WithTimeout(ctx, PingTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return &connectError{err}
	}
	return nil
}

// Open opens a pool on d and pings it. It returns sql.Open's error, or,
// when the ping fails, the driver's error marked as ErrConnect; either
// with d's passwords scrubbed from its message (Scrub).
func Open(ctx context.Context, d DSN) (*sql.DB, error) {
	db, err := sql.Open(d.Driver, d.Source)
	if err != nil {
		return nil, Scrub(err, d.Source)
	}
	if err := ping(ctx, db); err != nil {
		return nil, Scrub(err, d.Source)
	}
	return db, nil
}

// Detect tells which dialect db's server speaks (dialect.Detect),
// within PingTimeout; it closes db when it cannot tell.
func Detect(ctx context.Context, db *sql.DB) (dialect.Dialect, error) {
	pctx, cancel := context.WithTimeout(ctx, PingTimeout)
	defer cancel()
	d, err := dialect.Detect(pctx, db)
	if err != nil {
		db.Close()
		return "", err
	}
	return d, nil
}

// OpenPG opens a pgx (database/sql) pool with cfg and pings it. When the
// ping fails its error is the driver's, marked as ErrConnect.
func OpenPG(ctx context.Context, cfg *pgx.ConnConfig) (*sql.DB, error) {
	db := PoolPG(cfg)
	if err := ping(ctx, db); err != nil {
		return nil, err
	}
	return db, nil
}

// PoolPG returns a pgx (database/sql) pool with cfg, which connects on
// first use.
func PoolPG(cfg *pgx.ConnConfig) *sql.DB { return stdlib.OpenDB(*cfg) }

// PoolMySQL returns a go-sql-driver/mysql pool with cfg, which connects on
// first use.
func PoolMySQL(cfg *mysql.Config) (*sql.DB, error) {
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return sql.OpenDB(conn), nil
}
