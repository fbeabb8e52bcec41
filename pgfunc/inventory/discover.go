package inventory

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// Installed is a generator found on a server.
type Installed struct {
	// Database is the database holding the schema; empty for the
	// Server's own.
	Database string
	// Schema holds the generator.
	Schema string
	// Meta is what its counter sequence's comment records.
	Meta pgfunc.Meta
	// Outdated is true for a generator applied by an older shardid: one
	// that recorded Meta on next_id() rather than on the counter, whose
	// body predates this release's (durability after a crash, the jump
	// lock, search_path immunity), whatever its layout and mode; one in
	// mode unique that records no lead, whose body lets the counter run
	// ahead of the clock without bound; or an Upgradable one.
	Outdated bool
	// Upgradable is true for a generator in mode unique, with a lead,
	// whose body lacks next_id_bulk() and next_ids(): migrate.Migrator.Up replaces
	// its functions with this release's in place (see upgrade.go), the
	// counter and its IDs carrying on.
	Upgradable bool
	// Retired is true for a counter a down kept (next_id_retired_seq,
	// with its comment): no generator draws from it, but its IDs were
	// handed out, and an up of its shard id carries on from it.
	Retired bool
	// Unreadable, when not empty, says why the counter looks like a
	// generator's (it sits beside the jump lock's table or the next_id_ticks
	// domain, which only a generator makes, or
	// is a counter a down kept) yet carries no metadata shardid can read:
	// no next_id_meta() and no metadata comment (a copy, made without
	// comments, of a generator of a release that recorded its metadata in
	// the comment alone), or metadata that is not shardid's. Its Meta is
	// then empty but for Shard, which its jump function's name gives
	// (-1 when it has none). Such a counter hands out IDs nobody can
	// place: Status, Census and Resume report it as a problem, and Up
	// refuses to apply anything beside it (ErrUnreadableGenerator).
	Unreadable string
	// Recorded is true when the metadata was read from next_id_meta(),
	// which every copy keeps; false when from a comment alone.
	Recorded bool
}

// place names where in is: its schema, with its database when it is
// not the Server's.
func (in Installed) place() string {
	if in.Database == "" {
		return in.Schema
	}
	return in.Database + "." + in.Schema
}

// counterRow is one row of the discover and resume_counters queries: what
// the catalog says of a counter and its schema.
type counterRow struct {
	comment, older, body sql.NullString // the counter's comment, next_id()'s, next_id_meta()'s text
	looks                bool           // the jump lock's table or next_id_ticks beside it
	retired              bool
}

// meta reads the counter's metadata: next_id_meta()'s text first, then
// the counter's comment, then (live counters) next_id()'s comment, where
// the oldest releases kept it (outdated). unreadable says why a counter
// that looks like a generator's has none; both empty: not a generator.
func (r counterRow) meta() (meta pgfunc.Meta, recorded, outdated bool, unreadable string) {
	if m, ok := MetaFromBody(r.body); ok {
		return m, true, false, ""
	}
	if m, ok := parseMeta(r.comment); ok {
		return m, false, false, ""
	}
	if m, ok := parseMeta(r.older); ok && !r.retired {
		return m, false, true, ""
	}
	switch {
	case r.body.Valid:
		return pgfunc.Meta{}, false, false, "its next_id_meta() is not shardid's metadata"
	case r.retired || r.looks:
		return pgfunc.Meta{}, false, false, "no next_id_meta() and no metadata comment (a copy made without comments of a generator applied by an earlier shardid, which kept its metadata in the comment alone?)"
	}
	return pgfunc.Meta{}, false, false, ""
}

// MetaFromBody reads the metadata next_id_meta()'s body carries (see the
// "meta" template): SELECT '<json>'::pg_catalog.jsonb; false when body is
// not one.
func MetaFromBody(body sql.NullString) (pgfunc.Meta, bool) {
	text, ok := strings.CutPrefix(body.String, "SELECT '")
	if ok {
		text, ok = strings.CutSuffix(text, "'::pg_catalog.jsonb")
	}
	if !body.Valid || !ok {
		return pgfunc.Meta{}, false
	}
	return parseMeta(sql.NullString{String: strings.ReplaceAll(text, "''", "'"), Valid: true})
}

