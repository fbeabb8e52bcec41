// Package gooseup applies a rendered set of goose migrations (file name →
// content) to a database through a goose Provider with a version table of
// its own, the way the segment allocator's and the ticket servers'
// migrations are applied: each purpose keeps its own history, so it never
// mixes with another goose history in the same database.
package gooseup

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"testing/fstest"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/shardid/shardid/dialect"
)

// Up applies files to db, recording them in version table history
// (unquoted, [schema.]name), and returns the names of the files it ran
// (none when everything was already applied). On PostgreSQL the run holds
// a session advisory lock derived from history, so concurrent runs for
// one purpose wait for each other and other purposes do not wait.
func Up(ctx context.Context, db *sql.DB, d dialect.Dialect, history string, files map[string][]byte) ([]string, error) {
	p, err := provider(db, d, history, files)
	if err != nil {
		return nil, err
	}
	res, err := p.Up(ctx)
	var ran []string
	for _, r := range res {
		ran = append(ran, r.Source.Path)
	}
	if err != nil {
		return ran, fmt.Errorf("goose up: %w", err)
	}
	return ran, nil
}

func provider(db *sql.DB, d dialect.Dialect, history string, files map[string][]byte) (*goose.Provider, error) {
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: text, Mode: 0o644}
	}
	opts := []goose.ProviderOption{goose.WithTableName(history), goose.WithDisableGlobalRegistry(true)}
	var gd goose.Dialect
	switch d {
	case dialect.Postgres:
		gd = goose.DialectPostgres
		h := fnv.New64a()
		h.Write([]byte("shardid:" + history))
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(int64(h.Sum64() &^ (1 << 63))))
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	case dialect.MySQL:
		gd = goose.DialectMySQL
	case dialect.TiDB:
		gd = goose.DialectTiDB
	default:
		return nil, fmt.Errorf("%w %q", dialect.ErrUnknown, d)
	}
	p, err := goose.NewProvider(gd, db, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("goose provider: %w", err)
	}
	return p, nil
}
