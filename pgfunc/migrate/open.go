package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc"
)

// ErrInvalidLockTimeout is returned by Options.Validate (and so by New
// and Open) when Options.LockTimeout is negative.
var ErrInvalidLockTimeout = fmt.Errorf("invalid lock timeout")

// Validate checks mo as New would, and o (pgfunc.Options.Validate); with
// mo.CheckEnd it also refuses a layout that Up would refuse for its end
// (pgfunc.CheckEnd with mo.EndMargin, an error wrapping
// pgfunc.ErrLayoutEnds), so that a caller learns it before anything
// connects. It returns the errors of o's checks, ErrInvalidParallel,
// ErrInvalidLockTimeout and pgfunc.ErrLayoutEnds.
func (mo Options) Validate(o pgfunc.Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	switch {
	case mo.Parallel < 0 || mo.Parallel > MaxParallel:
		return fmt.Errorf("%w %d (allowed: 1-%d, or 0 for %d)", ErrInvalidParallel, mo.Parallel, MaxParallel, DefaultParallel)
	case mo.LockTimeout < 0:
		return fmt.Errorf("%w %s (allowed: more than 0, or 0 for the default)", ErrInvalidLockTimeout, mo.LockTimeout)
	case mo.CheckEnd:
		return pgfunc.CheckEnd(o.Normalized().Layout, mo.EndMargin, time.Now())
	}
	return nil
}

// Open is New over a pool of its own on the PostgreSQL server that
// source (a postgres:// URL or key=value words) names: it validates o and
// mo first (Options.Validate: a bad option, or with mo.CheckEnd a layout
// that ends too soon, is refused before anything connects), then checks
// source (its errors, *dsn.CheckError values, call it name, e.g.
// "--dsn"), connects and pings. Unless mo.Connect says otherwise the
// Migrator opens the server's other databases with source, as the same
// role. Close closes the pool. A server that did not answer the ping is
// an error matching dsn.ErrConnect; no error shows source's password.
func Open(ctx context.Context, name, source string, o pgfunc.Options, mo Options) (*Migrator, error) {
	if err := mo.Validate(o); err != nil {
		return nil, err
	}
	d, err := dsn.Check(name, source, dsn.Postgres)
	if err != nil {
		return nil, err
	}
	db, err := dsn.Open(ctx, d)
	if err != nil {
		return nil, err
	}
	if mo.Connect == nil && !mo.OwnDatabaseOnly {
		mo.Connect = func(ctx context.Context, database string) (*sql.DB, error) {
			return OpenDatabase(ctx, source, database)
		}
	}
	m, err := New(db, o, mo)
	if err != nil {
		db.Close()
		return nil, err
	}
	m.owned = true
	return m, nil
}

// OpenDatabase opens a pool on database (empty: the DSN's own) of the
// PostgreSQL server source names, as source's role, and pings it: what
// Open's Migrator uses as Options.Connect. Errors never show the
// password.
func OpenDatabase(ctx context.Context, source, database string) (*sql.DB, error) {
	cfg, err := dsn.PGConfig(source)
	if err != nil {
		return nil, dsn.Scrub(err, source)
	}
	if database != "" {
		cfg.Database = database
	}
	db, err := dsn.OpenPG(ctx, cfg)
	return db, dsn.Scrub(err, source)
}

// Close closes the pool Open opened; for a Migrator of New it does
// nothing (the pool is the caller's).
func (m *Migrator) Close() error {
	if !m.owned {
		return nil
	}
	return m.db.Close()
}
