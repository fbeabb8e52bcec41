package apply

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid/dialect"
	dsnpkg "github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
)

// Sentinel errors returned by the migration functions.
var (
	// ErrInvalidDSN is returned by DSN and Open when go-sql-driver/mysql
	// cannot parse the DSN.
	ErrInvalidDSN = errors.New("invalid MySQL DSN")
	// ErrInvalidTableName is returned by NewMigrator when the goose version
	// table name is not a plain identifier (optionally schema-qualified).
	ErrInvalidTableName = errors.New("invalid goose version table name")
	// ErrMigrationFile is returned by ReadDir and NewMigrator when a file
	// is not a goose migration shardid can run (a TiDB-only file must hold
	// exactly one Up statement), and by Migrations when two steps would get
	// the same file name or version.
	ErrMigrationFile = errors.New("malformed migration file")
	// ErrNoMigrations is returned by ReadDir when the directory is missing
	// or holds no NNNNN_name.sql file.
	ErrNoMigrations = errors.New("no goose migrations")
	// ErrTableExists is returned by Migrator.Up when a CREATE TABLE
	// migration meets a table that already exists. Nothing is recorded:
	// shardid creates tables, it never adopts one, because the migration's
	// Down would drop a table (and its rows) it did not create.
	ErrTableExists = errors.New("table already exists")
	// ErrVersionTaken is returned by Migrator.Up when goose's history
	// gained the version of a step while Up ran, from outside shardid
	// (shardid runs wait for each other's lock): the step did not run,
	// and the results before it stand.
	ErrVersionTaken = errors.New("version taken meanwhile")
)

// beforeApply, when set (by the package's tests), runs before Up applies
// each step, with the step's version: the moment another writer of
// goose's history would have to strike.
var beforeApply func(version int64)

// TiDBOnlyMarker is the comment line that marks a migration file whose
// statement only TiDB accepts (SPLIT TABLE). The stock goose CLI runs such a
// file as plain SQL, so point it at TiDB; a Migrator runs it only when the
// server is TiDB and records it as applied everywhere.
const TiDBOnlyMarker = "shardid: TiDB only; on other servers `shardid tidb up` records this migration without running it."

// DSN returns dsn with parseTime=true added (goose's tidb dialect scans
// timestamps into time.Time), checked by go-sql-driver/mysql. It returns an
// error wrapping ErrInvalidDSN; a URL (mysql://…) gets a hint at the form
// go-sql-driver/mysql wants.
func DSN(dsn string) (string, error) {
	if strings.Contains(dsn, "://") {
		return "", fmt.Errorf("%w: a URL; go-sql-driver/mysql wants user:password@tcp(host:4000)/db", ErrInvalidDSN)
	}
	cfg, err := dsnpkg.MySQLConfig(dsn)
	if err != nil {
		return "", fmt.Errorf("%w: %v (want user:password@tcp(host:4000)/db)", ErrInvalidDSN, err)
	}
	cfg.ParseTime = true
	return cfg.FormatDSN(), nil
}

// Open opens a database handle for dsn after DSN has added parseTime=true.
func Open(dsn string) (*sql.DB, error) {
	full, err := DSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg, err := dsnpkg.MySQLConfig(full)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidDSN, err)
	}
	return dsnpkg.PoolMySQL(cfg)
}

