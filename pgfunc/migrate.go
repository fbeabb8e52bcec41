package pgfunc

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"

	"github.com/shardid/shardid"
)

// MigrationName is the file name of a shard's generator migration inside
// its schema's goose history.
const MigrationName = "00001_shardid_next_id.sql"

// Errors returned by the Migrator.
var (
	// ErrShardConflict is returned (per shard) by Migrator.Up when another
	// schema on the same server already holds the shard id: two schemas with
	// one shard id would hand out the same IDs.
	ErrShardConflict = errors.New("shard id already used by another schema")
	// ErrGeneratorMismatch is returned (per shard) by Migrator.Up when the
	// schema already has a generator rendered with a different layout, mode
	// or shard id, or held one until a down (its counter kept as
	// next_id_retired_seq); and by Migrator.Down when the schema's
	// generator differs from the Migrator's options. Changing a generator
	// can repeat IDs, so it is never done silently.
	ErrGeneratorMismatch = errors.New("schema has a different generator")
	// ErrOutdatedGenerator is returned (per shard) by Migrator.Up and
	// Grant when the schema holds a generator applied by an older shardid
	// (see Installed.Outdated): its body is not the one this release
	// renders, and neither replaces a live generator's body.
	ErrOutdatedGenerator = errors.New("schema has a generator made by an older shardid")
	// ErrHistoryElsewhere is returned (per shard) by Migrator.Down when the
	// schema holds a generator but its own goose history
	// (<schema>.goose_db_version) does not record it: it was applied from
	// a pg gen directory by goose, whose history is that directory's
	// table. Down leaves it to that history (goose down there).
	ErrHistoryElsewhere = errors.New("generator applied outside the schema's own goose history")
)

// Migrator applies shard generators through goose: one goose Provider per
// schema, whose version table lives inside the schema
// (<schema>.goose_db_version) and whose session lock id is derived from the
// schema name, so shards migrate independently and concurrently.
type Migrator struct {
	db       *sql.DB
	opts     Options
	parallel int
	lockWait time.Duration
	margin   time.Duration
	server   *serverOptions // see server.go
}

// MigrateOptions says how a Migrator applies generators. The zero value
// migrates DefaultParallel schemas at once and looks after the whole
// server: every database of it the role may connect to, templates
// included (see Connect).
type MigrateOptions struct {
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
	// Census report what they find there, and Resume without shards moves
	// the counters there. Nil means a connector derived
	// from the Migrator's pool, which must then be a pgx stdlib pool
	// (sql.Open("pgx", …) or stdlib.OpenDB): the same host, port, role,
	// password and TLS settings, another database. NewMigrator fails with
	// ErrNoConnect for any other pool unless OwnDatabaseOnly is set.
	Connect func(ctx context.Context, database string) (*sql.DB, error)
	// OwnDatabaseOnly is the explicit opt-out of the server-wide checks:
	// Up, Status, Census and Resume look after the Migrator's database
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
}

// DefaultEndMargin is how long a layout must still last when Up applies a
// generator, unless MigrateOptions.EndMargin says otherwise.
const DefaultEndMargin = 365 * 24 * time.Hour

// ErrLayoutEnds is returned (per shard) by Migrator.Up when the layout's
// time field has ended, or ends within MigrateOptions.EndMargin.
var ErrLayoutEnds = errors.New("layout ends too soon")

// LockDatabase is the database in which Up takes its server-wide lock
// when MigrateOptions.Connect is set: "postgres", which every PostgreSQL
// server has and PUBLIC may connect to. It is fixed, not an option,
// because advisory locks are scoped to one database: two runs locking in
// two databases would not exclude each other.
const LockDatabase = "postgres"

// DefaultLockTimeout is how long Up waits for the server-wide lock unless
// MigrateOptions.LockTimeout says otherwise.
const DefaultLockTimeout = time.Minute

