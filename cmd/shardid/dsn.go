package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc/fleet"
)

// dsnForm is a kind of connection string a flag takes; forms combine with |.
type dsnForm = dsn.Form

const (
	// formPostgres is a postgres:// or postgresql:// URL or key=value
	// words, read by pgx.
	formPostgres = dsn.Postgres
	// formMySQL is a go-sql-driver/mysql DSN, user:pw@tcp(host:3306)/db.
	formMySQL = dsn.MySQL
)

// want says what the forms look like, for errors.
func want(f dsnForm) string {
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

// redactDSN returns s with every password masked, for progress lines and
// errors (dsn.Redact).
func redactDSN(s string) string { return dsn.Redact(s) }

// redactErr returns err with r's passwords scrubbed from its message,
// keeping a usageError a usageError (exit status 2).
func redactErr(r *dsn.Redactor, err error) error {
	if err == nil {
		return nil
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return &usageError{msg: r.Scrub(err.Error())}
	}
	return &redactedError{msg: r.Scrub(err.Error()), err: err}
}

// redactedError is an error whose message has passwords scrubbed (or is
// otherwise reworded); errors.Is and errors.As still see the error it
// wraps.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// parseDSN checks, before anything connects, that s is a connection
// string of an allowed form that its driver reads as the user meant
// (dsn.Parse), and returns what to open (MySQL's with parseTime=true).
// Every error is a one-line usageError naming flagName and the forms
// allowed, without the password.
func parseDSN(flagName, s string, allowed dsnForm) (dsn.DSN, error) {
	d, err := dsn.Parse(s, allowed)
	var pe *dsn.Error
	if err == nil || !errors.As(err, &pe) {
		return d, redactErr(dsn.NewRedactor(s), err)
	}
	switch {
	case errors.Is(err, dsn.ErrEmpty):
		err = usagef("%s is required: %s", flagName, want(allowed))
	case errors.Is(err, dsn.ErrNotAllowed) && pe.Form == formPostgres:
		err = usagef("%s: %s is a PostgreSQL connection string; want %s", flagName, redactDSN(s), want(allowed))
	case errors.Is(err, dsn.ErrNotAllowed) && pe.Form == formMySQL:
		err = usagef("%s: %s is a MySQL URL; want %s", flagName, redactDSN(s), want(allowed))
	case errors.Is(err, dsn.ErrNotAllowed):
		err = usagef("%s: not %s", flagName, want(allowed))
	case errors.Is(err, dsn.ErrAtInUserInfo):
		err = usagef("%s: the user name or password of %s holds an @ (write it as %%40); want %s", flagName, redactDSN(s), want(allowed))
	case errors.Is(err, dsn.ErrMySQLURL):
		err = usagef("%s: %s is a URL; go-sql-driver/mysql wants user:password@tcp(host:3306)/db", flagName, redactDSN(s))
	case errors.Is(err, dsn.ErrSyntax) && pe.Form == formPostgres:
		err = usagef("%s: not a PostgreSQL connection string (%s); want %s", flagName, pe.Reason, want(allowed))
	default:
		err = usagef("%s: not %s (%s)", flagName, want(allowed), pe.Reason)
	}
	return dsn.DSN{}, redactErr(dsn.NewRedactor(s), err)
}

// isPostgresDSN reports whether s has the form of a PostgreSQL
// connection string: a postgres:// or postgresql:// URL or key=value words.
func isPostgresDSN(s string) bool { return dsn.IsPostgres(s) }

// connect opens the PostgreSQL database named by --dsn (or
// SHARDID_PG_DSN) and pings it.
func connect(ctx context.Context, s string) (*sql.DB, error) {
	if s == "" {
		return nil, usagef("--dsn is required (or set %s), e.g. postgres://user@host:5432/db", envPGDSN)
	}
	d, err := parseDSN("--dsn", s, formPostgres)
	if err != nil {
		return nil, err
	}
	return ping(ctx, d)
}

// ping opens a pool on d and pings it (dsn.Open); its error shows no
// password of d.
func ping(ctx context.Context, d dsn.DSN) (*sql.DB, error) {
	db, err := dsn.Open(ctx, d)
	switch {
	case errors.Is(err, dsn.ErrConnect):
		return nil, redactErr(dsn.NewRedactor(d.Source), fmt.Errorf("connect: %w", err))
	case err != nil:
		return nil, redactErr(dsn.NewRedactor(d.Source), usagef("--dsn: %v", err))
	}
	return db, nil
}

// openAnyDSN opens a connection pool for the commands that take a
// PostgreSQL DSN (postgres:// or postgresql:// URL, or key=value words) or
// a go-sql-driver/mysql DSN (user:pw@tcp(host:port)/db), as allowed says,
// pings it, and tells which dialect the server speaks. MySQL DSNs get
// parseTime=true. flagName names the flag in errors; no error shows the
// password.
func openAnyDSN(ctx context.Context, flagName, s string, allowed dsnForm) (*sql.DB, dialect.Dialect, error) {
	d, err := parseDSN(flagName, s, allowed)
	if err != nil {
		return nil, "", err
	}
	db, err := ping(ctx, d)
	if err != nil {
		return nil, "", redactErr(dsn.NewRedactor(s), err)
	}
	found, err := dsn.Detect(ctx, db)
	if err != nil {
		return nil, "", redactErr(dsn.NewRedactor(s), err)
	}
	return db, found, nil
}

// checkMapDSNs makes env scrub the passwords of a shard map's DSNs and
// refuses, before anything connects, a DSN that pgx would read otherwise
// than the user meant.
func checkMapDSNs(env *cliEnv, m *fleet.Map) error {
	for _, s := range m.Servers {
		env.secrets.Add(s.DSN)
	}
	for _, s := range m.Servers {
		if _, err := parseDSN("--map: server "+s.Name+": dsn", s.DSN, formPostgres); err != nil {
			return err
		}
	}
	return nil
}