// jumpShard reads the shard id of schema's generator from the name of its
// jump function (next_id_jump_<shard>): -1 when it has none, or several.
func jumpShard(ctx context.Context, db *sql.DB, schema string) (int64, error) {
	q, err := sqlt.Query("jump_names", nil)
	if err != nil {
		return -1, err
	}
	rows, err := db.QueryContext(ctx, q, sqlt.Ident(schema))
	if err != nil {
		return -1, fmt.Errorf("read %s's jump function: %w", schema, err)
	}
	defer rows.Close()
	shard, n := int64(-1), 0
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return -1, fmt.Errorf("read %s's jump function: %w", schema, err)
		}
		if id, err := strconv.ParseInt(strings.TrimPrefix(name, "next_id_jump_"), 10, 64); err == nil && id >= 0 {
			shard, n = id, n+1
		}
	}
	if n != 1 {
		shard = -1
	}
	return shard, rows.Err()
}

// Discover lists every shardid generator in the database, found through
// its schema's next_id_meta() or the metadata comment on its counter
// sequence; one whose metadata cannot be read is listed with
// Installed.Unreadable.
func (s *Server) Discover(ctx context.Context) ([]Installed, error) {
	return Discover(ctx, s.db)
}

// Discover lists the generators of the database db is connected to (not
// the counters downs kept, but those whose metadata cannot be read).
func Discover(ctx context.Context, db *sql.DB) ([]Installed, error) {
	all, err := discoverAll(ctx, db)
	return slices.DeleteFunc(all, func(in Installed) bool { return in.Retired && in.Unreadable == "" }), err
}

