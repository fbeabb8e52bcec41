package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// parseDSN checks, before anything connects, that s is a connection
// string of an allowed form that its driver reads as the user meant
// (dsn.Check), and returns what to open (MySQL's with parseTime=true).
// Its error is a one-line usageError naming flagName and the forms
// allowed, without the password.
func parseDSN(flagName, s string, allowed dsn.Form) (dsn.DSN, error) {
	d, err := dsn.Check(flagName, s, allowed)
	if err != nil {
		return d, &usageError{msg: err.Error()}
	}
	return d, nil
}

// connect opens the PostgreSQL database named by --dsn (or
// SHARDID_PG_DSN) and pings it.
func connect(ctx context.Context, s string) (*sql.DB, error) {
	if s == "" {
		return nil, dsnRequired()
	}
	d, err := parseDSN("--dsn", s, dsn.Postgres)
	if err != nil {
		return nil, err
	}
	return ping(ctx, d)
}

// ping opens a pool on d and pings it (dsn.Open, whose errors show no
// password): a server that did not answer is a failure (exit 1), anything
// else the DSN's fault (exit 2).
func ping(ctx context.Context, d dsn.DSN) (*sql.DB, error) {
	db, err := dsn.Open(ctx, d)
	switch {
	case errors.Is(err, dsn.ErrConnect):
		return nil, fmt.Errorf("connect: %w", err)
	case err != nil:
		return nil, usagef("--dsn: %v", err)
	}
	return db, nil
}

// dsnRequired is the error of a pg command given no --dsn.
func dsnRequired() error {
	return usagef("--dsn is required (or set %s), e.g. postgres://user@host:5432/db", envPGDSN)
}

// openMigrator opens the Migrator of a pg command on the server --dsn
// names (migrate.Open: the options, then the DSN, checked before anything
// connects), its errors in the CLI's words: bad input is a usageError
// naming its flag (exit 2), a server that did not answer a failure.
func openMigrator(ctx context.Context, s string, o pgfunc.Options, mo migrate.Options) (*migrate.Migrator, error) {
	m, err := migrate.Open(ctx, "--dsn", s, o, mo)
	return m, openErrorText(err)
}

// openErrorText words an error of migrate.Open (which shows no password)
// for the CLI: bad input is a usageError naming its flag (exit 2), a
// server that did not answer a failure (exit 1).
func openErrorText(err error) error {
	var ce *dsn.CheckError
	switch {
	case errors.Is(err, dsn.ErrEmpty):
		return dsnRequired()
	case errors.Is(err, pgfunc.ErrLayoutEnds):
		return flagUsagef("epoch", "%v (--end-margin)", err)
	case errors.As(err, &ce):
		return &usageError{msg: err.Error()}
	case errors.Is(err, dsn.ErrConnect):
		return fmt.Errorf("connect: %w", err)
	}
	return err
}

// openAnyDSN opens a connection pool for the commands that take a
// PostgreSQL DSN or a go-sql-driver/mysql DSN, as allowed says, pings it,
// and tells which dialect the server speaks (dsn.Connect). flagName names
// the flag in errors; no error shows the password.
func openAnyDSN(ctx context.Context, flagName, s string, allowed dsn.Form) (*sql.DB, dialect.Dialect, error) {
	d, err := parseDSN(flagName, s, allowed)
	if err != nil {
		return nil, "", err
	}
	db, found, err := dsn.Connect(ctx, d)
	switch {
	case errors.Is(err, dsn.ErrConnect):
		return nil, "", fmt.Errorf("connect: %w", err)
	case err != nil:
		return nil, "", err
	}
	return db, found, nil
}

// redactedError is an error reworded for the CLI (a Go name given its
// flag's); errors.Is and errors.As still see the error it wraps.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// checkMapDSNs makes env scrub the passwords of a shard map's DSNs and
// refuses, before anything connects, a DSN that pgx would read otherwise
// than the user meant.
func checkMapDSNs(env *cliEnv, m *fleet.Map) error {
	for _, s := range m.Servers {
		env.secrets.Add(s.DSN)
	}
	for _, s := range m.Servers {
		if _, err := parseDSN("--map: server "+s.Name+": dsn", s.DSN, dsn.Postgres); err != nil {
			return err
		}
	}
	return nil
}
