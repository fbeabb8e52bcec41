package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/internal/batch"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// Status is one shard's state.
type Status struct {
	// Shard is the shard asked about (or found, see Migrator.Status).
	Shard pgfunc.Shard
	// Version is the goose version applied in the schema (0: none; -1:
	// the schema holds a history table the role may not read, having no
	// USAGE on the schema).
	Version int64
	// Installed is the generator found in the schema, if any.
	Installed *pgfunc.Meta
	// Matches is true when the installed generator is the one these
	// options render.
	Matches bool
	// Outdated is true when the installed generator was applied by an
	// older shardid (Installed.Outdated); it never Matches.
	Outdated bool
	// Upgradable is true when Up replaces the installed generator's body
	// in place (Installed.Upgradable).
	Upgradable bool
	// Elsewhere lists the other schemas on the server (in this database
	// or, unless Options.OwnDatabaseOnly, any other) whose
	// generator carries this shard id: copies that hand out the same IDs.
	Elsewhere []inventory.Installed
	// CounterRead is true when Status read the counter of the installed
	// generator (mode unique, drawn from at least once, and the role may
	// read it); Ahead is then how far the end of the tick of its last
	// value lay past the server's clock (zero or less: not ahead).
	CounterRead bool
	Ahead       time.Duration
	// Exhausted is true when Status found the generator at its layout's
	// end (mode unique, its counter read): the server's clock past the
	// end of the time field, or the counter at the last ID's value. Every
	// draw then raises "time field exhausted".
	Exhausted bool

	// Unreadable, when not empty, says why the schema's counter looks
	// like a generator's but carries no metadata shardid can read
	// (Installed.Unreadable): Shard.ID is then what its jump function's
	// name says (-1: nothing).
	Unreadable string

	// Retired lists the counters of this shard id that downs kept on the
	// server (in this schema or any other): an up of the shard id carries
	// on from them.
	Retired []inventory.Installed
}

// PastLead reports whether the counter stood further ahead of the clock
// than the generator's lead when Status read it: next_id() waits, then
// raises LeadExceededState, until the clock catches up. Draws never put
// it there; raw nextval calls on the counter do, and so does a restore or
// failover onto a server whose clock is behind the old one's. For a
// generator that records no lead (Installed.Outdated), any lead past
// DefaultLead counts.
func (s Status) PastLead() bool {
	if !s.CounterRead || s.Installed == nil {
		return false
	}
	lead := s.Installed.Lead()
	if lead == 0 {
		lead = pgfunc.DefaultLead
	}
	return s.Ahead > lead
}

// State names the shard's state as pg status --json reports it: "none"
// (no generator in the schema), "unreadable" (a counter beside a
// generator's objects whose metadata cannot be read), "upgradable" (Up
// replaces its body in place), "outdated", "differs" (from the options,
// when asked says they were named) or "ok".
func (s Status) State(asked bool) string {
	switch {
	case s.Unreadable != "":
		return "unreadable"
	case s.Installed == nil:
		return "none"
	case s.Upgradable:
		return "upgradable"
	case s.Outdated:
		return "outdated"
	case !s.Matches && asked:
		return "differs"
	}
	return "ok"
}

// StatusRow is a Status as `shardid pg status --json` writes it: one row
// of the document.
type StatusRow struct {
	Schema    string       `json:"schema"`
	Shard     int64        `json:"shard"`
	Version   int64        `json:"version"`
	Generator *pgfunc.Meta `json:"generator"` // null: none in the schema
	// State is State(asked).
	State string `json:"state"`
	// AheadMS is how far the counter stood past the clock when read,
	// when that is past the generator's lead (0 otherwise).
	AheadMS int64 `json:"ahead_ms,omitempty"`
	// AlsoIn lists other schemas ([database.]schema) whose generator
	// carries this shard id.
	AlsoIn []string `json:"also_in"`
}

// Row returns s as a StatusRow; asked is State's.
func (s Status) Row(asked bool) StatusRow {
	row := StatusRow{Schema: s.Shard.Schema, Shard: s.Shard.ID, Version: s.Version, Generator: s.Installed, State: s.State(asked), AlsoIn: []string{}}
	if s.PastLead() {
		row.AheadMS = s.Ahead.Milliseconds()
	}
	for _, e := range s.Elsewhere {
		row.AlsoIn = append(row.AlsoIn, strings.TrimPrefix(e.Database+"."+e.Schema, "."))
	}
	return row
}