// discoverAll lists the generators of the database db is connected to and
// the counters downs kept there (Installed.Retired).
func discoverAll(ctx context.Context, db *sql.DB) ([]Installed, error) {
	q, err := sqlt.Query("discover", nil)
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
		var r counterRow
		var lacksBulk bool
		if err := rows.Scan(&schema, &r.comment, &r.older, &r.retired, &lacksBulk, &r.body, &r.looks); err != nil {
			return nil, fmt.Errorf("discover generators: %w", err)
		}
		meta, recorded, older, unreadable := r.meta()
		switch {
		case unreadable != "":
			out = append(out, Installed{Schema: schema, Meta: pgfunc.Meta{Shard: -1}, Retired: r.retired, Unreadable: unreadable})
		case older:
			out = append(out, Installed{Schema: schema, Meta: meta, Outdated: true})
		case meta.Tool != "":
			in := Installed{Schema: schema, Meta: meta, Retired: r.retired, Recorded: recorded, Outdated: !r.retired && meta.Mode == pgfunc.ModeUnique && meta.LeadMS == 0}
			in.Upgradable = !r.retired && !in.Outdated && meta.Mode == pgfunc.ModeUnique && lacksBulk
			in.Outdated = in.Outdated || in.Upgradable
			out = append(out, in)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("discover generators: %w", err)
	}
	rows.Close()
	for i := range out {
		if out[i].Unreadable != "" {
			if out[i].Meta.Shard, err = jumpShard(ctx, db, out[i].Schema); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// parseMeta reads a generator's metadata comment; false when there is
// none, or it is not shardid's.
func parseMeta(comment sql.NullString) (pgfunc.Meta, bool) {
	var meta pgfunc.Meta
	if !comment.Valid || json.Unmarshal([]byte(comment.String), &meta) != nil || meta.Tool != "shardid" {
		return pgfunc.Meta{}, false
	}
	return meta, true
}

// Index indexes the generators found on a server for Check: by schema
// (the Server's own database) and by shard id (everywhere), so that
// checking 8,192 shards is not 8,192 passes over 8,192 generators. Kept
// counters (Installed.Retired) are indexed apart, by shard id.
type Index struct {
	bySchema   map[string]Installed
	byShard    map[int64][]Installed
	retired    map[int64][]Installed
	unreadable []Installed
}

// NewIndex indexes installed (as Read or Discover found them).
func NewIndex(installed []Installed) Index {
	c := Index{bySchema: map[string]Installed{}, byShard: map[int64][]Installed{}, retired: map[int64][]Installed{}}
	for _, in := range installed {
		if in.Unreadable != "" {
			c.unreadable = append(c.unreadable, in)
			continue
		}
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

// Generator is the generator of schema in the Server's own database.
func (c Index) Generator(schema string) (Installed, bool) {
	in, ok := c.bySchema[schema]
	return in, ok
}

// Unreadable lists the counters whose metadata cannot be read.
func (c Index) Unreadable() []Installed { return c.unreadable }

// Check refuses a shard whose id another schema holds, or whose schema has
// a different generator than o renders.
func (c Index) Check(sh pgfunc.Shard, o pgfunc.Options) error {
	if len(c.unreadable) > 0 {
		return UnreadableError(c.unreadable)
	}
	want, err := pgfunc.MetaFor(sh, o)
	if err != nil {
		return err
	}
	candidates := c.byShard[sh.ID]
	if in, ok := c.bySchema[sh.Schema]; ok {
		candidates = append([]Installed{in}, candidates...)
	}
	for _, in := range candidates {
		switch {
		case in.Database == "" && in.Schema == sh.Schema && in.Outdated && !in.Upgradable:
			return fmt.Errorf("%w: %s holds shard %d, mode %s, applied by a release that %s",
				pgfunc.ErrOutdatedGenerator, sh.Schema, in.Meta.Shard, in.Meta.Mode, outdatedWhy(in))
		case in.Database == "" && in.Schema == sh.Schema && !in.Meta.SameGenerator(want):
			return Mismatch(sh, in, o)
		case in.Database == "" && in.Schema == sh.Schema && in.Meta.LeadMS != want.LeadMS:
			return fmt.Errorf("%w: %s has a lead of %s, requested %s: the lead is part of next_id()'s body, and up does not replace a live generator's body (pg down, then pg up with the new lead, carries its counter on)",
				pgfunc.ErrGeneratorMismatch, sh.Schema, in.Meta.Lead(), want.Lead())
		case in.Database != "" && in.Meta.Shard == sh.ID:
			return fmt.Errorf("%w: shard %d is already in schema %s of database %s", pgfunc.ErrShardConflict, sh.ID, in.Schema, in.Database)
		case in.Schema != sh.Schema && in.Meta.Shard == sh.ID:
			return fmt.Errorf("%w: shard %d is already in schema %s", pgfunc.ErrShardConflict, sh.ID, in.Schema)
		}
	}
	return nil
}

// UnreadableError is ErrUnreadableGenerator naming the counters.
func UnreadableError(unreadable []Installed) error {
	var names []string
	for _, in := range unreadable {
		names = append(names, in.place()+" ("+shardText(in.Meta.Shard)+")")
	}
	return fmt.Errorf("%w: %s: %s; it hands out IDs of a shard id and kind nobody can tell, so no shard id can be shown free: record its metadata (COMMENT ON SEQUENCE <schema>.next_id_seq IS the metadata pg status --json shows where it came from; a pg up over it then records next_id_meta()), pg adopt it if it is a hand-written generator, or drop it once none of its IDs is in use",
		pgfunc.ErrUnreadableGenerator, strings.Join(names, ", "), unreadable[0].Unreadable)
}

// shardText names a shard id, or says that it is not known (-1).
func shardText(id int64) string {
	if id < 0 {
		return "shard unknown"
	}
	return "shard " + strconv.FormatInt(id, 10)
}

// outdatedWhy says how an outdated generator (Installed.Outdated) shows
// its age.
func outdatedWhy(in Installed) string {
	if in.Meta.Mode == pgfunc.ModeUnique && in.Meta.LeadMS == 0 {
		return "recorded no lead: its counter may run ahead of the clock without bound, and up does not replace a live generator's body (pg down, then pg up, replaces it and carries its counter on)"
	}
	return "recorded its metadata on next_id(); its body lacks this release's fixes, and up does not replace a live generator"
}

// Mismatch is ErrGeneratorMismatch for sh, whose schema holds in, not the
// generator o renders.
func Mismatch(sh pgfunc.Shard, in Installed, o pgfunc.Options) error {
	o = o.Normalized()
	return fmt.Errorf("%w: %s has shard %d, mode %s, layout %d/%d/%d bits of %dms since %s; requested shard %d, mode %s, %s",
		pgfunc.ErrGeneratorMismatch, sh.Schema, in.Meta.Shard, in.Meta.Mode, in.Meta.TimeBits, in.Meta.ShardBits, in.Meta.SeqBits,
		in.Meta.UnitMS, time.UnixMilli(in.Meta.EpochMS).UTC().Format(time.RFC3339Nano), sh.ID, o.Mode, o.Layout.Describe())
}

// Census is every shardid generator found on a server.
type Census struct {
	// Database is the name of the Server's own database.
	Database string
	// Template is true when the Server's database is a template: Up
	// refuses to apply there.
	Template bool
	// System is the server's system identifier (pg_control_system()): one
	// value for every host name, address or port that reaches the server,
	// shared by its physical replicas and by every copy of its data
	// directory. "" when the role may not read it.
	System string
	// Generators are the generators of every database looked into;
	// Installed.Database is empty for the Server's own database.
	Generators []Installed
	// Retired are the counters downs kept (next_id_retired_seq) in every
	// database looked into: an up of their shard id carries on from them.
	Retired []Installed
	// Replicated are the tables keyed by next_id(), in every database
	// looked into, that logical replication copies: into this server
	// (subscribed) or out of it (published).
	Replicated []Replicated
	// Unreadable are the counters, in every database looked into, that
	// look like a generator's but whose metadata cannot be read
	// (Installed.Unreadable): each is a problem.
	Unreadable []Installed
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
	// OwnDatabaseOnly is true when only the Server's database was read
	// (migrate.Options.OwnDatabaseOnly).
	OwnDatabaseOnly bool
	// Now is the server's clock when the census was read.
	Now time.Time
	// InRecovery is true on a server in recovery (a standby, or a
	// point-in-time recovery paused at its target): it hands out no IDs
	// until promoted, and resume.Run must run after the promotion.
	InRecovery bool
}

// Census reads the generators and kept counters of the Server's
// database and, unless migrate.Options.OwnDatabaseOnly, of every other
// database of the server the role may connect to, templates included.
func (srv *Server) Census(ctx context.Context) (Census, error) {
	s, err := srv.Read(ctx)
	if err != nil {
		return Census{}, err
	}
	return srv.CensusOf(ctx, s)
}

// CensusOf builds the Census of what Read read, reading the server's
// identity and whether it is in recovery.
func (srv *Server) CensusOf(ctx context.Context, s *Inventory) (Census, error) {
	c := Census{Database: s.database, Template: s.template, Templates: s.templates, Closed: s.closed, Invalid: s.invalid, OwnDatabaseOnly: s.ownOnly, Now: s.now, Replicated: s.replicated}
	for _, in := range s.all {
		if in.Unreadable != "" {
			c.Unreadable = append(c.Unreadable, in)
		} else if in.Retired {
			c.Retired = append(c.Retired, in)
		} else {
			c.Generators = append(c.Generators, in)
		}
	}
	q, err := sqlt.Query("system_identifier", nil)
	if err != nil {
		return c, err
	}
	if err := srv.db.QueryRowContext(ctx, q).Scan(&c.System); err != nil {
		if ctx.Err() != nil {
			return c, fmt.Errorf("system identifier: %w", err)
		}
		c.System = "" // a server that revoked pg_control_system: names identify it
	}
	if q, err = sqlt.Query("in_recovery", nil); err != nil {
		return c, err
	}
	if err := srv.db.QueryRowContext(ctx, q).Scan(&c.InRecovery); err != nil {
		return c, fmt.Errorf("in recovery: %w", err)
	}
	return c, nil
}

// Holders lists the generators, anywhere on the server, of shard id.
func (c Index) Holders(id int64) []Installed { return c.byShard[id] }

// Kept lists the counters of shard id that downs kept, anywhere on the
// server.
func (c Index) Kept(id int64) []Installed { return c.retired[id] }
