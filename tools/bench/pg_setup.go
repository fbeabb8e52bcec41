package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/segment"
)

// pgBody is one expression measured for cost and duplicates, with its
// statements rendered.
type pgBody struct {
	name             string
	unique           bool
	expr, cost, dups string
}

// newBody renders the expression of template tmpl and the statements that
// measure it.
func newBody(name, tmpl string, data any, unique bool) (pgBody, error) {
	b := pgBody{name: name, unique: unique}
	var err error
	if b.expr, err = render(tmpl, data); err != nil {
		return b, err
	}
	if b.cost, err = render("cost", b.expr); err != nil {
		return b, err
	}
	b.dups, err = render("duplicates", b.expr)
	return b, err
}

// idsChunk is how many IDs the next_ids() body reserves at once.
const idsChunk = 100_000

// newIDsBody renders the statements that measure next_ids() in schema.
func newIDsBody(schema string) (pgBody, error) {
	b := pgBody{name: "unique-ids", unique: true}
	data := struct {
		Schema string
		Chunk  int
	}{schema, idsChunk}
	var err error
	if b.cost, err = render("cost_ids", data); err != nil {
		return b, err
	}
	b.expr = b.cost
	b.dups, err = render("duplicates_ids", data)
	return b, err
}

// pgExpr is the data of the expr_* templates: quoted schemas and the
// native sequence's name as a literal.
type pgExpr struct{ Base, Schema, Seq string }

// pgKey is one INSERT table and what measuring it needs.
type pgKey struct {
	name    string
	unique  bool
	table   string // quoted schema.table
	row     string // the single-row INSERT, $1 its value
	explain string // EXPLAIN (SUMMARY ON) of the single-row INSERT
	jumps   string // the jumps-done counter of its generator ("": none)
}

// newKey renders the statements of table schema.name.
func newKey(key, schema, table string, unique bool) (pgKey, error) {
	k := pgKey{name: key, unique: unique, table: pgx.Identifier{schema, table}.Sanitize()}
	var err error
	if k.row, err = render("insert_row", k.table); err != nil {
		return k, err
	}
	k.explain, err = render("explain_row", k.table)
	return k, err
}

// seqLiteral is the native sequence's name as a regclass literal.
func seqLiteral() string {
	return "'" + strings.ReplaceAll(pgx.Identifier{PGSchema, "seq"}.Sanitize(), "'", "''") + "'"
}

// createPGSchemas creates PGSchemas with plain CREATE SCHEMA and returns
// those it created. When some exist already it goes on to the end, so
// that the error (ErrExists) names every one and gives one statement
// that drops them all; it stops at any other failure.
func createPGSchemas(ctx context.Context, db *sql.DB) ([]string, error) {
	var created, existing []string
	for _, name := range PGSchemas() {
		if err := exec(ctx, db, "create_schema", pgx.Identifier{name}.Sanitize()); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42P06" { // duplicate_schema
				existing = append(existing, name)
				continue
			}
			return created, fmt.Errorf("create schema %s: %w", name, err)
		}
		created = append(created, name)
	}
	if len(existing) > 0 {
		them := strings.Join(existing, ", ")
		return created, fmt.Errorf("%w: schemas %s; shardid bench works only in schemas it creates and drops; if an interrupted run left them, drop them all (DROP SCHEMA %s CASCADE)", ErrExists, them, them)
	}
	return created, nil
}

// dropPGSchemas drops the schemas the run created, even when ctx is
// cancelled.
func dropPGSchemas(ctx context.Context, db *sql.DB, created []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for i := len(created) - 1; i >= 0; i-- {
		_ = exec(ctx, db, "drop_schema", pgx.Identifier{created[i]}.Sanitize())
	}
}