// Versions returns the goose version applied in each schema (0: none,
// or no such schema; -1: a history table the role may not read),
// reading the catalog without creating anything.
func (m *Migrator) Versions(ctx context.Context, schemas []string) (map[string]int64, error) {
	hist, err := m.histories(ctx, schemas)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(hist))
	for name, h := range hist {
		out[name] = h.version
	}
	return out, nil
}

// versionsChunk is how many history tables one versions query reads.
const versionsChunk = 100 // planning a UNION ALL grows faster than its length: 100 tables 16 ms, 500 tables 350 ms

// historyTable names one schema's goose history table for the versions
// query: a string literal and a quoted identifier.
type historyTable struct{ Literal, Ident string }

// readVersions reads the latest goose version of each table into out.
func (m *Migrator) readVersions(ctx context.Context, tables []historyTable, out map[string]history) error {
	q, err := sqlt.Query("versions", tables)
	if err != nil {
		return err
	}
	rows, err := m.db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read goose versions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v sql.NullInt64
		if err := rows.Scan(&name, &v); err != nil {
			return fmt.Errorf("read goose versions: %w", err)
		}
		h := out[name]
		h.version = v.Int64
		out[name] = h
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read goose versions: %w", err)
	}
	return nil
}

// history is what the catalog says about one schema's goose history.
type history struct {
	schema  bool  // the schema exists
	table   bool  // it holds goose_db_version
	version int64 // the latest version applied (0: none; -1: the table could not be read)
}

