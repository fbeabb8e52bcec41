package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/batch"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// MigrationName is the file name of a shard's generator migration inside
// its schema's goose history.
const MigrationName = "00001_shardid_next_id.sql"

// Errors returned by the Migrator.
var (
	// ErrHistoryElsewhere is returned (per shard) by Migrator.Down when the
	// schema holds a generator but its own goose history
	// (<schema>.goose_db_version) does not record it: it was applied from
	// a pg gen directory by goose, whose history is that directory's
	// table. Down leaves it to that history (goose down there).
	ErrHistoryElsewhere = errors.New("generator applied outside the schema's own goose history")
	// ErrInUse is returned (per shard) by Migrator.Down when PostgreSQL
	// refuses to drop the generator because something depends on it:
	// a table whose DEFAULT is next_id(), a view or function that calls
	// it. The error names what depends on it, as the server reported it.
	ErrInUse = errors.New("generator still in use")
)

// Migrator applies shard generators through goose: one goose Provider per
// schema, whose version table lives inside the schema
// (<schema>.goose_db_version) and whose session lock id is derived from the
// schema name, so shards migrate independently and concurrently.
type Migrator struct {
	db          *sql.DB
	srv         *inventory.Server
	opts        pgfunc.Options
	parallel    int
	margin      time.Duration
	allowUnread bool
	allowMixed  bool
	owned       bool // db was opened by Open: Close closes it
}

// Options says how a Migrator applies generators. The zero value
// migrates DefaultParallel schemas at once and looks after the whole
// server: every database of it the role may connect to, templates
// included (see Connect).
type Options struct {
	// Parallel is how many schemas Up and Down migrate at once, each on
	// its own connection: 1 to MaxParallel. Zero means DefaultParallel.
	Parallel int
	// Connect opens a pool on another database of the same server (the
	// database name is the argument); the Migrator closes what it opens.
	// Through it Up takes its server-wide lock in LockDatabase and reads
	// every database of the server the role may connect to: it refuses a
	// shard id that a schema anywhere on the server holds, carries on
	// from a counter a down kept of the shard id anywhere, refuses
	// another kind of generator anywhere (see AllowMixed) and a run while
	// some database cannot be read (see AllowUnreadDatabases); Status and
	// inventory.Census report what they find there, and Resume without shards moves
	// the counters there. Nil means a connector derived
	// from the Migrator's pool, which must then be a pgx stdlib pool
	// (sql.Open("pgx", …) or stdlib.OpenDB): the same host, port, role,
	// password and TLS settings, another database. New fails with
	// ErrNoConnect for any other pool unless OwnDatabaseOnly is set.
	Connect func(ctx context.Context, database string) (*sql.DB, error)
	// OwnDatabaseOnly is the explicit opt-out of the server-wide checks:
	// Up, Status, inventory.Census and Resume look after the Migrator's database
	// only, as the migration itself does, and Up and Resume lock there. Another database of
	// the server could then hold the same shard id, another kind of
	// generator or a counter a down kept, unnoticed: set it only when no
	// other database of the server holds generators that matter.
	OwnDatabaseOnly bool
	// AllowUnreadDatabases lets Up apply while some database of the
	// server cannot be read by the role (no CONNECT privilege, or
	// connections not allowed): a generator there would go unseen.
	// Without it Up fails every shard naming those databases.
	AllowUnreadDatabases bool
	// AllowMixed lets Up apply a generator of another layout, epoch or
	// mode than generators (or counters downs kept) already on the
	// server, but only when, for each of them, Overlap shows that no ID
	// the new generator can hand out from now on is one the other has
	// handed out or can ever hand out. Without it Up refuses any other
	// kind (ErrMixedGenerators): one layout, epoch and mode per server.
	AllowMixed bool
	// LockTimeout is how long Up waits for the server-wide lock while
	// another run (or anybody: advisory locks need no privilege) holds
	// it, before failing with ErrServerLocked naming the holder. Zero
	// means DefaultLockTimeout.
	LockTimeout time.Duration
	// EndMargin is how long the layout must still last when Up applies a
	// generator: Up refuses (ErrLayoutEnds) a layout whose time field ends
	// within EndMargin of now, and one that has ended, whose every draw
	// raises. Zero means DefaultEndMargin; a negative value refuses only
	// a layout that has ended.
	EndMargin time.Duration
	// CheckEnd makes Validate, and so New and Open, refuse a layout whose
	// end Up would refuse (see EndMargin) before anything connects: for a
	// caller that opens the Migrator to apply. Status, Down and Resume
	// read and remove generators of any layout: false, the zero value,
	// leaves the check to Up.
	CheckEnd bool
}

