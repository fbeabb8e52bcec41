package tidb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/go-sql-driver/mysql"
	"github.com/pressly/goose/v3"
)

// Sentinel errors returned by the migration functions.
var (
	// ErrInvalidDSN is returned by DSN and Open when go-sql-driver/mysql
	// cannot parse the DSN.
	ErrInvalidDSN = errors.New("invalid MySQL DSN")
	// ErrInvalidTableName is returned by NewProvider when the goose version
	// table name is not a plain identifier (optionally schema-qualified).
	ErrInvalidTableName = errors.New("invalid goose version table name")
	// ErrMigrationFile is returned by NewProvider when a TiDB-only migration
	// file does not hold exactly one Up statement.
	ErrMigrationFile = errors.New("malformed migration file")
)

// TiDBOnlyMarker is the comment line that marks a migration file whose
// statement only TiDB accepts (SPLIT TABLE). The stock goose CLI runs such a
// file as plain SQL, so point it at TiDB; NewProvider runs it only when the
// server is TiDB and records it as applied everywhere.
const TiDBOnlyMarker = "shardid: TiDB only; on other servers `shardid tidb up` records this migration without running it."

// DSN returns dsn with parseTime=true added (goose's tidb dialect scans
// timestamps into time.Time), checked by go-sql-driver/mysql. It returns an
// error wrapping ErrInvalidDSN.
func DSN(dsn string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidDSN, err)
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

// migrationView is the data of migration.sql.tmpl.
type migrationView struct {
	Comment        string
	TiDBOnly       bool
	TiDBOnlyMarker string
	Up, Down       string
}

// Migrations returns goose migration files for the rendered tables, one
// statement per file, numbered from first (00001_create_t.sql,
// 00002_split_t.sql, …) and keyed by file name. Every file runs outside a
// transaction (TiDB DDL is not transactional); CREATE TABLE files use IF
// NOT EXISTS, so a rerun after a failure completes, and drop the table on
// Down. SPLIT TABLE files carry TiDBOnlyMarker.
func Migrations(ddls []*DDL, first int64) (map[string]string, error) {
	files := map[string]string{}
	v := first
	for _, d := range ddls {
		drop, err := execute("drop_table.sql.tmpl", d.Table)
		if err != nil {
			return nil, fmt.Errorf("migrations %s: %w", d.Table.Name, err)
		}
		for _, s := range d.Statements {
			mv := migrationView{Up: s.SQL, TiDBOnly: s.TiDBOnly, TiDBOnlyMarker: TiDBOnlyMarker}
			mv.Comment = fmt.Sprintf("%s %s, strategy %s", s.Kind, d.Table.QualifiedName(), d.Options.Strategy)
			if s.Kind == KindCreate {
				if !strings.Contains(s.SQL, "CREATE TABLE IF NOT EXISTS") {
					return nil, fmt.Errorf("migrations %s: %w: CREATE TABLE without IF NOT EXISTS would fail on a rerun; render with Options.IfNotExists", d.Table.Name, ErrMigrationFile)
				}
				mv.Down = drop
			}
			text, err := execute("migration.sql.tmpl", mv)
			if err != nil {
				return nil, fmt.Errorf("migrations %s: %w", d.Table.Name, err)
			}
			name := fmt.Sprintf("%05d_%s_%s.sql", v, s.Kind, fileWord(d.Table.Name))
			files[name] = text + "\n"
			v++
		}
	}
	return files, nil
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

// MapFS returns files (name → content) as a file system for NewProvider.
func MapFS(files map[string]string) fs.FS {
	m := fstest.MapFS{}
	for name, text := range files {
		m[name] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
	}
	return m
}

// ProviderOptions configures NewProvider. The zero value uses goose's
// default version table, goose_db_version, in the DSN's database.
type ProviderOptions struct {
	// TableName is the goose version table, unquoted: name or
	// schema.name, each part letters, digits and _. "" means
	// goose_db_version.
	TableName string
	// Verbose makes goose log each migration.
	Verbose bool
}

// NewProvider returns a goose Provider (tidb dialect) over db for the
// migrations at the root of fsys. Files marked with TiDBOnlyMarker become Go
// migrations that run their statement only when the server says it is
// TiDB (SELECT VERSION()), so the same migrations apply to MySQL and
// MariaDB. It returns errors wrapping ErrInvalidTableName and
// ErrMigrationFile, and goose's own errors.
func NewProvider(db *sql.DB, fsys fs.FS, o ProviderOptions) (*goose.Provider, error) {
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithVerbose(o.Verbose)}
	if o.TableName != "" {
		if err := checkTableName(o.TableName); err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithTableName(o.TableName))
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	var exclude []string
	var gos []*goose.Migration
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration: %w", err)
		}
		text := string(b)
		if !strings.Contains(text, TiDBOnlyMarker) {
			continue
		}
		version, err := goose.NumericComponent(name)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrMigrationFile, name, err)
		}
		stmt, err := upStatement(text)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrMigrationFile, name, err)
		}
		exclude = append(exclude, path.Base(name))
		gos = append(gos, goose.NewGoMigration(version, &goose.GoFunc{RunDB: tidbOnly(stmt)}, &goose.GoFunc{RunDB: func(context.Context, *sql.DB) error { return nil }}))
	}
	if len(exclude) > 0 {
		opts = append(opts, goose.WithExcludeNames(exclude), goose.WithGoMigrations(gos...))
	}
	p, err := goose.NewProvider(goose.DialectTiDB, db, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("goose provider: %w", err)
	}
	return p, nil
}

// tidbOnly returns a migration function that runs stmt on TiDB and does
// nothing elsewhere.
func tidbOnly(stmt string) func(context.Context, *sql.DB) error {
	return func(ctx context.Context, db *sql.DB) error {
		ok, err := IsTiDB(ctx, db)
		if err != nil || !ok {
			return err
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
	var v string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return false, fmt.Errorf("server version: %w", err)
	}
	return strings.Contains(v, "TiDB"), nil
}

// upStatement returns the single statement between "-- +goose Up" and
// "-- +goose Down", without comment lines and the final semicolon.
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
	stmt := strings.TrimSpace(strings.Join(lines, "\n"))
	if !strings.HasSuffix(stmt, ";") || strings.Count(stmt, ";") != 1 {
		return "", errors.New("want exactly one Up statement ending in ;")
	}
	return strings.TrimSuffix(stmt, ";"), nil
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

// NextVersion returns one more than the highest goose version among the
// *.sql files at the root of fsys, or 1 when there are none.
func NextVersion(fsys fs.FS) (int64, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return 0, err
	}
	var top int64
	for _, n := range names {
		v, err := goose.NumericComponent(n)
		if err != nil {
			continue
		}
		top = max(top, v)
	}
	return top + 1, nil
}
