package tidb

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pressly/goose/v3"
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
)

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
	cfg, err := mysql.ParseDSN(dsn)
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
	cfg, err := mysql.ParseDSN(full)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidDSN, err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return sql.OpenDB(conn), nil
}

// Migration is one goose migration file holding one statement.
type Migration struct {
	// Version is the goose version.
	Version int64
	// Name is the file name, VERSION_KIND_TABLE.sql.
	Name string
	// Kind is what the statement does ("" for a file shardid did not
	// write).
	Kind Kind
	// Table is the table the statement works on, schema-qualified when the
	// input was ("" for a file shardid did not write).
	Table string
	// TiDBOnly marks a statement only TiDB runs (TiDBOnlyMarker).
	TiDBOnly bool
	// OnlyOn lists the servers the file reads right on (OnlyOnMarker), nil
	// for all.
	OnlyOn []Target
	// Text is the file's content.
	Text string
}

// MigrationOptions says how Migrations numbers the files. The zero value
// derives each version from the statement.
type MigrationOptions struct {
	// Dir is an existing goose directory to continue (tidb gen), or nil.
	//
	// Nil derives each file's version from its statement text (a hash, at
	// most 2^53): the same statement always gets the same version, so the
	// goose history says whether exactly that statement was applied,
	// whatever was applied before or after it, and a changed table is a new
	// version (whose CREATE then meets the existing table and is refused).
	// Such versions are not in apply order: run them with a Migrator, which
	// applies them in the order given.
	//
	// A directory keeps the numbering the stock goose CLI expects: a step
	// (kind and table) that already has a file there keeps that file's name
	// and version, so rendering the same input again gives identical files
	// and a changed step gives a changed file (which internal/migdir
	// refuses to overwrite); new steps are numbered after the highest
	// version present.
	Dir fs.FS
}

// migrationView is the data of migration.sql.tmpl.
type migrationView struct {
	Comment        []string
	TiDBOnly       bool
	TiDBOnlyMarker string
	OnlyOn         string // "tidb, mariadb": the OnlyOnMarker line, or ""
	OnlyOnMarker   string
	Transaction    bool
	Up             []string
	Down           string
}

// OnlyOnMarker starts the comment line that names the servers a migration
// reads right on (Statement.OnlyOn), e.g. "shardid: only on tidb,
// mariadb"; a Migrator refuses the file on any other server.
const OnlyOnMarker = "shardid: only on "

// unit is one migration to write.
type unit struct {
	kind     Kind
	object   string // the table (schema-qualified when the input was) or view or routine
	step     string // the file name part after the version
	comment  []string
	up       []string
	down     string
	tx       bool
	tidbOnly bool
	onlyOn   []Target
}

// Migrations returns goose migration files for the rendered tables, in the
// order they must run: one statement per file, each outside a transaction
// (TiDB DDL is not transactional), wrapped in StatementBegin/End so that
// goose never splits it. A CREATE TABLE file creates the table without IF
// NOT EXISTS (a table that already exists is refused, never adopted) and
// drops it on Down; SPLIT TABLE files carry TiDBOnlyMarker. It returns
// errors wrapping ErrMigrationFile.
func Migrations(ddls []*DDL, o MigrationOptions) ([]Migration, error) {
	return (&Plan{Tables: ddls}).Migrations(o)
}