// DefaultParallel is how many schemas a Migrator migrates at once unless
// Options.Parallel says otherwise; MaxParallel is the most it
// accepts (each one holds a connection).
const (
	DefaultParallel = batch.DefaultParallel
	MaxParallel     = 64
)

// ErrInvalidParallel is returned by New when
// Options.Parallel is outside 0..MaxParallel.
var ErrInvalidParallel = errors.New("invalid parallelism")

// New validates o and mo and returns a Migrator that installs the
// generator o renders, over db, which must use a PostgreSQL driver
// registered as "pgx" (github.com/jackc/pgx/v5/stdlib) or any other
// database/sql PostgreSQL driver (then with Options.Connect or
// OwnDatabaseOnly). It returns the errors of Options.Validate and
// ErrNoConnect.
func New(db *sql.DB, o pgfunc.Options, mo Options) (*Migrator, error) {
	if err := mo.Validate(o); err != nil {
		return nil, err
	}
	if mo.Parallel == 0 {
		mo.Parallel = DefaultParallel
	}
	srv, err := inventory.New(db, inventory.Scope{Connect: mo.Connect, OwnDatabaseOnly: mo.OwnDatabaseOnly, LockTimeout: mo.LockTimeout})
	if err != nil {
		return nil, err
	}
	return &Migrator{db: db, srv: srv, opts: o.Normalized(), parallel: mo.Parallel, margin: mo.EndMargin, allowUnread: mo.AllowUnreadDatabases, allowMixed: mo.AllowMixed}, nil
}

// Server is the server the Migrator looks after, for the stage packages
// that run on it (resume, adopt) and to read it (Read, inventory.Census, Discover).
func (m *Migrator) Server() *inventory.Server { return m.srv }

// Options are the render options the Migrator applies generators with.
func (m *Migrator) Options() pgfunc.Options { return m.opts }

// Parallel is how many schemas the Migrator handles at once.
func (m *Migrator) Parallel() int { return m.parallel }

// EndMargin is how long a layout must still last when the Migrator
// applies a generator (see Options.EndMargin).
func (m *Migrator) EndMargin() time.Duration { return m.margin }

// AllowMixed is Options.AllowMixed.
func (m *Migrator) AllowMixed() bool { return m.allowMixed }

// AllowUnreadDatabases is Options.AllowUnreadDatabases.
func (m *Migrator) AllowUnreadDatabases() bool { return m.allowUnread }

// Up installs the generator in each shard's schema, creating the schema
// first. Each shard runs in its own goose transaction: a failed shard is
// reported in its Result and rolled back, the others' results stand, and a
// rerun completes the rest. each, if not nil, is called after every shard.
//
// Up holds a server-wide lock for the whole run (see Options), so
// two runs cannot both create one shard id, and reads the catalog of
// every database of the server once: a shard whose schema already holds
// this generator is reported current without another round trip. It
// applies nothing in a template database (ErrTemplateDatabase) or while a
// database cannot be read (ErrUnreadDatabases, unless
// Options.AllowUnreadDatabases); it refuses a shard id held
// anywhere on the server (ErrShardConflict) and another kind of generator
// anywhere (ErrMixedGenerators, see Options.AllowMixed); and it
// carries on from a counter a down kept of the shard id, in whatever
// schema or database, when its options are these (ErrGeneratorMismatch
// otherwise).
//
// On a Citus cluster Up installs through the coordinator on every node
// (citus.Up, docs/citus.md), and refuses a worker (citus.ErrWorker); it
// holds the server-wide lock and runs the checks above with the
// cluster's generators beside the server's (upCitus).
func (m *Migrator) Up(ctx context.Context, shards []pgfunc.Shard, each func(pgfunc.Result)) ([]pgfunc.Result, error) {
	// Citus (package citus): a coordinator installs on every node its own way.
	if res, ok, err := m.upCitus(ctx, shards, each); ok {
		return res, err
	}
	var srv *inventory.Inventory
	err := pgfunc.CheckEnd(m.opts.Normalized().Layout, m.margin, time.Now())
	if err == nil {
		var unlock func()
		if unlock, err = m.srv.Lock(ctx); err == nil {
			defer unlock()
			srv, err = m.srv.Read(ctx)
		}
	}
	if err == nil {
		err = srv.Refusal(m.allowUnread)
	}
	var found inventory.Index
	if srv != nil {
		found = srv.Index()
	}
	return pgfunc.Partial(batch.Run(m.parallel, shards, each, func(sh pgfunc.Shard) (bool, string, error) {
		if err != nil {
			return false, "", err
		}
		if err := found.Check(sh, m.opts); err != nil {
			return false, "", err
		}
		want := metaOf(sh, m.opts)
		// The metadata comment is written in the migration's own
		// transaction, with goose's version row: a schema that carries
		// this generator's comment has it applied.
		if in, ok := found.Generator(sh.Schema); ok && in.Upgradable {
			return m.upgrade(ctx, sh)
		}
		if in, ok := found.Generator(sh.Schema); ok && in.Meta.SameBody(want) {
			if !in.Recorded { // an earlier release's: its comment alone says who it is
				if err := m.RecordMeta(ctx, m.db, sh, in.Meta); err != nil {
					return false, "", err
				}
				return false, "recorded", nil // current, its metadata now in next_id_meta() too
			}
			return false, "current", nil
		}
		kept, err := KeptCounters(sh, want, srv)
		if err != nil {
			return false, "", err
		}
		if err := srv.CheckMixed(sh, want, m.allowMixed, UpMixedHint); err != nil {
			return false, "", err
		}
		applied, err := m.apply(ctx, sh, kept)
		if err == nil && !applied {
			// goose's history says applied, yet the census found no
			// generator here (it returned "current" above otherwise).
			return false, "", fmt.Errorf("%w %s: %s.goose_db_version records version 1 as applied (the generator's migration, dropped by hand since, or another migration using that table), yet no generator is there; if it is shardid's, pg down clears it and up applies the generator again",
				pgfunc.ErrNoGenerator, sh.Schema, sh.Schema)
		}
		return applied, "", err
	}))
}