// ErrServerLocked is returned (per shard) by Migrator.Up when the
// server-wide lock stayed held for MigrateOptions.LockTimeout; the message
// names the sessions holding it.
var ErrServerLocked = errors.New("server lock held by another session")

// DefaultParallel is how many schemas a Migrator migrates at once unless
// MigrateOptions.Parallel says otherwise; MaxParallel is the most it
// accepts (each one holds a connection).
const (
	DefaultParallel = 4
	MaxParallel     = 64
)

// ErrInvalidParallel is returned by NewMigrator when
// MigrateOptions.Parallel is outside 0..MaxParallel.
var ErrInvalidParallel = errors.New("invalid parallelism")

// NewMigrator validates o and mo and returns a Migrator that installs the
// generator o renders, over db, which must use a PostgreSQL driver
// registered as "pgx" (github.com/jackc/pgx/v5/stdlib) or any other
// database/sql PostgreSQL driver (then with MigrateOptions.Connect or
// OwnDatabaseOnly). It returns the errors of Render's option checks,
// ErrInvalidParallel and ErrNoConnect.
func NewMigrator(db *sql.DB, o Options, mo MigrateOptions) (*Migrator, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	switch {
	case mo.Parallel < 0 || mo.Parallel > MaxParallel:
		return nil, fmt.Errorf("%w %d (allowed: 1-%d, or 0 for %d)", ErrInvalidParallel, mo.Parallel, MaxParallel, DefaultParallel)
	case mo.Parallel == 0:
		mo.Parallel = DefaultParallel
	}
	if mo.LockTimeout <= 0 {
		mo.LockTimeout = DefaultLockTimeout
	}
	server, err := newServerOptions(db, mo)
	if err != nil {
		return nil, err
	}
	return &Migrator{db: db, opts: o, parallel: mo.Parallel, lockWait: mo.LockTimeout, server: server, margin: mo.EndMargin}, nil
}

// Result is the outcome of one shard's Up or Down.
type Result struct {
	// Shard is the shard this result is about.
	Shard Shard
	// Applied is true when a migration ran; false means the schema was
	// already in the requested state (a rerun is a no-op), and Note says
	// how.
	Applied bool
	// Note says, when nothing was applied, why: "current", or for Down
	// "no schema" or "no generator applied"; and "upgraded" when Up
	// replaced an earlier body in place (Installed.Upgradable).
	Note string
	// Duration is how long the shard took, checks included.
	Duration time.Duration
	// Err is nil on success. Other shards' results stand when one fails.
	Err error
}

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

// Status is one shard's state.
type Status struct {
	// Shard is the shard asked about (or found, see Migrator.Status).
	Shard Shard
	// Version is the goose version applied in the schema (0: none).
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

// LockID is the goose session-lock id for schema: distinct per schema, so
// migrating one shard never waits for another.
func LockID(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("shardid:" + schema))
	return int64(h.Sum64() &^ (1 << 63))
}

func (m *Migrator) provider(sh Shard) (*goose.Provider, error) {
	return m.providerFor(sh, m.opts)
}

// providerFor is the goose Provider of sh's migration rendered with o.
func (m *Migrator) providerFor(sh Shard, o Options) (*goose.Provider, error) {
	text, err := Render(sh, o)
	if err != nil {
		return nil, err
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(LockID(sh.Schema)))
	if err != nil {
		return nil, err
	}
	table := sh.Schema + ".goose_db_version"
	store, err := database.NewStore(database.DialectPostgres, table)
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{MigrationName: {Data: text, Mode: 0o644}}
	return goose.NewProvider("", m.db, fsys,
		goose.WithStore(indexedStore{Store: store, table: quoteIdent(sh.Schema) + ".goose_db_version"}),
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
	)
}

// indexedStore is goose's PostgreSQL store with a cheaper TableExists:
// goose's own scans pg_tables, whose cost grows with every table on the
// server (2 ms a schema with 5,000 shards, and every schema asks), while
// to_regclass is one index lookup.
type indexedStore struct {
	database.Store
	table string // quoted schema.table
}