// Migrations returns goose migration files for the whole plan, in the
// order they must run: the tables (as the package-level Migrations), then
// the FOREIGN KEYs that close cycles, then data, views and routines in
// script order. A data step is one file run in one transaction, its
// statements between the SET that gives them their session and the SET
// that puts it back. A file whose text reads right only on some servers
// names them after OnlyOnMarker. It returns errors wrapping
// ErrMigrationFile.
func (p *Plan) Migrations(o MigrationOptions) ([]Migration, error) {
	var units []unit
	for _, d := range p.Tables {
		drop, err := execute("drop_table.sql.tmpl", d.Table)
		if err != nil {
			return nil, fmt.Errorf("migrations %s: %w", d.Table.Name, err)
		}
		for _, s := range d.Statements {
			if s.Kind == KindSession {
				return nil, fmt.Errorf("%w: %s: %s must run on the session of the statement after it, which goose does not promise: run the rendered statements in one session instead", ErrMigrationFile, d.Table.Name, s.SQL)
			}
			u := unit{kind: s.Kind, object: d.Table.QualifiedName(), step: string(s.Kind) + "_" + fileWord(d.Table.QualifiedName()), up: []string{s.SQL}, down: s.down, tidbOnly: s.TiDBOnly, onlyOn: s.OnlyOn}
			u.comment = append(u.comment, fmt.Sprintf("%s %s, strategy %s: %s", s.Kind, d.Table.QualifiedName(), d.Options.Strategy, d.Reason))
			if s.Kind == KindCreate {
				u.up, u.down = []string{s.plain}, drop
				for _, n := range d.Notes {
					u.comment = append(u.comment, "changed: "+n)
				}
				if d.Table.IfNotExists {
					u.comment = append(u.comment, "changed: IF NOT EXISTS left out: a table that already exists is refused, never adopted")
				}
				for _, w := range d.Costs {
					u.comment = append(u.comment, "cost: "+w)
				}
				for _, w := range d.Warnings {
					u.comment = append(u.comment, "hotspot: "+w)
				}
				for _, w := range d.KeyWarnings {
					u.comment = append(u.comment, "warning: "+w)
				}
			}
			units = append(units, u)
		}
	}
	for _, group := range [][]*Step{p.ForeignKeys, p.Steps} {
		for _, st := range group {
			u := unit{kind: st.Kind, object: st.Object, step: st.name, up: st.Statements, down: st.Down, tx: st.Transaction, onlyOn: st.OnlyOn}
			if u.step == "" {
				u.step = string(st.Kind) + "_" + fileWord(st.Object)
			}
			u.comment = append([]string{fmt.Sprintf("%s %s", st.Kind, cmp.Or(st.Object, "(unnamed)"))}, st.Comment...)
			for _, s := range st.Statements {
				for _, l := range strings.Split(s, "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "-- +goose") {
						return nil, fmt.Errorf("%w: %s %s holds a line goose reads as an annotation (%q): apply it by hand", ErrMigrationFile, st.Kind, st.Object, strings.TrimSpace(l))
					}
				}
			}
			units = append(units, u)
		}
	}
	return writeUnits(units, o)
}

// writeUnits numbers the units and writes their files.
func writeUnits(units []unit, o MigrationOptions) ([]Migration, error) {
	var existing map[string]string // step → file name in o.Dir
	var next int64 = 1
	if o.Dir != nil {
		var err error
		if existing, next, err = steps(o.Dir); err != nil {
			return nil, err
		}
	}
	var out []Migration
	seen := map[string]string{} // name or version → object
	for _, u := range units {
		mv := migrationView{Comment: u.comment, TiDBOnly: u.tidbOnly, TiDBOnlyMarker: TiDBOnlyMarker, Transaction: u.tx, Up: u.up, Down: u.down, OnlyOnMarker: OnlyOnMarker}
		if len(u.onlyOn) > 0 {
			var names []string
			for _, t := range u.onlyOn {
				names = append(names, string(t))
			}
			mv.OnlyOn = strings.Join(names, ", ")
		}
		for i, c := range mv.Comment { // keep goose from reading a name as an annotation
			mv.Comment[i] = strings.ReplaceAll(strings.ReplaceAll(c, "+goose", "+ goose"), "\n", " ")
		}
		text, err := execute("migration.sql.tmpl", mv)
		if err != nil {
			return nil, fmt.Errorf("migrations %s: %w", u.object, err)
		}
		m := Migration{Kind: u.kind, Table: u.object, TiDBOnly: u.tidbOnly, OnlyOn: u.onlyOn, Text: text + "\n"}
		switch name, ok := existing[u.step]; {
		case o.Dir == nil:
			m.Version = contentVersion(strings.Join(u.up, ";\n"))
			m.Name = fmt.Sprintf("%d_%s.sql", m.Version, u.step)
		case ok:
			m.Name = name
			m.Version, _ = goose.NumericComponent(name)
		default:
			m.Version, next = next, next+1
			m.Name = fmt.Sprintf("%05d_%s.sql", m.Version, u.step)
		}
		for _, key := range []string{u.step, strconv.FormatInt(m.Version, 10)} {
			if other, dup := seen[key]; dup {
				return nil, fmt.Errorf("%w: %s %s and %s would share the migration %s (tables must differ in more than case and punctuation, and appear once)", ErrMigrationFile, u.kind, other, m.Table, m.Name)
			}
			seen[key] = m.Table
		}
		out = append(out, m)
	}
	return out, nil
}

