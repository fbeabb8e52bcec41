package shardid

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