// TableExists reports whether the version table exists.
func (s indexedStore) TableExists(ctx context.Context, db database.DBTxConn) (bool, error) {
	q, err := query("table_exists", nil)
	if err != nil {
		return false, err
	}
	var ok bool
	err = db.QueryRowContext(ctx, q, s.table).Scan(&ok)
	return ok, err
}

// query renders the named template of sql/pg/catalog.sql.tmpl.
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

// names runs the named catalog query, which returns one text column.
func (m *Migrator) names(ctx context.Context, name string) ([]string, error) {
	q, err := query(name, nil)
	if err != nil {
		return nil, err
	}
	rows, err := m.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
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
	// OwnDatabaseOnly is true when only the Migrator's database was read
	// (MigrateOptions.OwnDatabaseOnly).
	OwnDatabaseOnly bool
}

// Census reads the generators and kept counters of the Migrator's
// database and, unless MigrateOptions.OwnDatabaseOnly, of every other
// database of the server the role may connect to, templates included.
func (m *Migrator) Census(ctx context.Context) (Census, error) {
	s, err := m.readServer(ctx)
	if err != nil {
		return Census{}, err
	}
	c := Census{Database: s.database, Template: s.template, Templates: s.templates, Closed: s.closed, OwnDatabaseOnly: s.ownOnly}
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
	return c, nil
}

// Versions returns the goose version applied in each schema (0: none,
// or no such schema), reading the catalog without creating anything.
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

// serverLockKey is the second key of Up's server-wide advisory lock; the
// first is serverLockClass ("SID2"), apart from goose's single-bigint
// lock ids.
const (
	serverLockClass = 0x53494432
	serverLockKey   = 0
)

// lockServer takes Up's server-wide lock on a connection of its own, in
// LockDatabase, or in the Migrator's database with OwnDatabaseOnly. While another session holds it, it tries again every 200 ms
// for up to MigrateOptions.LockTimeout, then fails naming the holders.
// unlock releases it.
func (m *Migrator) lockServer(ctx context.Context) (unlock func(), err error) {
	db, closeDB := m.db, func() {}
	connect, err := m.connector(ctx)
	if err != nil {
		return nil, err
	}
	if connect != nil {
		if db, err = connect(ctx, LockDatabase); err != nil {
			return nil, fmt.Errorf("server lock: database %s: %w", LockDatabase, err)
		}
		closeDB = func() { db.Close() }
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		closeDB()
		return nil, fmt.Errorf("server lock: %w", err)
	}
	fail := func(err error) (func(), error) {
		conn.Close()
		closeDB()
		return nil, err
	}
	lock, err := query("server_lock", nil)
	if err != nil {
		return fail(err)
	}
	deadline := time.Now().Add(m.lockWait)
	for {
		var got bool
		if err := conn.QueryRowContext(ctx, lock, serverLockClass, serverLockKey).Scan(&got); err != nil {
			return fail(fmt.Errorf("server lock: %w", err))
		}
		if got {
			break
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("%w for %s (in database %s): %s; shardid runs take it while they apply shards, anybody can take it with pg_advisory_lock(%d, %d)",
				ErrServerLocked, m.lockWait, LockDatabase, holders(ctx, conn), serverLockClass, serverLockKey))
		}
		select {
		case <-ctx.Done():
			return fail(fmt.Errorf("server lock: %w", ctx.Err()))
		case <-time.After(200 * time.Millisecond):
		}
	}
	return func() {
		if q, err := query("server_unlock", nil); err == nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), q, serverLockClass, serverLockKey)
		}
		conn.Close() // a session lock never outlives its connection
		closeDB()
	}, nil
}