// contentVersion derives a goose version from a statement: the first 53
// bits of its SHA-256, plus one (versions start at 1). 53 bits keep it
// exact wherever the version table is read as a double (JavaScript, JSON).
func contentVersion(stmt string) int64 {
	h := sha256.Sum256([]byte(stmt))
	return int64(binary.BigEndian.Uint64(h[:8])>>11) + 1
}

// steps maps each migration file in dir to its step (the name after the
// version) and returns one more than the highest version.
func steps(dir fs.FS) (map[string]string, int64, error) {
	names, err := fs.Glob(dir, "*.sql")
	if err != nil {
		return nil, 0, fmt.Errorf("list migrations: %w", err)
	}
	out := map[string]string{}
	var top int64
	for _, n := range names {
		v, err := goose.NumericComponent(n)
		if err != nil {
			continue
		}
		top = max(top, v)
		_, step, _ := strings.Cut(strings.TrimSuffix(n, ".sql"), "_")
		out[step] = n
	}
	return out, top + 1, nil
}

// fileWord lower-cases a table name and keeps letters, digits and _, so it
// can sit in a file name.
func fileWord(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	return sb.String()
}

// Files returns the migrations as file name → content, for
// internal/migdir.Write or MapFS.
func Files(ms []Migration) map[string][]byte {
	out := make(map[string][]byte, len(ms))
	for _, m := range ms {
		out[m.Name] = []byte(m.Text)
	}
	return out
}

// ReadDir reads the goose migration files (NNNNN_name.sql) at the root of
// fsys, in version order, as tidb gen writes them (files written by hand
// are read too; their Kind and Table stay empty). It returns errors
// wrapping ErrNoMigrations and ErrMigrationFile.
func ReadDir(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoMigrations, err)
	}
	var out []Migration
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v (want NNNNN_name.sql)", ErrMigrationFile, e.Name(), err)
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration: %w", err)
		}
		m := Migration{Version: v, Name: e.Name(), Text: string(b), TiDBOnly: strings.Contains(string(b), TiDBOnlyMarker), OnlyOn: onlyOn(string(b))}
		_, step, _ := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		for _, k := range []Kind{KindCreate, KindAlter, KindSplit, KindIndex, KindForeignKey, KindData, KindView, KindRoutine} {
			if rest, ok := strings.CutPrefix(step, string(k)+"_"); ok && strings.Contains(m.Text, "-- Rendered by shardid: ") {
				m.Kind, m.Table = k, rest
			}
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no NNNNN_name.sql files (write them with shardid tidb gen)", ErrNoMigrations)
	}
	slices.SortFunc(out, func(a, b Migration) int { return int(min(max(a.Version-b.Version, -1), 1)) })
	return out, nil
}

// onlyOn reads the servers an OnlyOnMarker line of a migration names.
func onlyOn(text string) []Target {
	_, rest, ok := strings.Cut(text, "-- "+OnlyOnMarker)
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, " (")
	rest, _, _ = strings.Cut(rest, "\n")
	var out []Target
	for _, f := range strings.Split(rest, ",") {
		if t, err := ParseTarget(strings.TrimSpace(f)); err == nil && strings.TrimSpace(f) != "" {
			out = append(out, t)
		}
	}
	return out
}

// MapFS returns files (name → content) as a file system.
func MapFS(files map[string][]byte) fs.FS {
	m := fstest.MapFS{}
	for name, text := range files {
		m[name] = &fstest.MapFile{Data: text, Mode: 0o644}
	}
	return m
}

