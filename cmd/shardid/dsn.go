package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/pgfunc/fleet"
)

// dsnForm is a kind of connection string a flag takes; forms combine with |.
type dsnForm int

const (
	// formPostgres is a postgres:// or postgresql:// URL or key=value
	// words, read by pgx.
	formPostgres dsnForm = 1 << iota
	// formMySQL is a go-sql-driver/mysql DSN, user:pw@tcp(host:3306)/db.
	formMySQL
)

// want says what the forms look like, for errors.
func (f dsnForm) want() string {
	const (
		pg = "a PostgreSQL URL (postgres://user:password@host:5432/db) or key=value words (host=… user=… dbname=…)"
		my = "a go-sql-driver/mysql DSN (user:password@tcp(host:3306)/db)"
	)
	switch f {
	case formPostgres:
		return pg
	case formMySQL:
		return my
	}
	return pg + ", or " + my
}

// parseDSN checks, before anything connects, that dsn is a connection
// string of an allowed form that its driver reads as the user meant. It
// returns the database/sql driver ("pgx" or "mysql") and the DSN to open
// (MySQL's with parseTime=true). Every error is a one-line usageError
// naming flagName and the forms allowed, without the password.
func parseDSN(flagName, dsn string, allowed dsnForm) (driver, open string, err error) {
	defer func() { err = newRedactor(dsn).wrap(err) }()
	switch {
	case dsn == "":
		return "", "", usagef("%s is required: %s", flagName, allowed.want())
	case isPostgresDSN(dsn):
		if allowed&formPostgres == 0 {
			return "", "", usagef("%s: %s is a PostgreSQL connection string; want %s", flagName, redactDSN(dsn), allowed.want())
		}
		if !kvStart.MatchString(dsn) {
			// pgx ends the user info at the first @ before a /, net/url
			// at the last: with two, pgx would take part of the password
			// for the host name (and print it).
			rest := dsn[strings.Index(dsn, "://")+3:]
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				rest = rest[:i]
			}
			if strings.Count(rest, "@") > 1 {
				return "", "", usagef("%s: the user name or password of %s holds an @ (write it as %%40); want %s", flagName, redactDSN(dsn), allowed.want())
			}
		}
		if _, err := pgx.ParseConfig(dsn); err != nil {
			return "", "", usagef("%s: not a PostgreSQL connection string (%s); want %s", flagName, fleet.ParseErrorReason(err), allowed.want())
		}
		return "pgx", dsn, nil
	case strings.HasPrefix(dsn, "mysql://"):
		return "", "", usagef("%s: %s is a URL; go-sql-driver/mysql wants user:password@tcp(host:3306)/db", flagName, redactDSN(dsn))
	case allowed&formMySQL == 0:
		return "", "", usagef("%s: not %s", flagName, allowed.want())
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", "", usagef("%s: not %s (%v)", flagName, allowed.want(), err)
	}
	cfg.ParseTime = true
	return "mysql", cfg.FormatDSN(), nil
}

// isPostgresDSN reports whether dsn has the form of a PostgreSQL
// connection string: a postgres:// or postgresql:// URL or key=value words.
func isPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") || kvStart.MatchString(dsn)
}

// connect opens the PostgreSQL database named by --dsn (or
// SHARDID_PG_DSN) and pings it.
func connect(ctx context.Context, dsn string) (*sql.DB, error) {
	if dsn == "" {
		return nil, usagef("--dsn is required (or set %s), e.g. postgres://user@host:5432/db", envPGDSN)
	}
	if _, _, err := parseDSN("--dsn", dsn, formPostgres); err != nil {
		return nil, err
	}
	return ping(ctx, "pgx", dsn)
}

// ping opens a pool on dsn and pings it within 15 seconds; its error
// shows no password of dsn.
func ping(ctx context.Context, driver, dsn string) (*sql.DB, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, newRedactor(dsn).wrap(usagef("--dsn: %v", err))
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, newRedactor(dsn).wrap(fmt.Errorf("connect: %w", err))
	}
	return db, nil
}

// openAnyDSN opens a connection pool for the commands that take a
// PostgreSQL DSN (postgres:// or postgresql:// URL, or key=value words) or
// a go-sql-driver/mysql DSN (user:pw@tcp(host:port)/db), as allowed says,
// pings it, and tells which dialect the server speaks. MySQL DSNs get
// parseTime=true. flagName names the flag in errors; no error shows the
// password.
func openAnyDSN(ctx context.Context, flagName, dsn string, allowed dsnForm) (*sql.DB, dialect.Dialect, error) {
	driver, open, err := parseDSN(flagName, dsn, allowed)
	if err != nil {
		return nil, "", err
	}
	db, err := ping(ctx, driver, open)
	if err != nil {
		return nil, "", newRedactor(dsn).wrap(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	d, err := dialect.Detect(pctx, db)
	if err != nil {
		db.Close()
		return nil, "", newRedactor(dsn).wrap(err)
	}
	return db, d, nil
}

// checkMapDSNs makes env scrub the passwords of a shard map's DSNs and
// refuses, before anything connects, a DSN that pgx would read otherwise
// than the user meant.
func checkMapDSNs(env *cliEnv, m *fleet.Map) error {
	for _, s := range m.Servers {
		env.secrets.add(s.DSN)
	}
	for _, s := range m.Servers {
		if _, _, err := parseDSN("--map: server "+s.Name+": dsn", s.DSN, formPostgres); err != nil {
			return err
		}
	}
	return nil
}