// setupPG creates the bench's tables and functions, applies a generator
// per mode with migrate.Migrator, on the highest shard ids no generator in
// the database holds, and the peers' tables, and returns what to measure,
// the baselines first.
func setupPG(ctx context.Context, db *sql.DB, peers []peerTable) ([]pgBody, []pgKey, error) {
	base := pgx.Identifier{PGSchema}.Sanitize()
	if err := exec(ctx, db, "base", pgExpr{Base: base}); err != nil {
		return nil, nil, fmt.Errorf("create the bench's tables: %w", err)
	}
	ids, err := freeShards(ctx, db, len(pgModes))
	if err != nil {
		return nil, nil, err
	}
	for i, m := range pgModes {
		sh := pgfunc.Shard{Schema: m.schema, ID: ids[i]}
		// Three modes of one layout on distinct shard ids: their IDs never
		// meet, which AllowMixed has Up show before it applies each. The
		// bench's generators feed its own tables only and are dropped at
		// its end: no ID of theirs leaves this database, so its database
		// is all they need to look after.
		mig, err := migrate.New(db, pgfunc.Options{Mode: m.mode}, migrate.Options{Parallel: 1, AllowMixed: true, OwnDatabaseOnly: true})
		if err != nil {
			return nil, nil, err
		}
		if r, _ := mig.Up(ctx, []pgfunc.Shard{sh}, nil); r[0].Err != nil {
			return nil, nil, fmt.Errorf("apply next_id() %s to %s: %w", m.mode, m.schema, r[0].Err)
		}
		q := pgx.Identifier{m.schema}.Sanitize()
		if err := exec(ctx, db, "mode_table", q); err != nil {
			return nil, nil, fmt.Errorf("create %s.k: %w", m.schema, err)
		}
		if m.mode == pgfunc.ModeUnique {
			if err := exec(ctx, db, "bulk_table", q); err != nil {
				return nil, nil, fmt.Errorf("create %s.k_bulk: %w", m.schema, err)
			}
		}
		if m.mode == pgfunc.ModeClassic {
			// Instagram's body draws from the classic generator's sequence.
			text, err := pgfunc.RenderPublished(sh, pgfunc.Options{Mode: m.mode})
			if err != nil {
				return nil, nil, err
			}
			if _, err := db.ExecContext(ctx, string(text)); err != nil {
				return nil, nil, fmt.Errorf("create %s.next_id_published(): %w", m.schema, err)
			}
		}
	}
	mode := func(i int) pgExpr { return pgExpr{Schema: pgx.Identifier{pgModes[i].schema}.Sanitize()} }
	var bodies []pgBody
	for _, b := range []struct {
		name, tmpl string
		data       any
		unique     bool
	}{
		{"nextval", "expr_nextval", pgExpr{Seq: seqLiteral()}, true},
		{"unique", "expr_next_id", mode(0), true},
		{"unique-bulk", "expr_next_id_bulk", mode(0), true},
		{"classic", "expr_next_id", mode(1), false},
		{"classic-sql", "expr_next_id", mode(2), false},
		{"published", "expr_published", mode(1), false},
		{"uuid-v4", "expr_uuid_v4", pgExpr{}, true},
		{"uuid-v7", "expr_uuid_v7", pgExpr{Base: base}, true},
	} {
		body, err := newBody(b.name, b.tmpl, b.data, b.unique)
		if err != nil {
			return nil, nil, err
		}
		bodies = append(bodies, body)
		if b.name == "unique-bulk" {
			ids, err := newIDsBody(mode(0).Schema)
			if err != nil {
				return nil, nil, err
			}
			bodies = append(bodies, ids)
		}
	}
	var keys []pgKey
	for _, k := range []struct {
		name, schema, table string
		unique              bool
	}{
		{"bigserial", PGSchema, "k_bigserial", true},
		{"unique", pgModes[0].schema, "k", true},
		{"unique-bulk", pgModes[0].schema, "k_bulk", true},
		{"classic", pgModes[1].schema, "k", false},
		{"classic-sql", pgModes[2].schema, "k", false},
		{"uuid-v4", PGSchema, "k_uuid_v4", true},
		{"uuid-v7", PGSchema, "k_uuid_v7", true},
	} {
		key, err := newKey(k.name, k.schema, k.table, k.unique)
		if err != nil {
			return nil, nil, err
		}
		if k.schema == pgModes[0].schema {
			key.jumps = pgx.Identifier{k.schema, "next_id_jumps_done"}.Sanitize()
		}
		keys = append(keys, key)
	}
	for i, pt := range peers {
		pt.Base, pt.Table = base, fmt.Sprintf("k_peer_%d", i+1)
		if err := exec(ctx, db, "peer_table", pt); err != nil {
			return nil, nil, fmt.Errorf("--peer %s: a table keyed by %s %s: %w", pt.peer.Name, pt.Type, pt.peer.Expr, err)
		}
		key, err := newKey(peerKey(pt.peer), PGSchema, pt.Table, false)
		if err != nil {
			return nil, nil, err
		}
		if key.jumps, err = peerJumps(ctx, db, pt.peer); err != nil {
			return nil, nil, err
		}
		keys = append(keys, key)
		body, err := newBody(peerKey(pt.peer), "expr_peer", pt.peer.Expr, false)
		if err != nil {
			return nil, nil, err
		}
		bodies = append(bodies, body)
	}
	return bodies, keys, nil
}