// Options configures the apply stage: how Migrations numbers the files
// and how NewMigrator records them. The zero value derives each version
// from the statement and uses goose's default version table,
// goose_db_version, in the DSN's database.
type Options struct {
	// TableName is the goose version table, unquoted: name or
	// schema.name, each part letters, digits and _. "" means
	// goose_db_version.
	TableName string
	// Verbose makes goose log each migration.
	Verbose bool
	// Dir is an existing goose directory to continue (tidb gen), or nil.
	//
	// Nil leaves the numbering to the Migrator (tidb up FILE): each file
	// starts with a version derived from its statement text (a hash, at
	// most 2^53, what the previous release applied), and NewMigrator's
	// migrator numbers it against the server's history before anything
	// runs: a step recorded with the same statements keeps its recorded
	// version, whichever numbering applied it; a new step is numbered
	// after the highest version in use, as a directory's are; a changed
	// table is a new step (whose CREATE then meets the existing table and
	// is refused). Run such migrations with a Migrator, which applies them
	// in the order given.
	//
	// A directory keeps the numbering the stock goose CLI expects: a step
	// (kind and table) that already has a file there keeps that file's name
	// and version, so rendering the same input again gives identical files
	// and a changed step gives a changed file (which internal/gooseup
	// refuses to overwrite); new steps are numbered after the highest
	// version present.
	Dir fs.FS
	// LockTimeout is how long Migrator.Up waits for the run lock (LockName)
	// while another run for the same database and version table holds it:
	// two runs at once take turns, the second numbering its new steps after
	// what the first applied. It is rounded up to whole seconds (TiDB waits
	// 1 s at least); 0 means DefaultLockTimeout, a minute; above an hour is
	// refused.
	LockTimeout time.Duration
}

// Validate returns an error wrapping ErrInvalidTableName for a bad
// TableName, or ErrInvalidLockTimeout for a bad LockTimeout.
func (o Options) Validate() error {
	if err := checkLockTimeout(o.LockTimeout); err != nil {
		return err
	}
	if o.TableName == "" {
		return nil
	}
	return checkTableName(o.TableName)
}

// Migrator applies a list of migrations, in the list's order, with goose's
// tidb dialect over go-sql-driver/mysql. TiDB-only files become Go
// migrations that run their statement only when the server says it is
// TiDB (SELECT VERSION()), so the same migrations apply to MySQL and
// MariaDB, where they are recorded without running.
type Migrator struct {
	db    *sql.DB
	o     Options
	given []Migration // as NewMigrator got them, before number
	// settling guards what ready sets: p, list and backfill, and
	// settled, which says that they are set.
	settling sync.Mutex
	settled  bool
	p        *goose.Provider
	list     []Migration // given, numbered against the server
	// backfill holds the applied versions number found with no step
	// name recorded, for Up to record (prepareSteps).
	backfill []Migration

	mu      sync.Mutex
	target  tidb.Target     // what the server is, asked once
	version string          // its VERSION()
	skipped map[int64]bool  // TiDB-only versions recorded without running
	fkNames map[string]bool // table "\x00" FOREIGN KEY added by an applied migration (Verify)
	full    []string        // what the statement Verify checks made that cannot take an insert
}

// NewMigrator returns a Migrator for ms (from Migrations or ReadDir) over
// db. Its first Up, Status, Verify or Provider settles the versions
// against the server: it creates shardid_tidb_steps beside goose's version
// table, which names the step (the file name after the version) and the
// statements of each version a Migrator applied, and numbers the
// migrations by it (Options.Dir). It returns errors wrapping ErrInvalidTableName and ErrMigrationFile,
// and goose's own errors.
func NewMigrator(db *sql.DB, ms []Migration, o Options) (*Migrator, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	m := &Migrator{db: db, given: slices.Clone(ms), list: slices.Clone(ms), skipped: map[int64]bool{}, o: o}
	for _, mg := range ms {
		if mg.TiDBOnly {
			if _, err := upStatement(mg.Text); err != nil {
				return nil, fmt.Errorf("%w %s: %v", ErrMigrationFile, mg.Name, err)
			}
		}
	}
	return m, nil
}