// holders describes the sessions holding the server-wide lock, as far as
// this role may see them.
func holders(ctx context.Context, conn *sql.Conn) string {
	q, err := query("server_lock_holders", nil)
	if err != nil {
		return "holder unknown"
	}
	rows, err := conn.QueryContext(ctx, q, serverLockClass, serverLockKey)
	if err != nil {
		return "holder unknown (" + err.Error() + ")"
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pid int64
		var user, app string
		if rows.Scan(&pid, &user, &app) == nil {
			out = append(out, fmt.Sprintf("pid %d, role %s, application %q", pid, user, app))
		}
	}
	if len(out) == 0 {
		return "its holder has just let it go"
	}
	return "held by " + strings.Join(out, "; ")
}

// Up installs the generator in each shard's schema, creating the schema
// first. Each shard runs in its own goose transaction: a failed shard is
// reported in its Result and rolled back, the others' results stand, and a
// rerun completes the rest. each, if not nil, is called after every shard.
//
// Up holds a server-wide lock for the whole run (see MigrateOptions), so
// two runs cannot both create one shard id, and reads the catalog of
// every database of the server once: a shard whose schema already holds
// this generator is reported current without another round trip. It
// applies nothing in a template database (ErrTemplateDatabase) or while a
// database cannot be read (ErrUnreadDatabases, unless
// MigrateOptions.AllowUnreadDatabases); it refuses a shard id held
// anywhere on the server (ErrShardConflict) and another kind of generator
// anywhere (ErrMixedGenerators, see MigrateOptions.AllowMixed); and it
// carries on from a counter a down kept of the shard id, in whatever
// schema or database, when its options are these (ErrGeneratorMismatch
// otherwise).
func (m *Migrator) Up(ctx context.Context, shards []Shard, each func(Result)) []Result {
	var srv server
	err := CheckEnd(m.opts.Layout, m.margin, time.Now())
	if err == nil {
		var unlock func()
		if unlock, err = m.lockServer(ctx); err == nil {
			defer unlock()
			srv, err = m.readServer(ctx)
		}
	}
	if err == nil {
		err = srv.refusal(m.server.allowUnread)
	}
	found := newCensus(srv.all)
	return m.forEachNoted(shards, each, func(sh Shard) (bool, string, error) {
		if err != nil {
			return false, "", err
		}
		if err := m.check(sh, found); err != nil {
			return false, "", err
		}
		want := metaFor(sh, m.opts)
		// The metadata comment is written in the migration's own
		// transaction, with goose's version row: a schema that carries
		// this generator's comment has it applied.
		if in, ok := found.bySchema[sh.Schema]; ok && in.Upgradable {
			return m.upgrade(ctx, sh)
		}
		if in, ok := found.bySchema[sh.Schema]; ok && in.Meta.sameBody(want) {
			return false, "current", nil
		}
		kept, err := keptCounters(sh, want, srv)
		if err != nil {
			return false, "", err
		}
		if err := m.mixed(sh, want, srv); err != nil {
			return false, "", err
		}
		applied, err := m.apply(ctx, sh, kept)
		if err == nil && !applied {
			// goose's history says applied, yet the census found no
			// generator here (it returned "current" above otherwise).
			return false, "", fmt.Errorf("%w %s: %s.goose_db_version records version 1 as applied (the generator's migration, dropped by hand since, or another migration using that table), yet no generator is there; if it is shardid's, pg down clears it and up applies the generator again",
				ErrNoGenerator, sh.Schema, sh.Schema)
		}
		return applied, "", err
	})
}

