// Package gooseup is the one place shardid builds goose Providers
// (NewProvider, over rendered files served by Files) and writes goose
// migration directories (Write).
//
// Up applies a rendered set of goose migrations (file name → content) to a
// database through a Provider with a version table of its own, the way the
// segment allocator's, the ticket servers' and the lease table's
// migrations are applied: each purpose keeps its own history, so it never
// mixes with another goose history in the same database.
package gooseup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/shardid/shardid/dialect"
)

// Up applies files to db, recording them in version table history
// (unquoted, [schema.]name), and returns the names of the files it ran
// (none when everything was already applied). On PostgreSQL the run holds
// a session advisory lock derived from history, so concurrent runs for
// one purpose wait for each other and other purposes do not wait.
func Up(ctx context.Context, db *sql.DB, d dialect.Dialect, history string, files map[string][]byte) ([]string, error) {
	p, err := NewProvider(db, d, files, Options{History: history})
	switch {
	case errors.Is(err, dialect.ErrUnknown):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("goose provider: %w", err)
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