// histories reads, for each schema, whether it exists, whether it holds a
// goose history table and the latest version applied: one catalog query
// and one query over the history tables that exist. Unlike goose's own
// GetDBVersion it creates nothing and takes no lock; every failure is an
// error, never "nothing applied".
func (m *Migrator) histories(ctx context.Context, schemas []string) (map[string]history, error) {
	q, err := sqlt.Query("histories", nil)
	if err != nil {
		return nil, err
	}
	rows, err := m.db.QueryContext(ctx, q, schemas)
	if err != nil {
		return nil, fmt.Errorf("read goose histories: %w", err)
	}
	out := make(map[string]history, len(schemas))
	var tables []historyTable
	for rows.Next() {
		var name string
		var h history
		var usable bool
		if err := rows.Scan(&name, &h.schema, &h.table, &usable); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read goose histories: %w", err)
		}
		if h.table && !usable {
			h.version = -1 // no USAGE on the schema: its history cannot be read
		}
		out[name] = h
		if h.table && usable {
			if err := pgfunc.CheckSchema(name); err != nil {
				rows.Close()
				return nil, err
			}
			tables = append(tables, historyTable{Literal: sqlt.Literal(name), Ident: sqlt.Ident(name)})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read goose histories: %w", err)
	}
	// One query per chunk of history tables: a UNION ALL over all 8,192
	// shards of a full server exceeds PostgreSQL's parser stack.
	for len(tables) > 0 {
		chunk := tables[:min(len(tables), versionsChunk)]
		tables = tables[len(chunk):]
		if err := m.readVersions(ctx, chunk, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Status reports each shard's goose version and installed generator. With
// no shards it reports every generator Discover finds in the Migrator's
// database.
//
// Unless Options.OwnDatabaseOnly it also reads every other
// database of the server, templates included, and each Status lists in
// Elsewhere the other schemas whose generator carries its shard id, and in
// Retired the counters of its shard id that downs kept anywhere. inventory.Census
// reports what the role could not read, and Mixed the kinds of generator.
func (m *Migrator) Status(ctx context.Context, shards []pgfunc.Shard) ([]Status, error) {
	srv, err := m.srv.Read(ctx)
	if err != nil {
		return nil, err
	}
	return m.StatusOf(ctx, srv, shards)
}

// Survey returns what Status and inventory.Census return, from one reading of the
// server, so that the two agree: a database opened, closed or renamed
// between two readings cannot fall between them (Status not seeing it
// while it was closed, inventory.Census reading it, after it opened, as not
// closed).
func (m *Migrator) Survey(ctx context.Context, shards []pgfunc.Shard) ([]Status, inventory.Census, error) {
	srv, err := m.srv.Read(ctx)
	if err != nil {
		return nil, inventory.Census{}, err
	}
	st, err := m.StatusOf(ctx, srv, shards)
	if err != nil {
		return nil, inventory.Census{}, err
	}
	c, err := m.srv.CensusOf(ctx, srv)
	if err != nil {
		return nil, inventory.Census{}, err
	}
	return st, c, nil
}

// StatusOf is Status's answer from what the server's Read read.
func (m *Migrator) StatusOf(ctx context.Context, srv *inventory.Inventory, shards []pgfunc.Shard) ([]Status, error) {
	installed := srv.All()
	if len(shards) == 0 {
		for _, in := range installed {
			if in.Database == "" && !in.Retired {
				shards = append(shards, pgfunc.Shard{Schema: in.Schema, ID: in.Meta.Shard})
			}
		}
	}
	found := srv.Index()
	unreadable := map[string]string{}
	for _, in := range found.Unreadable() {
		if in.Database == "" && !in.Retired {
			unreadable[in.Schema] = in.Unreadable
		}
	}
	hist, err := m.histories(ctx, batch.Schemas(shards))
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(shards))
	for _, sh := range shards {
		st := Status{Shard: sh, Version: hist[sh.Schema].version, Unreadable: unreadable[sh.Schema]}
		if in, ok := found.Generator(sh.Schema); ok {
			meta := in.Meta
			st.Installed = &meta
			st.Outdated = in.Outdated
			st.Upgradable = in.Upgradable
			st.Matches = !in.Outdated && meta.SameBody(metaOf(sh, m.opts))
		}
		for _, in := range found.Holders(sh.ID) {
			if in.Meta.Shard == sh.ID && (in.Database != "" || in.Schema != sh.Schema) {
				st.Elsewhere = append(st.Elsewhere, in)
			}
		}
		st.Retired = found.Kept(sh.ID)
		out = append(out, st)
	}
	if err := m.readAhead(ctx, out); err != nil {
		return nil, err
	}
	// Citus (package citus): generators without a counter of their own.
	return m.citusStatus(ctx, shards, out)
}

// citusStatus completes Status on a Citus coordinator, whose shard
// schemas hold no counter (their nodes' companion schemas do): each
// shard's generator is read from its next_id_meta(), and with no shards
// asked, the shards are those whose counters the coordinator holds.
func (m *Migrator) citusStatus(ctx context.Context, shards []pgfunc.Shard, out []Status) ([]Status, error) {
	held, ok, err := citus.Shards(ctx, m.db)
	if err != nil || !ok {
		return out, err
	}
	if len(shards) == 0 {
		for _, sh := range held {
			out = append(out, Status{Shard: sh})
		}
	}
	for i := range out {
		if out[i].Installed != nil {
			continue
		}
		meta, ok, err := citus.Meta(ctx, m.db, out[i].Shard.Schema)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i].Installed = &meta
			out[i].Matches = meta.SameBody(metaOf(out[i].Shard, m.opts))
		}
	}
	return out, nil
}

// readAhead fills Status.Ahead for every status whose schema holds a
// generator in mode unique whose counter the role may read.
func (m *Migrator) readAhead(ctx context.Context, sts []Status) error {
	var schemas []string
	idx := map[string]int{}
	for i, st := range sts {
		if st.Installed != nil && st.Installed.Mode == pgfunc.ModeUnique {
			schemas = append(schemas, st.Shard.Schema)
			idx[st.Shard.Schema] = i
		}
	}
	if len(schemas) == 0 {
		return nil
	}
	q, err := sqlt.Query("counters", m.opts.Clock())
	if err != nil {
		return err
	}
	rows, err := m.db.QueryContext(ctx, q, schemas)
	if err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var schema string
		var last sql.NullInt64
		var nowMS float64
		if err := rows.Scan(&schema, &last, &nowMS); err != nil {
			return fmt.Errorf("read counters: %w", err)
		}
		st := &sts[idx[schema]]
		l := st.Installed.LayoutOf()
		if nowMS >= float64(l.End().UnixMilli()) || last.Valid && last.Int64 >= (l.MaxTicks()+1)<<l.SeqBits-1 {
			st.Exhausted = true
		}
		if !last.Valid {
			continue // never drawn
		}
		endMS := ((last.Int64>>l.SeqBits)+1)*l.UnitMillis() + l.EpochMillis()
		st.Ahead = time.Duration((float64(endMS) - nowMS) * float64(time.Millisecond))
		st.CounterRead = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	return nil
}
