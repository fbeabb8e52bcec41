package pgfunc

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
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
	// or shard id. Changing a live generator can repeat IDs, so it is never
	// done silently.
	ErrGeneratorMismatch = errors.New("schema has a different generator")
)

// Migrator applies shard generators through goose: one goose Provider per
// schema, whose version table lives inside the schema
// (<schema>.goose_db_version) and whose session lock id is derived from the
// schema name, so shards migrate independently and concurrently.
type Migrator struct {
	db   *sql.DB
	opts Options
}

// NewMigrator validates o and returns a Migrator over db, which must use a
// PostgreSQL driver registered as "pgx" (github.com/jackc/pgx/v5/stdlib)
// or any other database/sql PostgreSQL driver.
func NewMigrator(db *sql.DB, o Options) (*Migrator, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	return &Migrator{db: db, opts: o}, nil
}

// Result is the outcome of one shard's Up or Down.
type Result struct {
	// Shard is the shard this result is about.
	Shard Shard
	// Applied is true when a migration ran; false means the schema was
	// already in the requested state (a rerun is a no-op).
	Applied bool
	// Duration is how long the shard took, checks included.
	Duration time.Duration
	// Err is nil on success. Other shards' results stand when one fails.
	Err error
}

// Installed is a generator found on a server.
type Installed struct {
	// Schema holds the generator.
	Schema string
	// Meta is what its next_id() comment records.
	Meta Meta
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
}

// LockID is the goose session-lock id for schema: distinct per schema, so
// migrating one shard never waits for another.
func LockID(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("shardid:" + schema))
	return int64(h.Sum64() &^ (1 << 63))
}

func (m *Migrator) provider(sh Shard) (*goose.Provider, error) {
	text, err := Render(sh, m.opts)
	if err != nil {
		return nil, err
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(LockID(sh.Schema)))
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{MigrationName: {Data: text, Mode: 0o644}}
	return goose.NewProvider(goose.DialectPostgres, m.db, fsys,
		goose.WithTableName(sh.Schema+".goose_db_version"),
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
	)
}

// Discover lists every shardid generator on the server, found through the
// metadata comment on each schema's next_id().
func (m *Migrator) Discover(ctx context.Context) ([]Installed, error) {
	return discover(ctx, m.db)
}

func discover(ctx context.Context, db *sql.DB) ([]Installed, error) {
	rows, err := db.QueryContext(ctx, `
		SELECT n.nspname, pg_catalog.obj_description(p.oid, 'pg_proc')
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE p.proname = 'next_id' AND p.pronargs = 0
		ORDER BY n.nspname`)
	if err != nil {
		return nil, fmt.Errorf("discover generators: %w", err)
	}
	defer rows.Close()
	var out []Installed
	for rows.Next() {
		var schema string
		var comment sql.NullString
		if err := rows.Scan(&schema, &comment); err != nil {
			return nil, fmt.Errorf("discover generators: %w", err)
		}
		var meta Meta
		if json.Unmarshal([]byte(comment.String), &meta) != nil || meta.Tool != "shardid" {
			continue
		}
		out = append(out, Installed{Schema: schema, Meta: meta})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("discover generators: %w", err)
	}
	return out, nil
}

// check refuses a shard whose id another schema holds, or whose schema has
// a different generator.
func (m *Migrator) check(sh Shard, installed []Installed) error {
	want := metaFor(sh, m.opts)
	for _, in := range installed {
		switch {
		case in.Schema == sh.Schema && !in.Meta.sameGenerator(want):
			return fmt.Errorf("%w: %s has shard %d, mode %s, layout %d/%d/%d bits of %dms since %s; requested shard %d, mode %s, %s",
				ErrGeneratorMismatch, sh.Schema, in.Meta.Shard, in.Meta.Mode, in.Meta.TimeBits, in.Meta.ShardBits, in.Meta.SeqBits,
				in.Meta.UnitMS, time.UnixMilli(in.Meta.EpochMS).UTC().Format(time.RFC3339), sh.ID, m.opts.Mode, m.opts.Layout)
		case in.Schema != sh.Schema && in.Meta.Shard == sh.ID:
			return fmt.Errorf("%w: shard %d is already in schema %s", ErrShardConflict, sh.ID, in.Schema)
		}
	}
	return nil
}

