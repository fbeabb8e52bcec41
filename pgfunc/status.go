package pgfunc

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Status is one shard's state.
type Status struct {
	// Shard is the shard asked about (or found, see Migrator.Status).
	Shard Shard
	// Version is the goose version applied in the schema (0: none; -1:
	// the schema holds a history table the role may not read, having no
	// USAGE on the schema).
	Version int64
	// Installed is the generator found in the schema, if any.
	Installed *Meta
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
	// or, unless MigrateOptions.OwnDatabaseOnly, any other) whose
	// generator carries this shard id: copies that hand out the same IDs.
	Elsewhere []Installed
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
	Retired []Installed
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
		lead = DefaultLead
	}
	return s.Ahead > lead
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
	q, err := query("versions", tables)
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
	q, err := query("histories", nil)
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
			if err := CheckSchema(name); err != nil {
				rows.Close()
				return nil, err
			}
			tables = append(tables, historyTable{Literal: quoteLiteral(name), Ident: quoteIdent(name)})
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
// Unless MigrateOptions.OwnDatabaseOnly it also reads every other
// database of the server, templates included, and each Status lists in
// Elsewhere the other schemas whose generator carries its shard id, and in
// Retired the counters of its shard id that downs kept anywhere. Census
// reports what the role could not read, and Mixed the kinds of generator.
func (m *Migrator) Status(ctx context.Context, shards []Shard) ([]Status, error) {
	srv, err := m.readServer(ctx)
	if err != nil {
		return nil, err
	}
	return m.status(ctx, srv, shards)
}

// Survey returns what Status and Census return, from one reading of the
// server, so that the two agree: a database opened, closed or renamed
// between two readings cannot fall between them (Status not seeing it
// while it was closed, Census reading it, after it opened, as not
// closed).
func (m *Migrator) Survey(ctx context.Context, shards []Shard) ([]Status, Census, error) {
	srv, err := m.readServer(ctx)
	if err != nil {
		return nil, Census{}, err
	}
	st, err := m.status(ctx, srv, shards)
	if err != nil {
		return nil, Census{}, err
	}
	c, err := m.census(ctx, srv)
	if err != nil {
		return nil, Census{}, err
	}
	return st, c, nil
}

// status builds Status's answer from what readServer read.
func (m *Migrator) status(ctx context.Context, srv server, shards []Shard) ([]Status, error) {
	installed := srv.all
	if len(shards) == 0 {
		for _, in := range installed {
			if in.Database == "" && !in.Retired {
				shards = append(shards, Shard{Schema: in.Schema, ID: in.Meta.Shard})
			}
		}
	}
	found := newCensus(installed)
	unreadable := map[string]string{}
	for _, in := range found.unreadable {
		if in.Database == "" && !in.Retired {
			unreadable[in.Schema] = in.Unreadable
		}
	}
	hist, err := m.histories(ctx, schemaNames(shards))
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(shards))
	for _, sh := range shards {
		st := Status{Shard: sh, Version: hist[sh.Schema].version, Unreadable: unreadable[sh.Schema]}
		if in, ok := found.bySchema[sh.Schema]; ok {
			meta := in.Meta
			st.Installed = &meta
			st.Outdated = in.Outdated
			st.Upgradable = in.Upgradable
			st.Matches = !in.Outdated && meta.sameBody(metaFor(sh, m.opts))
		}
		for _, in := range found.byShard[sh.ID] {
			if in.Meta.Shard == sh.ID && (in.Database != "" || in.Schema != sh.Schema) {
				st.Elsewhere = append(st.Elsewhere, in)
			}
		}
		st.Retired = found.retired[sh.ID]
		out = append(out, st)
	}
	if err := m.readAhead(ctx, out); err != nil {
		return nil, err
	}
	// Citus (citus_status.go): generators without a counter of their own.
	return m.citusStatus(ctx, shards, out)
}