// provider builds the goose Provider over m.list, once its versions are
// settled (number).
func (m *Migrator) provider() (*goose.Provider, error) {
	opts := []goose.ProviderOption{goose.WithVerbose(m.o.Verbose), goose.WithAllowOutofOrder(true)}
	files := map[string][]byte{}
	var exclude []string
	var gos []*goose.Migration
	for _, mg := range m.list {
		files[mg.Name] = []byte(mg.Text)
		if !mg.TiDBOnly {
			continue
		}
		stmt, err := upStatement(mg.Text)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrMigrationFile, mg.Name, err)
		}
		exclude = append(exclude, mg.Name)
		gos = append(gos, goose.NewGoMigration(mg.Version, &goose.GoFunc{RunDB: m.tidbOnly(mg.Version, stmt)}, &goose.GoFunc{RunDB: func(context.Context, *sql.DB) error { return nil }}))
	}
	if len(exclude) > 0 {
		opts = append(opts, goose.WithExcludeNames(exclude), goose.WithGoMigrations(gos...))
	}
	p, err := gooseup.NewProvider(m.db, dialect.TiDB, files, gooseup.Options{History: m.history(), Goose: opts})
	if err != nil {
		return nil, fmt.Errorf("goose provider: %w", err)
	}
	return p, nil
}

// ready numbers the given migrations against the server's history and
// builds the goose Provider over them, unless that is done and again is
// false. Up does it again under the run lock: what was read before may
// have changed.
func (m *Migrator) ready(ctx context.Context, again bool) error {
	m.settling.Lock()
	defer m.settling.Unlock()
	if m.settled && !again {
		return nil
	}
	m.settled, m.list, m.backfill = false, slices.Clone(m.given), nil
	if err := m.number(ctx); err != nil {
		return err
	}
	p, err := m.provider()
	if err != nil {
		return err
	}
	m.p, m.settled = p, true
	return nil
}

// Provider returns the goose Provider underneath, for what Migrator does
// not offer (Down, DownTo), its versions numbered against the server's
// history as Up numbers them; its Up applies in version order, which need
// not be the order needed. It returns the error of reading that history.
func (m *Migrator) Provider(ctx context.Context) (*goose.Provider, error) {
	if err := m.ready(ctx, false); err != nil {
		return nil, err
	}
	return m.p, nil
}

// Result is what Up did with one migration.
type Result struct {
	// Migration is the file.
	Migration Migration
	// Applied is false when goose's history already held it (nothing ran).
	Applied bool
	// Skipped reports a TiDB-only statement recorded without running
	// because the server is not TiDB.
	Skipped bool
	// Duration is how long it took.
	Duration time.Duration
}