// Up installs the generator in each shard's schema, creating the schema
// first. Each shard runs in its own goose transaction: a failed shard is
// reported in its Result and rolled back, the others' results stand, and a
// rerun completes the rest. each, if not nil, is called after every shard.
func (m *Migrator) Up(ctx context.Context, shards []Shard, each func(Result)) []Result {
	installed, discoverErr := m.Discover(ctx)
	return m.forEach(shards, each, func(sh Shard) (bool, error) {
		if discoverErr != nil {
			return false, discoverErr
		}
		if err := m.check(sh, installed); err != nil {
			return false, err
		}
		if _, err := m.db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+quoteIdent(sh.Schema)); err != nil {
			return false, fmt.Errorf("create schema: %w", err)
		}
		p, err := m.provider(sh)
		if err != nil {
			return false, err
		}
		res, err := p.Up(ctx)
		return len(res) > 0, err
	})
}

// Down removes the generator from each shard's schema (goose down by one).
// PostgreSQL refuses, and the shard reports, while a table still uses
// next_id() as a DEFAULT. The schema, its tables and its goose history
// table stay.
func (m *Migrator) Down(ctx context.Context, shards []Shard, each func(Result)) []Result {
	return m.forEach(shards, each, func(sh Shard) (bool, error) {
		p, err := m.provider(sh)
		if err != nil {
			return false, err
		}
		if v, err := p.GetDBVersion(ctx); err != nil || v == 0 {
			return false, nil // nothing applied (or no history table): nothing to undo
		}
		_, err = p.Down(ctx)
		return err == nil, err
	})
}

// forEach runs do for every shard, Options.Parallel at a time (each schema
// has its own goose lock, so they do not wait for one another), calls each
// as shards finish, one call at a time, and returns the results in the
// order of shards.
func (m *Migrator) forEach(shards []Shard, each func(Result), do func(Shard) (bool, error)) []Result {
	out := make([]Result, len(shards))
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range min(m.opts.Parallel, len(shards)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sh := shards[i]
				start := time.Now()
				applied, err := do(sh)
				if err != nil {
					err = fmt.Errorf("schema %s: %w", sh.Schema, err)
				}
				out[i] = Result{Shard: sh, Applied: applied, Duration: time.Since(start), Err: err}
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
// no shards it reports every generator Discover finds on the server.
func (m *Migrator) Status(ctx context.Context, shards []Shard) ([]Status, error) {
	installed, err := m.Discover(ctx)
	if err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		for _, in := range installed {
			shards = append(shards, Shard{Schema: in.Schema, ID: in.Meta.Shard})
		}
	}
	bySchema := map[string]Meta{}
	for _, in := range installed {
		bySchema[in.Schema] = in.Meta
	}
	out := make([]Status, 0, len(shards))
	for _, sh := range shards {
		st := Status{Shard: sh}
		if meta, ok := bySchema[sh.Schema]; ok {
			st.Installed = &meta
			st.Matches = meta.sameGenerator(metaFor(sh, m.opts))
		}
		var exists bool
		if err := m.db.QueryRowContext(ctx, `SELECT pg_catalog.to_regclass($1) IS NOT NULL`,
			quoteIdent(sh.Schema)+".goose_db_version").Scan(&exists); err != nil {
			return nil, fmt.Errorf("status %s: %w", sh.Schema, err)
		}
		if exists {
			p, err := m.provider(sh)
			if err != nil {
				return nil, fmt.Errorf("status %s: %w", sh.Schema, err)
			}
			if st.Version, err = p.GetDBVersion(ctx); err != nil {
				return nil, fmt.Errorf("status %s: %w", sh.Schema, err)
			}
		}
		out = append(out, st)
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
