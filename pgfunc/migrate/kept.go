package migrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// KeptCounters checks the counters of shard sh.ID that downs kept
// anywhere on the server but in sh's own schema (the migration compares
// that one, whatever shard id it held): one made with other options than
// want is refused, since a generator made with these could hand out its
// IDs again (a later epoch starts below them). It returns those in other
// databases: Up brings the highest into sh's schema for the migration to
// carry on from, as the migration itself does with those of its own
// database.
func KeptCounters(sh pgfunc.Shard, want pgfunc.Meta, s *inventory.Inventory) ([]inventory.Installed, error) {
	var out []inventory.Installed
	for _, in := range s.All() {
		if !in.Retired || in.Meta.Shard != sh.ID || in.Database == "" && in.Schema == sh.Schema {
			continue
		}
		if !in.Meta.SameGenerator(want) {
			return nil, fmt.Errorf("%w: %s held shard %d until pg down, made with other options (%s); one made with these (%s) could hand out its IDs again: up with the options it had, or drop that next_id_retired_seq once none of its IDs is in use anywhere",
				pgfunc.ErrGeneratorMismatch, in.Where(), sh.ID, inventory.DescribeKind(in.Meta), inventory.DescribeKind(want))
		}
		if in.Database != "" {
			out = append(out, in)
		}
	}
	return out, nil
}

// carryOn brings the counters kept in other databases into sh's schema as
// its next_id_retired_seq (made there unless the schema has one), moved
// forward to the highest of them, in one transaction: the migration then
// carries on from it and drops it. sh's schema exists.
func (m *Migrator) carryOn(ctx context.Context, sh pgfunc.Shard, kept []inventory.Installed, connect func(context.Context, string) (*sql.DB, error)) error {
	var top int64
	var topCalled, found bool
	for _, in := range kept {
		last, called, err := position(ctx, in, connect)
		if err != nil {
			return err
		}
		if !found || last > top || last == top && called && !topCalled {
			top, topCalled, found = last, called, true
		}
	}
	meta, err := json.Marshal(kept[0].Meta)
	if err != nil {
		return err
	}
	data := struct{ Schema, Reg, Comment string }{sqlt.Ident(sh.Schema), sqlt.Literal(sqlt.Ident(sh.Schema) + ".next_id_retired_seq"), sqlt.Literal(string(meta))}
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("bring the kept counter of shard %d here: %w", sh.ID, err)
	}
	defer tx.Rollback()
	var existed bool
	if q, err := sqlt.Query("table_exists", nil); err != nil {
		return err
	} else if err := tx.QueryRowContext(ctx, q, sqlt.Ident(sh.Schema)+".next_id_retired_seq").Scan(&existed); err != nil {
		return fmt.Errorf("bring the kept counter of shard %d here: %w", sh.ID, err)
	}
	steps := []string{"adopt_retired", "advance_retired"}
	if !existed {
		steps = []string{"adopt_retired", "comment_retired", "advance_retired"}
	}
	for _, name := range steps {
		q, err := sqlt.Query(name, data)
		if err != nil {
			return err
		}
		args := []any{}
		if name == "advance_retired" {
			args = []any{top, topCalled}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("bring the kept counter of shard %d here (%s): %w", sh.ID, name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("bring the kept counter of shard %d here: %w", sh.ID, err)
	}
	return nil
}

// position reads where a kept counter in another database stands.
func position(ctx context.Context, in inventory.Installed, connect func(context.Context, string) (*sql.DB, error)) (int64, bool, error) {
	db, err := connect(ctx, in.Database)
	if err != nil {
		return 0, false, fmt.Errorf("database %s: %w", in.Database, err)
	}
	defer db.Close()
	if err := pgfunc.CheckSchema(in.Schema); err != nil {
		return 0, false, fmt.Errorf("%s: %w", in.Where(), err)
	}
	q, err := sqlt.Query("retired_position", sqlt.Ident(in.Schema))
	if err != nil {
		return 0, false, err
	}
	var last int64
	var called bool
	if err := db.QueryRowContext(ctx, q).Scan(&last, &called); err != nil {
		return 0, false, fmt.Errorf("read %s: %w", in.Where(), err)
	}
	return last, called, nil
}

// dropKept drops the counters kept in other databases once the migration
// carried on from them, so that no later up carries on from a stale one.
func dropKept(ctx context.Context, kept []inventory.Installed, connect func(context.Context, string) (*sql.DB, error)) error {
	var errs []error
	for _, in := range kept {
		db, err := connect(ctx, in.Database)
		if err == nil {
			var q string
			if q, err = sqlt.Query("drop_retired", sqlt.Ident(in.Schema)); err == nil {
				_, err = db.ExecContext(ctx, q)
			}
			db.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", in.Where(), err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("applied, carrying on from the counter kept elsewhere, but could not drop it (drop it by hand, or a later up there would carry on from it again): %w", errors.Join(errs...))
	}
	return nil
}