// CheckEnd returns an error wrapping ErrLayoutEnds, naming the end, when
// layout l has ended at now or ends within margin of it (zero means
// DefaultEndMargin; a negative margin refuses only an ended layout), as
// Migrator.Up refuses it.
func CheckEnd(l shardid.Layout, margin time.Duration, now time.Time) error {
	switch {
	case margin == 0:
		margin = DefaultEndMargin
	case margin < 0:
		margin = 0
	}
	end := l.End()
	named := l // its preset name or its fields; the epoch is said apart
	named.Epoch = shardid.DefaultEpoch()
	name := named.String()
	switch {
	case !end.After(now):
		return fmt.Errorf("%w: layout %s with epoch %s ended at %s: every draw would raise; choose a later epoch", ErrLayoutEnds,
			name, l.Epoch.UTC().Format(time.RFC3339Nano), end.Format(time.RFC3339))
	case !end.After(now.Add(margin)):
		return fmt.Errorf("%w: layout %s with epoch %s ends at %s, within the end margin of %s: choose a later epoch, or a smaller margin", ErrLayoutEnds,
			name, l.Epoch.UTC().Format(time.RFC3339Nano), end.Format(time.RFC3339), days(margin))
	}
	return nil
}

// days writes d in days when it is a whole number of them.
func days(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.String()
}

// schemaNames lists the shards' schemas.
func schemaNames(shards []Shard) []string {
	out := make([]string, len(shards))
	for i, sh := range shards {
		out[i] = sh.Schema
	}
	return out
}

