package pgfunc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Installed is a generator found on a server.
type Installed struct {
	// Database is the database holding the schema; empty for the
	// Migrator's own.
	Database string
	// Schema holds the generator.
	Schema string
	// Meta is what its counter sequence's comment records.
	Meta Meta
	// Outdated is true for a generator applied by an older shardid: one
	// that recorded Meta on next_id() rather than on the counter, whose
	// body predates this release's (durability after a crash, the jump
	// lock, search_path immunity), whatever its layout and mode; one in
	// mode unique that records no lead, whose body lets the counter run
	// ahead of the clock without bound; or an Upgradable one.
	Outdated bool
	// Upgradable is true for a generator in mode unique, with a lead,
	// whose body lacks next_id_bulk() and next_ids(): Migrator.Up replaces
	// its functions with this release's in place (see upgrade.go), the
	// counter and its IDs carrying on.
	Upgradable bool
	// Retired is true for a counter a down kept (next_id_retired_seq,
	// with its comment): no generator draws from it, but its IDs were
	// handed out, and an up of its shard id carries on from it.
	Retired bool
}

// query renders the named template of sql/catalog.sql.tmpl.
func query(name string, data any) (string, error) {
	var b strings.Builder
	if err := pgTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s query: %w", name, err)
	}
	return b.String(), nil
}

// Discover lists every shardid generator in the database, found through
// the metadata comment on each schema's counter sequence.
func (m *Migrator) Discover(ctx context.Context) ([]Installed, error) {
	return discover(ctx, m.db)
}

// discover lists the generators of the database db is connected to.
func discover(ctx context.Context, db *sql.DB) ([]Installed, error) {
	all, err := discoverAll(ctx, db)
	return slices.DeleteFunc(all, func(in Installed) bool { return in.Retired }), err
}

// discoverAll lists the generators of the database db is connected to and
// the counters downs kept there (Installed.Retired).
func discoverAll(ctx context.Context, db *sql.DB) ([]Installed, error) {
	q, err := query("discover", nil)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("discover generators: %w", err)
	}
	defer rows.Close()
	var out []Installed
	for rows.Next() {
		var schema string
		var comment, older sql.NullString
		var retired, lacksBulk bool
		if err := rows.Scan(&schema, &comment, &older, &retired, &lacksBulk); err != nil {
			return nil, fmt.Errorf("discover generators: %w", err)
		}
		if meta, ok := parseMeta(comment); ok {
			in := Installed{Schema: schema, Meta: meta, Retired: retired, Outdated: !retired && meta.Mode == ModeUnique && meta.LeadMS == 0}
			in.Upgradable = !retired && !in.Outdated && meta.Mode == ModeUnique && lacksBulk
			in.Outdated = in.Outdated || in.Upgradable
			out = append(out, in)
		} else if meta, ok := parseMeta(older); ok {
			out = append(out, Installed{Schema: schema, Meta: meta, Outdated: true})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("discover generators: %w", err)
	}
	return out, nil
}

// parseMeta reads a generator's metadata comment; false when there is
// none, or it is not shardid's.
func parseMeta(comment sql.NullString) (Meta, bool) {
	var meta Meta
	if !comment.Valid || json.Unmarshal([]byte(comment.String), &meta) != nil || meta.Tool != "shardid" {
		return Meta{}, false
	}
	return meta, true
}

// census indexes the generators found on a server for check: by schema
// (the Migrator's own database) and by shard id (everywhere), so that
// checking 8,192 shards is not 8,192 passes over 8,192 generators. Kept
// counters (Installed.Retired) are indexed apart, by shard id.
type census struct {
	bySchema map[string]Installed
	byShard  map[int64][]Installed
	retired  map[int64][]Installed
}

func newCensus(installed []Installed) census {
	c := census{bySchema: map[string]Installed{}, byShard: map[int64][]Installed{}, retired: map[int64][]Installed{}}
	for _, in := range installed {
		if in.Retired {
			c.retired[in.Meta.Shard] = append(c.retired[in.Meta.Shard], in)
			continue
		}
		if in.Database == "" {
			c.bySchema[in.Schema] = in
		}
		c.byShard[in.Meta.Shard] = append(c.byShard[in.Meta.Shard], in)
	}
	return c
}

// check refuses a shard whose id another schema holds, or whose schema has
// a different generator.
func (m *Migrator) check(sh Shard, c census) error {
	want := metaFor(sh, m.opts)
	candidates := c.byShard[sh.ID]
	if in, ok := c.bySchema[sh.Schema]; ok {
		candidates = append([]Installed{in}, candidates...)
	}
	for _, in := range candidates {
		switch {
		case in.Database == "" && in.Schema == sh.Schema && in.Outdated && !in.Upgradable:
			return fmt.Errorf("%w: %s holds shard %d, mode %s, applied by a release that %s",
				ErrOutdatedGenerator, sh.Schema, in.Meta.Shard, in.Meta.Mode, outdatedWhy(in))
		case in.Database == "" && in.Schema == sh.Schema && !in.Meta.sameGenerator(want):
			return m.mismatch(sh, in)
		case in.Database == "" && in.Schema == sh.Schema && in.Meta.LeadMS != want.LeadMS:
			return fmt.Errorf("%w: %s has a lead of %s, requested %s: the lead is part of next_id()'s body, and up does not replace a live generator's body (pg down, then pg up with the new lead, carries its counter on)",
				ErrGeneratorMismatch, sh.Schema, in.Meta.Lead(), want.Lead())
		case in.Database != "" && in.Meta.Shard == sh.ID:
			return fmt.Errorf("%w: shard %d is already in schema %s of database %s", ErrShardConflict, sh.ID, in.Schema, in.Database)
		case in.Schema != sh.Schema && in.Meta.Shard == sh.ID:
			return fmt.Errorf("%w: shard %d is already in schema %s", ErrShardConflict, sh.ID, in.Schema)
		}
	}
	return nil
}

