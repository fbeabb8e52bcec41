package shardid

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"text/template"

	shardsql "github.com/shardid/shardid/sql"
)

// Dialect names the SQL family of a database that a database-backed
// generator (segments, ticket servers, worker leases) talks to. The code
// here speaks database/sql only; the application links the driver: pgx
// (github.com/jackc/pgx/v5/stdlib, driver "pgx") for PostgreSQL,
// go-sql-driver/mysql (driver "mysql") for MySQL, MariaDB and TiDB.
type Dialect string

// The dialects.
const (
	// DialectPostgres is PostgreSQL.
	DialectPostgres Dialect = "postgres"
	// DialectMySQL is MySQL or MariaDB.
	DialectMySQL Dialect = "mysql"
	// DialectTiDB is TiDB, which speaks MySQL's protocol with rules of its
	// own (AUTO_INCREMENT caching, SEQUENCE objects, non-transactional DDL).
	DialectTiDB Dialect = "tidb"
)

// ErrUnknownDialect is returned by DetectDialect for a server it does not
// recognise, and by ParseDialect for an unknown name.
var ErrUnknownDialect = errors.New("unknown database dialect")

// ParseDialect returns the dialect with that name: postgres, mysql or tidb.
func ParseDialect(s string) (Dialect, error) {
	switch d := Dialect(strings.ToLower(s)); d {
	case DialectPostgres, DialectMySQL, DialectTiDB:
		return d, nil
	}
	return "", fmt.Errorf("%w %q (allowed: postgres, mysql, tidb)", ErrUnknownDialect, s)
}

// DetectDialect asks the server behind db what it is, from SELECT
// version(): PostgreSQL, TiDB (its version string names it), or else the
// MySQL family.
func DetectDialect(ctx context.Context, db *sql.DB) (Dialect, error) {
	var v string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "", fmt.Errorf("detect dialect: %w", err)
	}
	switch {
	case strings.HasPrefix(v, "PostgreSQL"):
		return DialectPostgres, nil
	case strings.Contains(v, "TiDB"):
		return DialectTiDB, nil
	case v != "":
		return DialectMySQL, nil
	}
	return "", fmt.Errorf("%w: version() returned nothing", ErrUnknownDialect)
}

// Errors every database-backed counter of the package (segments, worker
// leases) returns alike; check them with errors.Is.
var (
	// ErrLossyCommit is returned by NewSegments, Segments.Next,
	// AcquireLease and Lease.Renew when the server may acknowledge a
	// commit that a crash then loses (PostgreSQL synchronous_commit=off;
	// MySQL or MariaDB with innodb_flush_log_at_trx_commit other than 1,
	// or a binary log without sync_binlog=1): a segment handed out, or a
	// node id claimed or renewed, just before such a crash would be handed
	// out again after it. SegmentSettings.AllowLossyCommit and
	// LeaseSettings.AllowLossyCommit opt out of the check.
	ErrLossyCommit = errors.New("server may lose acknowledged commits")
	// ErrRewound is returned when a table holds less than a client has
	// already seen from it, which only a restore from an older copy, or a
	// hand edit, can do: by NewSegments and Segments.Next when the
	// allocation table's next segment would not be above every ID the
	// client (or any client, once one has fenced the tag) handed out, and
	// by Lease.Renew and a leased generator's Next (with ErrLeaseLost)
	// when the lease's row was changed by something other than its
	// holder. The lower IDs are never handed out.
	ErrRewound = errors.New("table rewound")
)

// dialectGlob names the checks every dialect-aware statement set shares
// (sql/dialect), parsed into each set by withDialectTemplates.
const dialectGlob = "dialect/*.sql.tmpl"

// withDialectTemplates adds the shared fragments (durable, commit_settings,
// commit_check) to t.
func withDialectTemplates(t *template.Template) (*template.Template, error) {
	return t.ParseFS(shardsql.Dialect, dialectGlob)
}

// commitCheck is the commit_check statement per dialect.
var commitCheck = sync.OnceValues(func() (map[Dialect]string, error) {
	t, err := withDialectTemplates(template.New("dialect"))
	if err != nil {
		return nil, fmt.Errorf("dialect templates: %w", err)
	}
	out := map[Dialect]string{}
	for _, d := range []Dialect{DialectPostgres, DialectMySQL, DialectTiDB} {
		var b strings.Builder
		if err := t.ExecuteTemplate(&b, "commit_check", struct{ Dialect Dialect }{d}); err != nil {
			return nil, fmt.Errorf("render commit_check: %w", err)
		}
		out[d] = b.String()
	}
	return out, nil
})

// checkCommit returns an error wrapping ErrLossyCommit when the server
// behind q (a session of it, for PostgreSQL) may lose acknowledged
// commits; what follows names the consequence for the caller's counter.
func checkCommit(ctx context.Context, q querier, d Dialect, consequence string) error {
	stmts, err := commitCheck()
	if err != nil {
		return err
	}
	var durable bool
	var settings string
	if err := q.QueryRowContext(ctx, stmts[d]).Scan(&durable, &settings); err != nil {
		return fmt.Errorf("read the server's commit settings: %w", err)
	}
	if !durable {
		return lossyCommitError(settings, consequence)
	}
	return nil
}

// lossyCommitError describes a server whose commit settings the guard
// refused: settings as commit_settings reads them, and what a crash could
// do to the caller's counter.
func lossyCommitError(settings, consequence string) error {
	return fmt.Errorf("%w (%s): %s; set synchronous_commit=on (PostgreSQL) or innodb_flush_log_at_trx_commit=1 and, with a binary log, sync_binlog=1 (MySQL, MariaDB), or accept the risk with AllowLossyCommit", ErrLossyCommit, settings, consequence)
}
