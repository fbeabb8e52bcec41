package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/internal/batch"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// Down removes the generator from each shard's schema (goose down by one).
// PostgreSQL refuses, and the shard reports ErrInUse naming what depends
// on it, while a table still uses next_id() as a DEFAULT. The schema, its tables and its goose history
// table stay, and so does the counter, renamed next_id_retired_seq with
// its description: the next Up carries on from it and refuses other
// options, so that no later generator hands out its IDs again.
//
// A schema that does not exist, or holds no applied generator, is reported
// with Applied false and a Note saying so; nothing is created in it. A
// generator that the schema's own history does not record is
// ErrHistoryElsewhere; one rendered with other options than the
// Migrator's is ErrGeneratorMismatch (Down's check that the clock has
// passed the counter reads the counter by the layout). Any failure to
// find out (a dead connection, a cancelled context) is an error.
//
// On a Citus coordinator Down takes each generator off every node and
// keeps every node's counter for the next Up (citus.Down, docs/citus.md),
// with the options the schema's next_id_meta() records.
func (m *Migrator) Down(ctx context.Context, shards []pgfunc.Shard, each func(pgfunc.Result)) ([]pgfunc.Result, error) {
	return m.down(ctx, shards, each, func(sh pgfunc.Shard, in inventory.Installed) (pgfunc.Options, error) {
		// Down checks the counter against the clock with the layout it is
		// given: another layout, epoch or mode would let a counter far
		// ahead of the clock pass, and the next up repeat its IDs.
		if !in.Meta.SameGenerator(metaOf(sh, m.opts)) {
			return m.opts, fmt.Errorf("down: %w (give down the generator's own layout, epoch and mode, as pg status shows them)", inventory.Mismatch(sh, in, m.opts))
		}
		return m.opts, nil
	})
}

// Asked says which of a Migrator's options its caller gave explicitly
// (on a command line, say) rather than left to their defaults.
type Asked struct {
	// Layout: the layout's time unit and field widths.
	Layout bool
	// Epoch: the layout's epoch.
	Epoch bool
	// Mode: the next_id() body.
	Mode bool
}

// DownInstalled is Down with each schema's own generator: the layout,
// epoch and mode its counter's comment records, so that the caller need
// not repeat them. It refuses (ErrGeneratorMismatch) a generator that
// differs from the Migrator's options in one that asked names: a caller
// who names a layout expects to remove that one. A schema whose history
// records the migration but holds no generator is taken down with the
// Migrator's options.
func (m *Migrator) DownInstalled(ctx context.Context, shards []pgfunc.Shard, asked Asked, each func(pgfunc.Result)) ([]pgfunc.Result, error) {
	return m.down(ctx, shards, each, func(sh pgfunc.Shard, in inventory.Installed) (pgfunc.Options, error) {
		have, want := in.Meta, metaOf(sh, m.opts)
		if have.Shard != sh.ID ||
			asked.Layout && (have.UnitMS != want.UnitMS || have.TimeBits != want.TimeBits || have.ShardBits != want.ShardBits || have.SeqBits != want.SeqBits) ||
			asked.Epoch && have.EpochMS != want.EpochMS || asked.Mode && have.Mode != want.Mode {
			return m.opts, fmt.Errorf("down: %w (give down the generator's own options, as pg status shows them, or none)", inventory.Mismatch(sh, in, m.opts))
		}
		o := m.opts
		o.Layout, o.Mode = have.LayoutOf(), have.Mode
		o.Lead = pgfunc.DefaultLead // the Down does not use it, and pgfunc.DefaultLead suits every layout
		return o, nil
	})
}

// down is Down with the options optsFor gives for a schema holding in.
func (m *Migrator) down(ctx context.Context, shards []pgfunc.Shard, each func(pgfunc.Result), optsFor func(pgfunc.Shard, inventory.Installed) (pgfunc.Options, error)) ([]pgfunc.Result, error) {
	// Citus (package citus): a coordinator takes the generator off every
	// node, keeping every node's counter.
	if res, ok, err := citus.Down(ctx, m.db, shards, nil); ok {
		if err != nil && !pgfunc.IsPartial(err) {
			return res, err
		}
		for i, r := range res {
			res[i].Err = inUse(r.Shard, r.Err)
			if each != nil {
				each(res[i])
			}
		}
		return pgfunc.Partial(res)
	}
	hist, histErr := m.histories(ctx, batch.Schemas(shards))
	var found inventory.Index
	if histErr == nil {
		var installed []inventory.Installed
		installed, histErr = m.srv.Discover(ctx)
		found = inventory.NewIndex(installed)
	}
	return pgfunc.Partial(batch.Run(m.parallel, shards, each, func(sh pgfunc.Shard) (bool, string, error) {
		if histErr != nil {
			return false, "", histErr
		}
		switch h := hist[sh.Schema]; {
		case !h.schema:
			return false, "no schema", nil
		case !h.table || h.version == 0:
			if _, ok := found.Generator(sh.Schema); ok {
				return false, "", fmt.Errorf("%w: %s holds a generator that %s.goose_db_version does not record (applied by goose from a pg gen directory?): remove it with goose down over that directory", ErrHistoryElsewhere, sh.Schema, sh.Schema)
			}
			return false, "no generator applied", nil
		}
		for _, in := range found.Unreadable() {
			if in.Schema == sh.Schema { // the Down reads the counter by the generator's own layout
				return false, "", inventory.UnreadableError([]inventory.Installed{in})
			}
		}
		o := m.opts
		if in, ok := found.Generator(sh.Schema); ok {
			var err error
			if o, err = optsFor(sh, in); err != nil {
				return false, "", err
			}
		}
		p, err := m.Provider(sh, o)
		if err != nil {
			return false, "", err
		}
		_, err = p.Down(ctx)
		err = inUse(sh, err)
		return err == nil, "", err
	}))
}

// inUse is err, a down's of sh, wrapped in ErrInUse, naming what depends
// on the generator, when PostgreSQL refused the drop for it.
func inUse(sh pgfunc.Shard, err error) error {
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "2BP01" { // dependent_objects_still_exist
		return fmt.Errorf("%w: %s: %s; change or drop what depends on it (ALTER TABLE … ALTER COLUMN … DROP DEFAULT, DROP VIEW …), then down again",
			ErrInUse, sh.Schema, strings.Join(strings.Fields(strings.TrimSpace(pe.Detail)), " "))
	}
	return err
}
