// Package tidbtest holds what the tests of the three TiDB stages (tidb/script,
// tidb, tidb/apply) share: the servers they apply to, and short ways to
// render and apply a script that fail the test on an error. Only tests
// import it.
package tidbtest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// Target is one server the tests apply to.
type Target struct {
	// Name names it in subtest names: tidb, mariadb or own-tidb.
	Name string
	// TiDB reports a TiDB server.
	TiDB bool
	// Database returns the DSN of a fresh database on it.
	Database func(t *testing.T) string
}

// RenderTarget is the target a rendering for the server is for.
func (srv Target) RenderTarget() tidb.Target {
	if srv.TiDB {
		return tidb.TargetTiDB
	}
	return tidb.TargetMariaDB
}

// Targets returns the throwaway TiDB and MariaDB (each failing under
// CI=true when missing, skipping elsewhere) and, when TIDB_TEST_DSN is
// set, the user's own TiDB.
func Targets(t *testing.T) []Target {
	out := []Target{
		{Name: "tidb", TiDB: true, Database: func(t *testing.T) string { return testsrv.Database(t, testsrv.TiDB(t)) }},
		{Name: "mariadb", Database: func(t *testing.T) string { return testsrv.Database(t, testsrv.MariaDB(t)) }},
	}
	if dsn := os.Getenv("TIDB_TEST_DSN"); dsn != "" {
		out = append(out, Target{Name: "own-tidb", TiDB: true, Database: func(t *testing.T) string {
			return tidbDatabase(t, dsn, testsrv.DBName(t))
		}})
	}
	return out
}

// EachTiDB runs f against a fresh database on every TiDB target.
func EachTiDB(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	for _, target := range Targets(t) {
		if !target.TiDB {
			continue
		}
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			db, err := apply.Open(target.Database(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			f(t, db)
		})
	}
}

// tidbDatabase creates a fresh database on the TiDB behind dsn, dropped
// when the test ends, and returns a DSN for it.
func tidbDatabase(t *testing.T, dsn, name string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := apply.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP DATABASE " + name); db.Close() })
	cfg.DBName = name
	cfg.ParseTime = true
	return cfg.FormatDSN()
}

// SeedInput reads tidb/testdata/<name>/input.sql, from any package's
// tests.
func SeedInput(tb testing.TB, name string) string {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "testdata", name, "input.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// RenderSQL parses a script (its data left out) and renders every table
// under o.
func RenderSQL(t *testing.T, text string, o tidb.Options) []*tidb.DDL {
	t.Helper()
	s, err := script.ParseScript(text, script.Options{SkipData: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []*tidb.DDL
	for _, tb := range s.Tables {
		d, err := tidb.Render(tb, o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// Migrations returns the migrations of rendered tables.
func Migrations(t *testing.T, ddls []*tidb.DDL) []apply.Migration {
	t.Helper()
	return PlanMigrations(t, &tidb.Plan{Tables: ddls})
}

// PlanScript parses text and renders it under o.
func PlanScript(t *testing.T, text string, o tidb.Options) *tidb.Plan {
	t.Helper()
	s, err := script.ParseScript(text, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// PlanMigrations returns p's migrations, numbered by their statements.
func PlanMigrations(t *testing.T, p *tidb.Plan) []apply.Migration {
	t.Helper()
	ms, err := apply.Migrations(p, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// Up applies ms to dsn with the version table table ("" for goose's).
func Up(t *testing.T, dsn string, ms []apply.Migration, table string) (*apply.Migrator, []apply.Result, error) {
	t.Helper()
	m, err := apply.NewMigrator(Open(t, dsn), ms, apply.Options{TableName: table})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Up(context.Background())
	return m, res, err
}

// Open opens dsn with apply.Open (parseTime=true, as goose wants it)
// and closes it when the test ends.
func Open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := apply.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// UpAll applies ms to dsn and fails the test unless every one applied.
func UpAll(t *testing.T, dsn string, ms []apply.Migration) *apply.Migrator {
	t.Helper()
	m, res, err := Up(t, dsn, ms, "")
	if err != nil || CountApplied(res) != len(ms) {
		t.Fatalf("up: %d of %d applied: %v", CountApplied(res), len(ms), err)
	}
	return m
}

// CountApplied counts the migrations applied now.
func CountApplied(res []apply.Result) int {
	n := 0
	for _, r := range res {
		if r.Applied {
			n++
		}
	}
	return n
}

// ShowCreate returns SHOW CREATE TABLE, or "" when the table is missing.
func ShowCreate(t *testing.T, dsn, table string) string {
	t.Helper()
	db, err := apply.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name, create string
	if err := db.QueryRow("SHOW CREATE TABLE `"+table+"`").Scan(&name, &create); err != nil {
		return ""
	}
	return create
}
