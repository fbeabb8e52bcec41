package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/shardid/shardid"
)

// openAnyDSN opens a connection pool for the commands that take either a
// PostgreSQL DSN (postgres:// or postgresql:// URL, or key=value words) or
// a go-sql-driver/mysql DSN (user:pw@tcp(host:port)/db), pings it, and
// tells which dialect the server speaks. MySQL DSNs get parseTime=true.
// flagName names the flag in errors; no error shows the password.
func openAnyDSN(ctx context.Context, flagName, dsn string) (*sql.DB, shardid.Dialect, error) {
	if dsn == "" {
		return nil, "", usagef("%s is required: a PostgreSQL URL (postgres://user@host:5432/db) or a MySQL DSN (user@tcp(host:3306)/db)", flagName)
	}
	driver := "mysql"
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"), strings.Contains(dsn, "="):
		if !strings.Contains(dsn, "@tcp(") && !strings.Contains(dsn, "@unix(") {
			driver = "pgx"
		}
	case strings.HasPrefix(dsn, "mysql://"):
		return nil, "", usagef("%s: %s is a URL; go-sql-driver/mysql wants user:password@tcp(host:3306)/db", flagName, redactDSN(dsn))
	}
	if driver == "mysql" {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			return nil, "", usagef("%s: not a PostgreSQL URL and not a MySQL DSN (user:password@tcp(host:3306)/db): %v", flagName, err)
		}
		cfg.ParseTime = true
		dsn = cfg.FormatDSN()
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, "", usagef("%s: %v", flagName, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("connect: %w", err)
	}
	d, err := shardid.DetectDialect(pctx, db)
	if err != nil {
		db.Close()
		return nil, "", err
	}
	return db, d, nil
}