// ProviderOptions configures NewMigrator. The zero value uses goose's
// default version table, goose_db_version, in the DSN's database.
type ProviderOptions struct {
	// TableName is the goose version table, unquoted: name or
	// schema.name, each part letters, digits and _. "" means
	// goose_db_version.
	TableName string
	// Verbose makes goose log each migration.
	Verbose bool
}

// Validate returns an error wrapping ErrInvalidTableName for a bad
// TableName.
func (o ProviderOptions) Validate() error {
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
	db   *sql.DB
	p    *goose.Provider
	list []Migration

	mu      sync.Mutex
	target  Target          // what the server is, asked once
	version string          // its VERSION()
	skipped map[int64]bool  // TiDB-only versions recorded without running
	fkNames map[string]bool // table "\x00" FOREIGN KEY added by an applied migration (Verify)
}

// NewMigrator returns a Migrator for ms (from Migrations or ReadDir) over
// db. It returns errors wrapping ErrInvalidTableName and ErrMigrationFile,
// and goose's own errors.
func NewMigrator(db *sql.DB, ms []Migration, o ProviderOptions) (*Migrator, error) {
	m := &Migrator{db: db, list: ms, skipped: map[int64]bool{}}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithVerbose(o.Verbose), goose.WithAllowOutofOrder(true)}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.TableName != "" {
		opts = append(opts, goose.WithTableName(o.TableName))
	}
	files := map[string][]byte{}
	var exclude []string
	var gos []*goose.Migration
	for _, mg := range ms {
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
	p, err := goose.NewProvider(goose.DialectTiDB, db, MapFS(files), opts...)
	if err != nil {
		return nil, fmt.Errorf("goose provider: %w", err)
	}
	m.p = p
	return m, nil
}

// Provider returns the goose Provider underneath, for what Migrator does
// not offer (Down, DownTo); its Up applies in version order, which for
// content versions (MigrationOptions.Dir nil) is not the order needed.
func (m *Migrator) Provider() *goose.Provider { return m.p }

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
// result for every migration, applied now or before. Before it applies
// anything it refuses migrations rendered for other servers
// (ErrWrongServer) and collations or character sets the server lacks
// (ErrCollation). It stops at the first failure, which leaves that
// migration unrecorded; an existing table gives an error wrapping
// ErrTableExists.
func (m *Migrator) Up(ctx context.Context) ([]Result, error) {
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
	var out []Result
	for _, s := range st {
		if s.Applied {
			out = append(out, Result{Migration: s.Migration})
			continue
		}
		r, err := m.p.ApplyVersion(ctx, s.Migration.Version, true)
		if errors.Is(err, goose.ErrAlreadyApplied) { // applied meanwhile by another run
			out = append(out, Result{Migration: s.Migration})
			continue
		}
		if err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1050 {
				return out, fmt.Errorf("%s: %w: %s (error %d); shardid tidb up creates tables, it never adopts one, because its Down would drop a table it did not create. Compare SHOW CREATE TABLE with shardid tidb render; for an existing table use render --alter; if an earlier run created it and stopped before recording, drop it and run up again", s.Migration.Name, ErrTableExists, me.Message, me.Number)
			}
			return out, fmt.Errorf("%s: %w", s.Migration.Name, err)
		}
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
}

// Status returns the state of every migration, in the list's order.
func (m *Migrator) Status(ctx context.Context) ([]Status, error) {
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
			s.Migration.Name, ErrWrongServer, targetList(s.Migration.OnlyOn), target.serverName(), version, target)
	}
	return nil
}

// targetList names targets as servers: "TiDB and MariaDB".
func targetList(ts []Target) string {
	var names []string
	for _, t := range ts {
		names = append(names, t.serverName())
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// server asks the server once what it is.
func (m *Migrator) server(ctx context.Context) (Target, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.target == "" {
		t, v, err := ServerTarget(ctx, m.db)
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
	return t == TargetTiDB, err
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
	t, _, err := ServerTarget(ctx, db)
	return t == TargetTiDB, err
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
	stmts, err := parseSQL(parser.New(), stmt)
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
