package pgfunc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
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
	// Note says, when nothing was applied, why: "current", "recorded"
	// (current, and an earlier release's generator whose comment alone
	// recorded its metadata: Up recorded it in next_id_meta() too), or
	// for Down "no schema" or "no generator applied"; and "upgraded" when
	// Up replaced an earlier body in place (Installed.Upgradable).
	Note string
	// Duration is how long the shard took, checks included.
	Duration time.Duration
	// Err is nil on success. Other shards' results stand when one fails.
	Err error
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
	// Citus (citus.go): a coordinator installs on every node its own way.
	if res, ok := m.citusUp(ctx, shards, each); ok {
		return res
	}
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
			if !in.Recorded { // an earlier release's: its comment alone says who it is
				if err := m.recordMeta(ctx, m.db, sh, in.Meta); err != nil {
					return false, "", err
				}
				return false, "recorded", nil // current, its metadata now in next_id_meta() too
			}
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

// recordMeta creates next_id_meta() in sh's schema from meta, what its
// generator's comment records (see the "meta" template): the metadata of
// a generator of an earlier release, recorded where every copy keeps it.
func (m *Migrator) recordMeta(ctx context.Context, db execer, sh Shard, meta Meta) error {
	o := m.opts
	o.Layout, o.Mode, o.Lead = meta.LayoutOf(), meta.Mode, meta.Lead()
	if o.Lead == 0 {
		o.Lead = DefaultLead // a classic mode, or a generator without a lead: metaFor records none
	}
	text, err := render("record_meta", sh, o)
	if err != nil {
		return err
	}
	if got := metaFor(sh, mustNormalize(o)); got != meta {
		return fmt.Errorf("record %s's metadata: rendered %+v, its comment says %+v", sh.Schema, got, meta)
	}
	if _, err := db.ExecContext(ctx, string(text)); err != nil {
		return fmt.Errorf("record %s's metadata in next_id_meta(): %w", sh.Schema, err)
	}
	return nil
}

// execer is what recordMeta runs its statement on: a pool or a
// transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// mustNormalize is o normalized, for options already checked.
func mustNormalize(o Options) Options {
	n, err := o.normalize()
	if err != nil {
		return o
	}
	return n
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
	err = migrationError(err)
	if err == nil && len(kept) > 0 {
		err = dropKept(ctx, kept, connect)
	}
	return len(res) > 0, err
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

// migrationError marks the migration's own refusals (see
// sql/checks.sql.tmpl, by SQLSTATE) with the same sentinels as Up's; other
// errors, and nil, are returned as they are.
func migrationError(err error) error {
	if sentinel, ok := migrationStates[dialect.ErrorCode(err)]; ok && err != nil {
		return fmt.Errorf("%w: %v", sentinel, err)
	}
	return err
}