// freeShards returns the n highest shard ids of the default layout that no
// generator in the database holds (nor a counter a down kept), so
// migrate.Migrator accepts them.
func freeShards(ctx context.Context, db *sql.DB, n int) ([]int64, error) {
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{Parallel: 1, OwnDatabaseOnly: true})
	if err != nil {
		return nil, err
	}
	c, err := m.Server().Census(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the generators in the database: %w", err)
	}
	used := map[int64]bool{}
	for _, in := range append(c.Generators, c.Retired...) {
		used[in.Meta.Shard] = true
	}
	var ids []int64
	for id := shardid.Instagram().MaxShard(); id >= 0 && len(ids) < n; id-- {
		if !used[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) < n {
		return nil, fmt.Errorf("every shard id of the %s layout is held by a generator in this database", shardid.Instagram().Name)
	}
	return ids, nil
}

// pgMethods sets up the segment allocation table and the lease table in
// the bench's schema and returns the ways a client gets IDs: nextval()
// first, then next_id() in mode unique (bodies[0] and [1]), segments and
// leased generators.
func pgMethods(ctx context.Context, db *sql.DB, s Settings, bodies []pgBody) ([]Method, error) {
	segTable, leaseTable := PGSchema+".segments", PGSchema+".worker_lease"
	if err := SegmentTag(ctx, db, dialect.Postgres, segTable, "bench"); err != nil {
		return nil, fmt.Errorf("segment allocation table: %w", err)
	}
	if _, err := lease.Up(ctx, db, dialect.Postgres, leaseTable); err != nil {
		return nil, fmt.Errorf("lease table: %w", err)
	}
	nextval, err := render("draw", bodies[0].expr)
	if err != nil {
		return nil, err
	}
	nextID, err := render("draw", bodies[1].expr)
	if err != nil {
		return nil, err
	}
	return []Method{
		{Name: "nextval", IDs: s.IDs, New: QueryID(db, nextval)},
		{Name: "next_id", IDs: s.IDs, New: QueryID(db, nextID)},
		// The bench's IDs are thrown away, so a server that may lose
		// acknowledged commits (synchronous_commit = off) is no reason to
		// refuse them.
		{Name: "segments", IDs: s.IDs * InMemoryFactor, New: SegmentDraws(db, segment.Settings{
			Tag: "bench", Table: segTable, Dialect: dialect.Postgres, AllowLossyCommit: true})},
		{Name: "leased", IDs: s.IDs * InMemoryFactor, New: LeasedDraws(db, lease.Settings{
			Table: leaseTable, Dialect: dialect.Postgres}, "shardid-bench")},
	}, nil
}