// Up applies the pending migrations in the list's order and returns a
// result for every migration, applied now or before. It holds the run
// lock (LockName) from before it reads the history to its end, so a
// second run for the same database and version table waits up to
// Options.LockTimeout (then fails with ErrLocked) and numbers its steps
// against what the first applied. Before it applies
// anything it refuses migrations rendered for other servers
// (ErrWrongServer) and collations or character sets the server lacks
// (script.ErrCollation), and on TiDB tables TiDB would refuse (ErrTiDBRefuses).
// It stops at the first failure, which leaves that migration unrecorded,
// and says how many are applied and how to go on; an existing table gives
// an error wrapping ErrTableExists.
func (m *Migrator) Up(ctx context.Context) ([]Result, error) {
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := m.ready(ctx, true); err != nil { // under the lock: what was read before is stale
		return nil, err
	}
	st, err := m.Status(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.checkServer(ctx, st); err != nil {
		return nil, err
	}
	if err := m.checkCollations(ctx, st); err != nil {
		return nil, err
	}
	if err := m.checkRefusals(ctx, st); err != nil {
		return nil, err
	}
	if err := m.prepareSteps(ctx); err != nil {
		return nil, err
	}
	var out []Result
	before, now := 0, 0
	for _, s := range st {
		if s.Applied {
			before++
		}
	}
	// stopped says how far a failed run got and how to go on.
	stopped := func() string {
		return fmt.Sprintf("%d of %d migrations applied (%d by this run); this one is not recorded and the %d after it were not run: fix it and run up again, which skips what is applied", before+now, len(st), now, len(st)-before-now-1)
	}
	for _, s := range st {
		if s.Applied {
			out = append(out, Result{Migration: s.Migration})
			continue
		}
		if beforeApply != nil {
			beforeApply(s.Migration.Version)
		}
		r, err := m.p.ApplyVersion(ctx, s.Migration.Version, true)
		if errors.Is(err, goose.ErrAlreadyApplied) {
			// Another shardid up waits for the run lock, so the version
			// was taken meanwhile by something else (the goose CLI over a
			// gen directory): this step's statements did not run.
			return out, fmt.Errorf("%s: %w: version %d was applied meanwhile by something other than shardid tidb up (the goose CLI over a gen directory?), so this step's statements did not run; run up again, which numbers it after (%s)", s.Migration.Name, ErrVersionTaken, s.Migration.Version, stopped())
		}
		if err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1050 {
				return out, fmt.Errorf("%s: %w: %s (error %d); shardid tidb up creates tables, it never adopts one, because its Down would drop a table it did not create. Compare SHOW CREATE TABLE with shardid tidb render; for an existing table use render --alter; if an earlier run created it and stopped before recording, drop it and run up again (%s)", s.Migration.Name, ErrTableExists, me.Message, me.Number, stopped())
			}
			return out, fmt.Errorf("%s: %w (%s)", s.Migration.Name, err, stopped())
		}
		if err := m.record(ctx, s.Migration); err != nil {
			return out, fmt.Errorf("%s: applied, but its step name was not recorded: %w (%s)", s.Migration.Name, err, stopped())
		}
		now++
		m.mu.Lock()
		skipped := m.skipped[s.Migration.Version]
		m.mu.Unlock()
		out = append(out, Result{Migration: s.Migration, Applied: true, Skipped: skipped, Duration: r.Duration})
	}
	return out, nil
}

// Status is one migration's state in the goose history.
type Status struct {
	// Migration is the file.
	Migration Migration
	// Applied reports that the history holds it, since AppliedAt.
	Applied   bool
	AppliedAt time.Time
	// Skipped reports a TiDB-only migration the history holds although
	// its statement never ran: the server is not TiDB, so Up recorded it
	// without running it.
	Skipped bool
	// Drift lists how the server differs from what the applied migration
	// made (Verify only): a table dropped or changed, a view, FOREIGN KEY
	// or routine gone.
	Drift []string
	// Unchecked says what Verify could not compare, and why.
	Unchecked []string
	// Full lists the tables the migration created that cannot take an
	// insert (Verify, on TiDB): the next row id or AUTO_RANDOM increment
	// is past the room the shard bits leave it.
	Full []string
}

// Status returns the state of every migration, in the list's order.
func (m *Migrator) Status(ctx context.Context) ([]Status, error) {
	if err := m.ready(ctx, false); err != nil {
		return nil, err
	}
	st, err := m.p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("goose status: %w", err)
	}
	byVersion := map[int64]*goose.MigrationStatus{}
	for _, s := range st {
		byVersion[s.Source.Version] = s
	}
	out := make([]Status, 0, len(m.list))
	for _, mg := range m.list {
		s := Status{Migration: mg}
		if gs := byVersion[mg.Version]; gs != nil && gs.State == goose.StateApplied {
			s.Applied, s.AppliedAt = true, gs.AppliedAt
		}
		if s.Applied && mg.TiDBOnly {
			tidb, err := m.isTiDB(ctx)
			if err != nil {
				return nil, err
			}
			s.Skipped = !tidb
		}
		out = append(out, s)
	}
	return out, nil
}

// ErrWrongServer is returned by Migrator.Up, before it applies anything,
// when a pending migration was rendered for other servers than the one it
// reaches (OnlyOnMarker): e.g. a CREATE TABLE rendered for TiDB, whose
// AUTO_RANDOM key MySQL would read as a plain column.
var ErrWrongServer = errors.New("migration rendered for another server")

