package dialect

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"text/template"
)

// Errors every database-backed counter (worker leases, segments) returns
// alike; package lease and package segment export them under the same
// names. Check them with errors.Is.
var (
	// ErrLossyCommit is returned by segment.New, Segments.Next,
	// lease.Acquire and Lease.Renew (and by CheckCommit) when the server
	// may acknowledge a commit that a crash then loses (PostgreSQL
	// synchronous_commit=off; MySQL or MariaDB with
	// innodb_flush_log_at_trx_commit other than 1, or a binary log without
	// sync_binlog=1): a segment handed out, or a node id claimed or
	// renewed, just before such a crash would be handed out again after it.
	// segment.Settings.AllowLossyCommit and lease.Settings.AllowLossyCommit
	// opt out of the check.
	ErrLossyCommit = errors.New("server may lose acknowledged commits")
	// ErrRewound is returned when a table holds less than a client has
	// already seen from it, which only a restore from an older copy, or a
	// hand edit, can do: by segment.New and Segments.Next when the
	// allocation table's next segment would not be above every ID the
	// client (or any client, once one has fenced the tag) handed out, and
	// by Lease.Renew and a leased generator's Next (with lease.ErrLost)
	// when the lease's row was changed by something other than its holder.
	// The lower IDs are never handed out.
	ErrRewound = errors.New("table rewound")
)

// LossyCommitError is the error for a server whose commit settings the
// durable-commit check refused. It wraps ErrLossyCommit.
type LossyCommitError struct {
	// Settings names the settings the check read, as the server reported
	// them: "synchronous_commit=off".
	Settings string
	// Consequence says what a crash could do to the caller's counter.
	Consequence string
}

// Error says what the server's settings are, what a crash could do, and
// how to make commits durable or accept the risk.
func (e *LossyCommitError) Error() string {
	return fmt.Sprintf("%v (%s): %s; set synchronous_commit=on (PostgreSQL) or innodb_flush_log_at_trx_commit=1 and, with a binary log, sync_binlog=1 (MySQL, MariaDB), or accept the risk with AllowLossyCommit", ErrLossyCommit, e.Settings, e.Consequence)
}

// Unwrap returns ErrLossyCommit.
func (e *LossyCommitError) Unwrap() error { return ErrLossyCommit }

// Querier is what CheckCommit needs of a *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

//go:embed sql/*.sql.tmpl
var templateFS embed.FS

// Templates adds to t the SQL fragments the counters' statements share,
// each reading .Dialect of the data: "durable" (a boolean expression, true
// when the server flushes a commit to its own log before acknowledging
// it; TRUE on TiDB, which commits through Raft), "commit_settings" (the
// settings durable reads, as text), "guard" (durable when the data's
// .Guard is set, else TRUE) and "commit_check" (a SELECT of durable and
// commit_settings). It returns t.
func Templates(t *template.Template) (*template.Template, error) {
	return t.ParseFS(templateFS, "sql/*.sql.tmpl")
}

// commitCheck is the commit_check statement per dialect.
var commitCheck = sync.OnceValues(func() (map[Dialect]string, error) {
	t, err := Templates(template.New("dialect"))
	if err != nil {
		return nil, fmt.Errorf("dialect templates: %w", err)
	}
	out := map[Dialect]string{}
	for _, d := range []Dialect{Postgres, MySQL, TiDB} {
		var b strings.Builder
		if err := t.ExecuteTemplate(&b, "commit_check", struct{ Dialect Dialect }{d}); err != nil {
			return nil, fmt.Errorf("render commit_check: %w", err)
		}
		out[d] = b.String()
	}
	return out, nil
})

// CheckCommit returns a *LossyCommitError (wrapping ErrLossyCommit) when
// the server behind q (for PostgreSQL, the session q runs on) may lose
// acknowledged commits; consequence says, for the message, what a crash
// could then do to the caller's counter. It returns an error wrapping
// ErrUnknown for a dialect other than Postgres, MySQL and TiDB, and the
// database's own when the settings cannot be read.
func CheckCommit(ctx context.Context, q Querier, d Dialect, consequence string) error {
	stmts, err := commitCheck()
	if err != nil {
		return err
	}
	stmt, ok := stmts[d]
	if !ok {
		return fmt.Errorf("%w %q (allowed: postgres, mysql, tidb)", ErrUnknown, d)
	}
	var durable bool
	var settings string
	if err := q.QueryRowContext(ctx, stmt).Scan(&durable, &settings); err != nil {
		return fmt.Errorf("read the server's commit settings: %w", err)
	}
	if !durable {
		return &LossyCommitError{Settings: settings, Consequence: consequence}
	}
	return nil
}

// ErrorCode returns the code the server put in err: the SQLSTATE of a
// PostgreSQL error ("42P01") or the error number of a MySQL-family one
// ("1146"), "" for any other error. The package imports no driver, so it
// knows their errors by shape: a SQLState method (pgx's *pgconn.PgError)
// or a uint16 Number field (go-sql-driver/mysql's *MySQLError).
func ErrorCode(err error) string {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		return pg.SQLState()
	}
	for ; err != nil; err = errors.Unwrap(err) {
		v := reflect.ValueOf(err)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			continue
		}
		if n := v.Elem().FieldByName("Number"); n.IsValid() && n.Kind() == reflect.Uint16 {
			return strconv.FormatUint(n.Uint(), 10)
		}
	}
	return ""
}