// outdatedWhy says how an outdated generator (Installed.Outdated) shows
// its age.
func outdatedWhy(in Installed) string {
	if in.Meta.Mode == ModeUnique && in.Meta.LeadMS == 0 {
		return "recorded no lead: its counter may run ahead of the clock without bound, and up does not replace a live generator's body (pg down, then pg up, replaces it and carries its counter on)"
	}
	return "recorded its metadata on next_id(); its body lacks this release's fixes, and up does not replace a live generator"
}

// mismatch is ErrGeneratorMismatch for sh, whose schema holds in, not the
// generator the Migrator's options render.
func (m *Migrator) mismatch(sh Shard, in Installed) error {
	return fmt.Errorf("%w: %s has shard %d, mode %s, layout %d/%d/%d bits of %dms since %s; requested shard %d, mode %s, %s",
		ErrGeneratorMismatch, sh.Schema, in.Meta.Shard, in.Meta.Mode, in.Meta.TimeBits, in.Meta.ShardBits, in.Meta.SeqBits,
		in.Meta.UnitMS, time.UnixMilli(in.Meta.EpochMS).UTC().Format(time.RFC3339Nano), sh.ID, m.opts.Mode, m.opts.Layout.Describe())
}

// Census is every shardid generator found on a server.
type Census struct {
	// Database is the name of the Migrator's own database.
	Database string
	// Template is true when the Migrator's database is a template: Up
	// refuses to apply there.
	Template bool
	// System is the server's system identifier (pg_control_system()): one
	// value for every host name, address or port that reaches the server,
	// shared by its physical replicas and by every copy of its data
	// directory. "" when the role may not read it.
	System string
	// Generators are the generators of every database looked into;
	// Installed.Database is empty for the Migrator's own database.
	Generators []Installed
	// Retired are the counters downs kept (next_id_retired_seq) in every
	// database looked into: an up of their shard id carries on from them.
	Retired []Installed
	// Templates lists the other template databases looked into: CREATE
	// DATABASE copies whatever they hold.
	Templates []string
	// Closed lists the databases of the server the role may not look into
	// (no CONNECT privilege, or connections not allowed): a copy of a
	// shard there would go unseen. template0, which accepts no connection
	// as PostgreSQL ships it, is not listed.
	Closed []string
	// Invalid lists the databases an interrupted DROP DATABASE left
	// invalid (PostgreSQL 15.4 and later): nobody can connect to them or
	// draw from them again, so nothing there hands out IDs; they are
	// passed over, and named so that they can be dropped.
	Invalid []string
	// OwnDatabaseOnly is true when only the Migrator's database was read
	// (MigrateOptions.OwnDatabaseOnly).
	OwnDatabaseOnly bool
	// Now is the server's clock when the census was read.
	Now time.Time
	// InRecovery is true on a server in recovery (a standby, or a
	// point-in-time recovery paused at its target): it hands out no IDs
	// until promoted, and Migrator.Resume must run after the promotion.
	InRecovery bool
}

// Census reads the generators and kept counters of the Migrator's
// database and, unless MigrateOptions.OwnDatabaseOnly, of every other
// database of the server the role may connect to, templates included.
func (m *Migrator) Census(ctx context.Context) (Census, error) {
	s, err := m.readServer(ctx)
	if err != nil {
		return Census{}, err
	}
	return m.census(ctx, s)
}

// census builds the Census of what readServer read.
func (m *Migrator) census(ctx context.Context, s server) (Census, error) {
	c := Census{Database: s.database, Template: s.template, Templates: s.templates, Closed: s.closed, Invalid: s.invalid, OwnDatabaseOnly: s.ownOnly, Now: s.now}
	for _, in := range s.all {
		if in.Retired {
			c.Retired = append(c.Retired, in)
		} else {
			c.Generators = append(c.Generators, in)
		}
	}
	q, err := query("system_identifier", nil)
	if err != nil {
		return c, err
	}
	if err := m.db.QueryRowContext(ctx, q).Scan(&c.System); err != nil {
		if ctx.Err() != nil {
			return c, fmt.Errorf("system identifier: %w", err)
		}
		c.System = "" // a server that revoked pg_control_system: names identify it
	}
	if q, err = query("in_recovery", nil); err != nil {
		return c, err
	}
	if err := m.db.QueryRowContext(ctx, q).Scan(&c.InRecovery); err != nil {
		return c, fmt.Errorf("in recovery: %w", err)
	}
	return c, nil
}
