package adopt

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// inspectSerial reads sh's bigserial-like keys, for a schema without
// next_id(): the layout is ao.Layout's, and the new generator's first ID
// must lie above every key stored and every value their sequences handed
// out, compared as int64.
func (m *run) inspectSerial(ctx context.Context, q querier, sh pgfunc.Shard, ao Options) (Adoption, publishedBody, pgfunc.Options, error) {
	a := Adoption{Result: pgfunc.Result{Shard: sh}}
	fail := func(err error) (Adoption, publishedBody, pgfunc.Options, error) {
		return a, publishedBody{}, pgfunc.Options{}, err
	}
	sqlText, err := templates.Query("adopt_serial_keys", nil)
	if err != nil {
		return fail(err)
	}
	rows, err := q.QueryContext(ctx, sqlText, sh.Schema)
	if err != nil {
		return fail(fmt.Errorf("read the keys of schema %s: %w", sh.Schema, err))
	}
	type col struct {
		schema, table, column, seqSchema, seq string
		bigint                                bool
		seqMax                                int64
	}
	var cols []col
	for rows.Next() {
		var c col
		if err := rows.Scan(&c.schema, &c.table, &c.column, &c.bigint, &c.seqSchema, &c.seq, &c.seqMax); err != nil {
			rows.Close()
			return fail(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if len(cols) == 0 {
		return fail(fmt.Errorf("%w: the schema has no next_id() and no bigserial-like key (a single-column primary key whose DEFAULT is nextval()): nothing to adopt; pg up applies a new generator", ErrCannotInfer))
	}
	if ao.Layout == (shardid.Layout{}) {
		return fail(fmt.Errorf("%w: the schema's keys are bigserial-like (%s.%s defaults to nextval()), which says nothing of a layout: give the layout and epoch the new IDs should have (--layout, --epoch)",
			ErrCannotInfer, sqlt.Ident(cols[0].table), sqlt.Ident(cols[0].column)))
	}
	l := ao.Layout
	if err := pgfunc.CheckLayout(l); err != nil {
		return fail(err)
	}
	if err := l.CheckShard(sh.ID); err != nil {
		return fail(err)
	}
	a.Kind, a.Layout = AdoptSerial, l
	if taken, err := adoptTaken(ctx, q, sh); err != nil {
		return fail(err)
	} else if len(taken) > 0 {
		return fail(fmt.Errorf("%w: schema %s holds %s, a name shardid's generator takes", ErrCannotInfer, sh.Schema, strings.Join(taken, ", ")))
	}
	o := m.opts
	o.Layout, o.Mode = l, pgfunc.ModeUnique
	o = o.Checked()
	if a.Clock, err = serverClock(ctx, q, o.Clock()); err != nil {
		return fail(err)
	}
	nowTicks, err := l.Ticks(a.Clock)
	if err != nil {
		return fail(fmt.Errorf("%w: the server's clock %s: %v", ErrCannotInfer, a.Clock.Format(time.RFC3339Nano), err))
	}
	a.Start = (nowTicks + 1) << l.SeqBits
	if a.FirstID, err = l.ComposeTicks(nowTicks+1, sh.ID, 0); err != nil {
		return fail(fmt.Errorf("%w: %v", ErrCannotInfer, err))
	}
	for _, c := range cols {
		table := sqlt.Ident(c.schema) + "." + sqlt.Ident(c.table)
		k := AdoptKey{Table: table, Column: c.column, Sequence: sqlt.Ident(c.seqSchema) + "." + sqlt.Ident(c.seq)}
		if !c.bigint {
			return fail(fmt.Errorf("%w: %s.%s is not a bigint: a 64-bit ID does not fit it (ALTER TABLE ... ALTER COLUMN ... TYPE bigint first)", ErrCannotInfer, table, sqlt.Ident(c.column)))
		}
		v, ok, err := highestKey(ctx, q, table, sqlt.Ident(c.column))
		if err != nil {
			return fail(err)
		}
		k.Empty, k.Max = !ok, v
		lastQ, err := templates.Query("adopt_serial_last", struct{ Name string }{k.Sequence})
		if err != nil {
			return fail(err)
		}
		if err := q.QueryRowContext(ctx, lastQ).Scan(&k.Last); err != nil {
			return fail(fmt.Errorf("last value of %s: %w", k.Sequence, err))
		}
		switch {
		case !k.Empty && k.Max >= a.FirstID:
			return fail(fmt.Errorf("%w: the highest key of %s.%s, %d, is not below the first ID layout %s would hand out now, %d: new IDs could repeat stored keys",
				ErrCannotInfer, table, sqlt.Ident(c.column), k.Max, l, a.FirstID))
		case k.Last >= a.FirstID:
			return fail(fmt.Errorf("%w: %s has handed out values up to %d, not below the first ID layout %s would hand out now, %d",
				ErrCannotInfer, k.Sequence, k.Last, l, a.FirstID))
		}
		a.Keys = append(a.Keys, k)
	}
	return a, publishedBody{}, o, nil
}

// sameKeys reports whether two reads found the same key columns.
func sameKeys(a, b []AdoptKey) bool {
	return slices.EqualFunc(a, b, func(x, y AdoptKey) bool {
		return x.Table == y.Table && x.Column == y.Column && x.Sequence == y.Sequence
	})
}