// UpMixedHint is what Up's refusal of another kind of generator on the
// server (ErrMixedGenerators) says the user may do.
const UpMixedHint = "AllowMixed, pg up --allow-mixed, applies it when it can show their IDs never meet"

// metaOf is the metadata Render records for sh rendered with o, checked
// already.
func metaOf(sh pgfunc.Shard, o pgfunc.Options) pgfunc.Meta {
	meta, _ := pgfunc.MetaFor(sh, o)
	return meta
}

// recordMeta creates next_id_meta() in sh's schema from meta, what its
// generator's comment records (see the "meta" template): the metadata of
// a generator of an earlier release, recorded where every copy keeps it.
func (m *Migrator) RecordMeta(ctx context.Context, db Execer, sh pgfunc.Shard, meta pgfunc.Meta) error {
	o := m.opts
	o.Layout, o.Mode, o.Lead = meta.LayoutOf(), meta.Mode, meta.Lead()
	if o.Lead == 0 {
		o.Lead = pgfunc.DefaultLead // a classic mode, or a generator without a lead: metaFor records none
	}
	text, err := pgfunc.RenderRecordMeta(sh, o)
	if err != nil {
		return err
	}
	if got := metaOf(sh, o); got != meta {
		return fmt.Errorf("record %s's metadata: rendered %+v, its comment says %+v", sh.Schema, got, meta)
	}
	if _, err := db.ExecContext(ctx, string(text)); err != nil {
		return fmt.Errorf("record %s's metadata in next_id_meta(): %w", sh.Schema, err)
	}
	return nil
}

// Execer is what RecordMeta runs its statement on: a pool or a
// transaction.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// apply creates sh's schema and runs its goose migration, carrying on
// from the counters kept in other databases, which it then drops. The
// migration is rendered without the checks of its database that Up has
// made itself (see Options.checked).
func (m *Migrator) apply(ctx context.Context, sh pgfunc.Shard, kept []inventory.Installed) (bool, error) {
	create, err := sqlt.Query("create_schema", sqlt.Ident(sh.Schema))
	if err != nil {
		return false, err
	}
	if _, err := m.db.ExecContext(ctx, create); err != nil {
		return false, fmt.Errorf("create schema: %w", err)
	}
	connect, err := m.srv.Connector(ctx)
	if err != nil {
		return false, err
	}
	if len(kept) > 0 {
		if err := m.carryOn(ctx, sh, kept, connect); err != nil {
			return false, err
		}
	}
	p, err := m.Provider(sh, m.opts.Checked())
	if err != nil {
		return false, err
	}
	res, err := p.Up(ctx)
	err = pgfunc.MigrationError(err)
	if err == nil && len(kept) > 0 {
		err = dropKept(ctx, kept, connect)
	}
	return len(res) > 0, err
}
