package tidb_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/pressly/goose/v3"
	"github.com/shardid/shardid/internal/testsrv"
	"github.com/shardid/shardid/tidb"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// seedDDL renders both seed tables under s, for migrations.
func seedDDL(t *testing.T, s tidb.Strategy) []*tidb.DDL {
	t.Helper()
	var out []*tidb.DDL
	for _, c := range []string{"global_tx_list", "branch_tx_list"} {
		b, err := os.ReadFile(filepath.Join("../testdata/tidb", c, "input.sql"))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := tidb.Parse(string(b))
		if err != nil {
			t.Fatal(err)
		}
		o := tidb.Options{Strategy: s, IfNotExists: true}
		if s == tidb.StrategyRotatedInt {
			o.Lead = 5
		}
		d, err := tidb.Render(tb, o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// TestMigrationsOnePerFile checks the goose files: one statement each, no
// transaction, IF NOT EXISTS on CREATE, the TiDB-only marker on SPLIT only.
func TestMigrationsOnePerFile(t *testing.T) {
	files, err := tidb.Migrations(seedDDL(t, tidb.StrategyRotatedInt), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("got %d files, want create+split for two tables", len(files))
	}
	for name, text := range files {
		if !strings.HasPrefix(text, "-- +goose NO TRANSACTION\n") {
			t.Errorf("%s does not start with NO TRANSACTION", name)
		}
		up, _, _ := strings.Cut(text[strings.Index(text, "-- +goose Up"):], "-- +goose Down")
		if n := strings.Count(up, ";"); n != 1 {
			t.Errorf("%s has %d Up statements, want 1", name, n)
		}
		split := strings.Contains(name, "_split_")
		if split != strings.Contains(text, tidb.TiDBOnlyMarker) {
			t.Errorf("%s: TiDB-only marker %v, want %v", name, !split, split)
		}
		if strings.Contains(name, "_create_") && !strings.Contains(text, "CREATE TABLE IF NOT EXISTS") {
			t.Errorf("%s: CREATE without IF NOT EXISTS", name)
		}
	}
	if _, ok := files["00001_create_t_tx_global_list.sql"]; !ok {
		t.Errorf("names: %v", keys(files))
	}
	// Without IfNotExists a rerun would fail: refused.
	d := seedDDL(t, tidb.StrategyShardRowID)[0]
	d.Statements[0].SQL = strings.Replace(d.Statements[0].SQL, "IF NOT EXISTS ", "", 1)
	if _, err := tidb.Migrations([]*tidb.DDL{d}, 1); !errors.Is(err, tidb.ErrMigrationFile) {
		t.Errorf("CREATE without IF NOT EXISTS: %v", err)
	}
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

// TestDSNAddsParseTime checks that parseTime=true is added and the rest kept.
func TestDSNAddsParseTime(t *testing.T) {
	got, err := tidb.DSN("u:p@tcp(db:4000)/app?charset=utf8mb4")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(got)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ParseTime || cfg.User != "u" || cfg.Addr != "db:4000" || cfg.DBName != "app" || !strings.Contains(got, "charset=utf8mb4") {
		t.Errorf("DSN(%q) = %q", "u:p@tcp(db:4000)/app?charset=utf8mb4", got)
	}
	if _, err := tidb.DSN("no slash here"); !errors.Is(err, tidb.ErrInvalidDSN) {
		t.Errorf("bad DSN: %v", err)
	}
}

// applyAll runs goose Up for the files over dsn and returns the results.
func applyAll(t *testing.T, dsn string, files map[string]string, table string) (*goose.Provider, []*goose.MigrationResult) {
	t.Helper()
	db, err := tidb.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := tidb.NewProvider(db, tidb.MapFS(files), tidb.ProviderOptions{TableName: table})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Up(context.Background())
	if err != nil {
		t.Fatalf("goose up: %v", err)
	}
	return p, res
}

// TestSeedTablesThroughGoose applies both seed tables under every strategy
// through goose's tidb dialect and go-sql-driver/mysql to a real MariaDB
// (the TiDB clauses are comments there, SPLIT TABLE is recorded without
// running), then checks: the tables exist with their key and indexes, a
// second Up applies nothing, and Status reports every version applied in
// the named version table. With TIDB_TEST_DSN set, the same runs on TiDB.
func TestSeedTablesThroughGoose(t *testing.T) {
	for _, target := range targets(t) {
		for _, s := range tidb.Strategies() {
			t.Run(target.name+"/"+string(s), func(t *testing.T) {
				dsn := target.database(t, "seed_"+strings.ReplaceAll(string(s), "-", "_"))
				files, err := tidb.Migrations(seedDDL(t, s), 1)
				if err != nil {
					t.Fatal(err)
				}
				p, res := applyAll(t, dsn, files, "shardid_goose")
				if len(res) != len(files) {
					t.Fatalf("applied %d migrations, want %d", len(res), len(files))
				}
				db, err := tidb.Open(dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				for _, tc := range []struct{ table, key, index string }{
					{"T_TX_GLOBAL_LIST", "global_tx_no", "index1"},
					{"T_TX_BRANCH_LIST", "branch_tx_no", "index3"},
				} {
					var name, create string
					if err := db.QueryRow("SHOW CREATE TABLE "+tc.table).Scan(&name, &create); err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(create, "PRIMARY KEY (`"+tc.key+"`)") || !strings.Contains(create, "KEY `"+tc.index+"`") {
						t.Errorf("%s lacks its key or index:\n%s", tc.table, create)
					}
					if target.tidb {
						assertTiDBOptions(t, s, create)
					}
				}
				again, err := p.Up(context.Background())
				if err != nil || len(again) != 0 {
					t.Fatalf("rerun applied %d migrations (%v), want none", len(again), err)
				}
				st, err := p.Status(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range st {
					if m.State != goose.StateApplied {
						t.Errorf("version %d is %s", m.Source.Version, m.State)
					}
				}
				var n int
				if err := db.QueryRow("SELECT COUNT(*) FROM shardid_goose WHERE version_id > 0 AND is_applied").Scan(&n); err != nil || n != len(files) {
					t.Errorf("version table holds %d applied versions (%v), want %d", n, err, len(files))
				}
			})
		}
	}
}

// TestRerunAfterFailureCompletes breaks the second of two migrations,
// checks the first stays applied, repairs the file, and checks a rerun
// finishes: one statement per file and IF NOT EXISTS make that safe.
func TestRerunAfterFailureCompletes(t *testing.T) {
	for _, target := range targets(t) {
		t.Run(target.name, func(t *testing.T) {
			dsn := target.database(t, "rerun")
			files, err := tidb.Migrations(seedDDL(t, tidb.StrategyShardRowID), 1)
			if err != nil {
				t.Fatal(err)
			}
			good := files["00002_create_t_tx_branch_list.sql"]
			files["00002_create_t_tx_branch_list.sql"] = strings.Replace(good, "`input_data` LONGTEXT", "`input_data` NO_SUCH_TYPE", 1)
			db, err := tidb.Open(dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			p, err := tidb.NewProvider(db, tidb.MapFS(files), tidb.ProviderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Up(context.Background()); err == nil {
				t.Fatal("broken migration applied")
			}
			if v, err := p.GetDBVersion(context.Background()); err != nil || v != 1 {
				t.Fatalf("after the failure the version is %d (%v), want 1", v, err)
			}
			files["00002_create_t_tx_branch_list.sql"] = good
			p, err = tidb.NewProvider(db, tidb.MapFS(files), tidb.ProviderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Up(context.Background())
			if err != nil || len(res) != 1 {
				t.Fatalf("rerun: %d results, %v; want 1", len(res), err)
			}
		})
	}
}

// TestBadVersionTableName checks the version-table option is validated.
func TestBadVersionTableName(t *testing.T) {
	db, err := tidb.Open("root@tcp(127.0.0.1:1)/x")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"a-b", "a.b.c", "x;DROP TABLE y", "`q`"} {
		if _, err := tidb.NewProvider(db, tidb.MapFS(map[string]string{"00001_x.sql": "-- +goose Up\nSELECT 1;\n"}), tidb.ProviderOptions{TableName: name}); !errors.Is(err, tidb.ErrInvalidTableName) {
			t.Errorf("table name %q: %v", name, err)
		}
	}
}

// target is a server the goose tests run against.
type target struct {
	name     string
	tidb     bool
	database func(t *testing.T, name string) string
}

// targets returns MariaDB (skipping when absent outside CI) and, when
// TIDB_TEST_DSN is set, TiDB.
func targets(t *testing.T) []target {
	s := testsrv.MariaDB(t)
	out := []target{{name: "mariadb", database: func(t *testing.T, name string) string {
		dsn, err := s.CreateDatabase(context.Background(), fmt.Sprintf("%s_%d", name, dbSeq.next()))
		if err != nil {
			t.Fatal(err)
		}
		return dsn
	}}}
	if dsn := os.Getenv("TIDB_TEST_DSN"); dsn != "" {
		out = append(out, target{name: "tidb", tidb: true, database: func(t *testing.T, name string) string {
			return tidbDatabase(t, dsn, fmt.Sprintf("shardid_%s_%d", name, dbSeq.next()))
		}})
	}
	return out
}

type seq struct{ n int }

func (s *seq) next() int { s.n++; return s.n }

var dbSeq seq

// tidbDatabase creates a fresh database on the TiDB behind dsn, dropped
// when the test ends, and returns a DSN for it.
func tidbDatabase(t *testing.T, dsn, name string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := tidb.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP DATABASE " + name); db.Close() })
	cfg.DBName = name
	return cfg.FormatDSN()
}