// checkServer refuses pending migrations the server would not read as
// intended.
func (m *Migrator) checkServer(ctx context.Context, st []Status) error {
	for _, s := range st {
		if s.Applied || len(s.Migration.OnlyOn) == 0 {
			continue
		}
		target, version, err := m.server(ctx)
		if err != nil {
			return err
		}
		if slices.Contains(s.Migration.OnlyOn, target) {
			continue
		}
		return fmt.Errorf("%s: %w: it reads as intended only on %s and the server is %s (%s); nothing was applied: render again for it (shardid tidb gen --target %s, or tidb up with the scripts, which renders for the server it reaches)",
			s.Migration.Name, ErrWrongServer, targetList(s.Migration.OnlyOn), target.ServerName(), version, target)
	}
	return nil
}

// targetList names targets as servers: "TiDB and MariaDB".
func targetList(ts []tidb.Target) string {
	var names []string
	for _, t := range ts {
		names = append(names, t.ServerName())
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// server asks the server once what it is.
func (m *Migrator) server(ctx context.Context) (tidb.Target, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.target == "" {
		t, v, err := tidb.ServerTarget(ctx, m.db)
		if err != nil {
			return "", "", err
		}
		m.target, m.version = t, v
	}
	return m.target, m.version, nil
}

// isTiDB asks the server once whether it is TiDB.
func (m *Migrator) isTiDB(ctx context.Context) (bool, error) {
	t, _, err := m.server(ctx)
	return t == tidb.TargetTiDB, err
}

// tidbOnly returns a migration function that runs stmt on TiDB and records
// the version as skipped elsewhere.
func (m *Migrator) tidbOnly(version int64, stmt string) func(context.Context, *sql.DB) error {
	return func(ctx context.Context, db *sql.DB) error {
		tidb, err := m.isTiDB(ctx)
		if err != nil {
			return err
		}
		if !tidb {
			m.mu.Lock()
			m.skipped[version] = true
			m.mu.Unlock()
			return nil
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("run %.40s…: %w", stmt, err)
		}
		return nil
	}
}

// IsTiDB reports whether the server behind db is TiDB: its VERSION()
// carries "TiDB".
func IsTiDB(ctx context.Context, db *sql.DB) (bool, error) {
	t, _, err := tidb.ServerTarget(ctx, db)
	return t == tidb.TargetTiDB, err
}

// upStatement returns the single statement between "-- +goose Up" and
// "-- +goose Down", without comment lines and the final semicolon,
// checked with TiDB's parser.
func upStatement(text string) (string, error) {
	_, up, ok := strings.Cut(text, "-- +goose Up\n")
	if !ok {
		return "", errors.New("no -- +goose Up")
	}
	up, _, _ = strings.Cut(up, "-- +goose Down")
	var lines []string
	for _, l := range strings.Split(up, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
			lines = append(lines, l)
		}
	}
	stmt := strings.TrimSuffix(strings.TrimSpace(strings.Join(lines, "\n")), ";")
	stmts, err := script.ParseSQL(parser.New(), stmt)
	if err != nil || len(stmts) != 1 {
		return "", fmt.Errorf("want exactly one Up statement (%d found, %v)", len(stmts), err)
	}
	return stmt, nil
}

// checkTableName returns an error wrapping ErrInvalidTableName unless name
// is [schema.]table with each part a plain identifier.
func checkTableName(name string) error {
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return fmt.Errorf("%w %q: want name or schema.name", ErrInvalidTableName, name)
	}
	for _, p := range parts {
		if p == "" || len(p) > 64 || strings.TrimFunc(p, func(r rune) bool {
			return r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		}) != "" {
			return fmt.Errorf("%w %q: want letters, digits, _ and $ (name or schema.name)", ErrInvalidTableName, name)
		}
	}
	return nil
}
