package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pressly/goose/v3/database"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// upSection is the Up part of a rendered migration: what goose runs as
// one statement.
func upSection(text []byte) (string, error) {
	_, up, ok := bytes.Cut(text, []byte("-- +goose Up\n"))
	if ok {
		up, _, ok = bytes.Cut(up, []byte("-- +goose Down\n"))
	}
	if !ok {
		return "", errors.New("rendered migration lacks its goose Up and Down sections")
	}
	return string(up), nil
}

// switchGenerator replaces sh's next_id() in one transaction: it waits for
// the old body's draws to end and holds off new ones, reads everything
// again under that lock, retires the old sequence, runs the generator's
// migration with the counter started past every ID in the keys and the clock,
// grants the roles that drew from the old body, and records the migration
// in the schema's goose history.
func (m *run) switchGenerator(ctx context.Context, sh pgfunc.Shard, ao Options, seen Adoption) (Adoption, error) {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return seen, fmt.Errorf("adopt: %w", err)
	}
	defer tx.Rollback()
	seqData := struct{ Name, Lit string }{seen.Sequence, sqlt.Literal(seen.Sequence)}
	exec := func(name string, data any, args ...any) error {
		q, err := templates.Query(name, data)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("adopt (%s): %w", strings.TrimPrefix(name, "adopt_"), err)
		}
		return nil
	}
	if err := exec("adopt_lock_timeout", ao.LockTimeout.Milliseconds()); err != nil {
		return seen, err
	}
	if err := exec("adopt_goose_lock", nil, migrate.LockID(sh.Schema)); err != nil {
		return seen, err
	}
	var locked []string
	if seen.Kind == AdoptPublished {
		if err := exec("adopt_lock", seqData); err != nil {
			return seen, fmt.Errorf("%w (transactions that drew from the old next_id() held its sequence for longer than %s)", err, ao.LockTimeout)
		}
	}
	for _, k := range seen.Keys {
		if seen.Kind == AdoptSerial && !slices.Contains(locked, k.Table) {
			if err := exec("adopt_serial_lock", k); err != nil {
				return seen, fmt.Errorf("%w (transactions writing %s held it for longer than %s)", err, k.Table, ao.LockTimeout)
			}
			locked = append(locked, k.Table)
		}
	}
	a, _, o, err := m.inspect(ctx, tx, sh, ao)
	if err != nil {
		return seen, err
	}
	if a.Kind != seen.Kind || a.Sequence != seen.Sequence || !sameLayout(a.Layout, seen.Layout) || !sameKeys(a.Keys, seen.Keys) {
		return seen, fmt.Errorf("%w: %s's generator or keys changed while adopt read them", ErrCannotInfer, sh.Schema)
	}
	switch a.Kind {
	case AdoptPublished:
		if a.Roles, err = drawers(ctx, tx, a.Sequence); err != nil {
			return a, err
		}
		if !ao.keepOld {
			if err := exec("adopt_retire", seqData); err != nil {
				return a, err
			}
		}
	case AdoptSerial:
		for _, k := range a.Keys {
			roles, err := drawers(ctx, tx, k.Sequence)
			if err != nil {
				return a, err
			}
			for _, r := range roles {
				if !slices.Contains(a.Roles, r) {
					a.Roles = append(a.Roles, r)
				}
			}
		}
	}
	text, err := pgfunc.Render(sh, o)
	if err != nil {
		return a, err
	}
	up, err := upSection(text)
	if err != nil {
		return a, err
	}
	if _, err := tx.ExecContext(ctx, up); err != nil {
		return a, fmt.Errorf("adopt (migration): %w", pgfunc.MigrationError(err))
	}
	q := sqlt.Ident(sh.Schema)
	if err := exec("adopt_counter", struct{ Name, Lit string }{q + ".next_id_seq", sqlt.Literal(q + ".next_id_seq")}, a.Start); err != nil {
		return a, err
	}
	if a.Kind == AdoptSerial {
		for _, k := range a.Keys {
			data := struct{ Table, Column, Schema string }{k.Table, sqlt.Ident(k.Column), q}
			if err := exec("adopt_serial_default", data); err != nil {
				return a, err
			}
			capData := struct {
				Name, Lit string
				Cap       int64
			}{k.Sequence, sqlt.Literal(k.Sequence), a.FirstID - 1}
			if err := exec("adopt_serial_cap", capData); err != nil {
				return a, err
			}
		}
	}
	for _, role := range a.Roles {
		if err := privilege.CheckRole(role); err != nil {
			return a, fmt.Errorf("adopt: role %q drew from the old body and cannot be granted: %w", role, err)
		}
		grant, err := pgfunc.RenderGrant(sh, sqlt.Ident(role), pgfunc.ModeUnique, a.Layout.RouteBits > 0)
		if err != nil {
			return a, err
		}
		if _, err := tx.ExecContext(ctx, grant); err != nil {
			return a, fmt.Errorf("adopt (grant %s): %w", role, err)
		}
	}
	store, err := database.NewStore(database.DialectPostgres, sh.Schema+".goose_db_version")
	if err != nil {
		return a, err
	}
	if err := store.CreateVersionTable(ctx, tx); err != nil {
		return a, fmt.Errorf("adopt (goose history): %w", err)
	}
	for _, v := range []int64{0, 1} {
		if err := store.Insert(ctx, tx, database.InsertRequest{Version: v}); err != nil {
			return a, fmt.Errorf("adopt (goose history): %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return a, fmt.Errorf("adopt: %w", err)
	}
	return a, nil
}

// drawers lists the roles granted drawing from the old body's sequence.
func drawers(ctx context.Context, q querier, seq string) ([]string, error) {
	out, err := texts(ctx, q, "adopt_drawers", seq)
	if err != nil {
		return nil, fmt.Errorf("read the roles drawing from %s: %w", seq, err)
	}
	return out, nil
}