// apply creates sh's schema and runs its goose migration, carrying on
// from the counters kept in other databases, which it then drops. The
// migration is rendered without the checks of its database that Up has
// made itself (see Options.checked).
func (m *Migrator) apply(ctx context.Context, sh Shard, kept []Installed) (bool, error) {
	create, err := query("create_schema", quoteIdent(sh.Schema))
	if err != nil {
		return false, err
	}
	if _, err := m.db.ExecContext(ctx, create); err != nil {
		return false, fmt.Errorf("create schema: %w", err)
	}
	connect, err := m.connector(ctx)
	if err != nil {
		return false, err
	}
	if len(kept) > 0 {
		if err := m.adopt(ctx, sh, kept, connect); err != nil {
			return false, err
		}
	}
	o := m.opts
	o.checked = true
	p, err := m.providerFor(sh, o)
	if err != nil {
		return false, err
	}
	res, err := p.Up(ctx)
	// The migration's own refusals (see sql/pg/checks.sql.tmpl): the same
	// sentinels as Up's.
	var se interface{ SQLState() string }
	if err != nil && errors.As(err, &se) {
		if sentinel, ok := migrationStates[se.SQLState()]; ok {
			err = fmt.Errorf("%w: %v", sentinel, err)
		}
	}
	if err == nil && len(kept) > 0 {
		err = dropKept(ctx, kept, connect)
	}
	return len(res) > 0, err
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
	version int64 // the latest version applied (0: none)
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
		if err := rows.Scan(&name, &h.schema, &h.table); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read goose histories: %w", err)
		}
		out[name] = h
		if h.table {
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

// Down removes the generator from each shard's schema (goose down by one).
// PostgreSQL refuses, and the shard reports, while a table still uses
// next_id() as a DEFAULT. The schema, its tables and its goose history
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
func (m *Migrator) Down(ctx context.Context, shards []Shard, each func(Result)) []Result {
	return m.down(ctx, shards, each, func(sh Shard, in Installed) (Options, error) {
		// Down checks the counter against the clock with the layout it is
		// given: another layout, epoch or mode would let a counter far
		// ahead of the clock pass, and the next up repeat its IDs.
		if !in.Meta.sameGenerator(metaFor(sh, m.opts)) {
			return m.opts, fmt.Errorf("down: %w (give down the generator's own layout, epoch and mode, as pg status shows them)", m.mismatch(sh, in))
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
func (m *Migrator) DownInstalled(ctx context.Context, shards []Shard, asked Asked, each func(Result)) []Result {
	return m.down(ctx, shards, each, func(sh Shard, in Installed) (Options, error) {
		have, want := in.Meta, metaFor(sh, m.opts)
		if have.Shard != sh.ID ||
			asked.Layout && (have.UnitMS != want.UnitMS || have.TimeBits != want.TimeBits || have.ShardBits != want.ShardBits || have.SeqBits != want.SeqBits) ||
			asked.Epoch && have.EpochMS != want.EpochMS || asked.Mode && have.Mode != want.Mode {
			return m.opts, fmt.Errorf("down: %w (give down the generator's own options, as pg status shows them, or none)", m.mismatch(sh, in))
		}
		o := m.opts
		o.Layout, o.Mode = have.LayoutOf(), have.Mode
		o.Lead = DefaultLead // the Down does not use it, and DefaultLead suits every layout
		return o, nil
	})
}

// down is Down with the options optsFor gives for a schema holding in.
func (m *Migrator) down(ctx context.Context, shards []Shard, each func(Result), optsFor func(Shard, Installed) (Options, error)) []Result {
	hist, histErr := m.histories(ctx, schemaNames(shards))
	var found census
	if histErr == nil {
		var installed []Installed
		installed, histErr = m.Discover(ctx)
		found = newCensus(installed)
	}
	return m.forEachNoted(shards, each, func(sh Shard) (bool, string, error) {
		if histErr != nil {
			return false, "", histErr
		}
		switch h := hist[sh.Schema]; {
		case !h.schema:
			return false, "no schema", nil
		case !h.table || h.version == 0:
			if _, ok := found.bySchema[sh.Schema]; ok {
				return false, "", fmt.Errorf("%w: %s holds a generator that %s.goose_db_version does not record (applied by goose from a pg gen directory?): remove it with goose down over that directory", ErrHistoryElsewhere, sh.Schema, sh.Schema)
			}
			return false, "no generator applied", nil
		}
		o := m.opts
		if in, ok := found.bySchema[sh.Schema]; ok {
			var err error
			if o, err = optsFor(sh, in); err != nil {
				return false, "", err
			}
		}
		p, err := m.providerFor(sh, o)
		if err != nil {
			return false, "", err
		}
		_, err = p.Down(ctx)
		return err == nil, "", err
	})
}

// forEachNoted runs do for every shard, Options.Parallel at a time (each
// schema has its own goose lock, so they do not wait for one another),
// calls each as shards finish, one call at a time, and returns the results
// in the order of shards; do also says why nothing was applied.
func (m *Migrator) forEachNoted(shards []Shard, each func(Result), do func(Shard) (bool, string, error)) []Result {
	out := make([]Result, len(shards))
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range min(m.parallel, len(shards)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sh := shards[i]
				start := time.Now()
				applied, note, err := do(sh)
				if err != nil {
					err = fmt.Errorf("schema %s: %w", sh.Schema, err)
				} else if !applied && note == "" {
					note = "current"
				}
				out[i] = Result{Shard: sh, Applied: applied, Note: note, Duration: time.Since(start), Err: err}
				if each != nil {
					mu.Lock()
					each(out[i])
					mu.Unlock()
				}
			}
		}()
	}
	for i := range shards {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
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
	installed := srv.all
	if len(shards) == 0 {
		for _, in := range installed {
			if in.Database == "" && !in.Retired {
				shards = append(shards, Shard{Schema: in.Schema, ID: in.Meta.Shard})
			}
		}
	}
	found := newCensus(installed)
	hist, err := m.histories(ctx, schemaNames(shards))
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(shards))
	for _, sh := range shards {
		st := Status{Shard: sh, Version: hist[sh.Schema].version}
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
	return out, nil
}

// Files renders a goose directory for the stock goose CLI: one migration
// per shard, versioned shard id + 1, each creating its schema first. The
// stock CLI keeps one history table for the directory (goose_db_version in
// the connection's search_path) rather than one per schema.
func Files(shards []Shard, o Options) (map[string][]byte, error) {
	out := make(map[string][]byte, len(shards))
	for _, sh := range shards {
		text, err := Render(sh, o)
		if err != nil {
			return nil, err
		}
		out[fmt.Sprintf("%05d_shardid_%s.sql", sh.ID+1, sh.Schema)] = text
	}
	return out, nil
}
