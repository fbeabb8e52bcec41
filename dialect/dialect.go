package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Dialect names the SQL family of a database: Postgres, MySQL or TiDB.
type Dialect string

// The dialects.
const (
	// Postgres is PostgreSQL.
	Postgres Dialect = "postgres"
	// MySQL is MySQL or MariaDB.
	MySQL Dialect = "mysql"
	// TiDB is TiDB, which speaks MySQL's protocol with rules of its own
	// (AUTO_INCREMENT caching, SEQUENCE objects, non-transactional DDL).
	TiDB Dialect = "tidb"
)

// ErrUnknown is returned by Detect for a server it does not recognise, and
// by Parse for an unknown name.
var ErrUnknown = errors.New("unknown database dialect")

// Parse returns the dialect with that name: postgres, mysql or tidb, in
// any case.
func Parse(s string) (Dialect, error) {
	switch d := Dialect(strings.ToLower(s)); d {
	case Postgres, MySQL, TiDB:
		return d, nil
	}
	return "", fmt.Errorf("%w %q (allowed: postgres, mysql, tidb)", ErrUnknown, s)
}

// Detect asks the server behind db what it is, from SELECT version():
// PostgreSQL, TiDB (its version string names it), or else the MySQL
// family. It returns an error wrapping ErrUnknown when version() returns
// nothing, and the database's own error when the query fails.
func Detect(ctx context.Context, db *sql.DB) (Dialect, error) {
	var v string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "", fmt.Errorf("detect dialect: %w", err)
	}
	switch {
	case strings.HasPrefix(v, "PostgreSQL"):
		return Postgres, nil
	case strings.Contains(v, "TiDB"):
		return TiDB, nil
	case v != "":
		return MySQL, nil
	}
	return "", fmt.Errorf("%w: version() returned nothing", ErrUnknown)
}
