package apply_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
)

// seedDDL renders both seed tables under s, for migrations.
func seedDDL(t *testing.T, s tidb.Strategy) []*tidb.DDL {
	t.Helper()
	var out []*tidb.DDL
	for _, c := range []string{"global_tx_list", "branch_tx_list"} {
		out = append(out, tidbtest.RenderSQL(t, tidbtest.SeedInput(t, c), seedOptions(s))...)
	}
	return out
}

func seedOptions(s tidb.Strategy) tidb.Options {
	o := tidb.Options{Strategy: s}
	if s == tidb.StrategyRotatedInt {
		o.Lead = 5
	}
	return o
}

// TestMigrationsOnePerFile checks the goose files: one statement each
// between StatementBegin/End, no transaction, plain CREATE (no IF NOT
// EXISTS), the TiDB-only marker on SPLIT only, versions that follow the
// statement alone.
func TestMigrationsOnePerFile(t *testing.T) {
	ms := tidbtest.Migrations(t, seedDDL(t, tidb.StrategyRotatedInt))
	if len(ms) != 4 {
		t.Fatalf("got %d files, want create+split for two tables", len(ms))
	}
	for _, m := range ms {
		text := m.Text
		if !strings.HasPrefix(text, "-- +goose NO TRANSACTION\n") {
			t.Errorf("%s does not start with NO TRANSACTION", m.Name)
		}
		if !strings.Contains(text, "-- +goose Up\n-- +goose StatementBegin\n") || strings.Count(text, "-- +goose StatementEnd") < 1 {
			t.Errorf("%s: Up not wrapped in StatementBegin/End:\n%s", m.Name, text)
		}
		if m.TiDBOnly != (m.Kind == script.KindSplit) || m.TiDBOnly != strings.Contains(text, apply.TiDBOnlyMarker) {
			t.Errorf("%s: TiDB-only %v, kind %s", m.Name, m.TiDBOnly, m.Kind)
		}
		if strings.Contains(text, "IF NOT EXISTS") {
			t.Errorf("%s: a migration must not adopt an existing table:\n%s", m.Name, text)
		}
		if !strings.HasPrefix(m.Name, fmt.Sprint(m.Version, "_", m.Kind, "_")) || m.Version < 1 || m.Version > 1<<53 {
			t.Errorf("name %s, version %d", m.Name, m.Version)
		}
	}
	again := tidbtest.Migrations(t, seedDDL(t, tidb.StrategyRotatedInt))
	other := tidbtest.Migrations(t, seedDDL(t, tidb.StrategyShardRowID))
	if again[0].Version != ms[0].Version || other[0].Version == ms[0].Version {
		t.Errorf("versions must follow the statement: %d, again %d, other strategy %d", ms[0].Version, again[0].Version, other[0].Version)
	}
	// The same table twice is refused, not silently merged.
	if _, err := apply.Migrations(&tidb.Plan{Tables: append(seedDDL(t, tidb.StrategyShardRowID), seedDDL(t, tidb.StrategyShardRowID)...)}, apply.Options{}); !errors.Is(err, apply.ErrMigrationFile) {
		t.Errorf("duplicate tables: %v", err)
	}
	// The AUTO_RANDOM switch needs a session setting on its own
	// connection, which one goose file per statement cannot keep.
	tb, err := tidb.Parse("CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY CLUSTERED)")
	if err != nil {
		t.Fatal(err)
	}
	d, err := tidb.RenderAlter(tb, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Migrations(&tidb.Plan{Tables: []*tidb.DDL{d}}, apply.Options{}); !errors.Is(err, apply.ErrMigrationFile) {
		t.Errorf("migrations of the AUTO_RANDOM switch: %v", err)
	}
}

// TestDSNAddsParseTime checks that parseTime=true is added and the rest kept.
func TestDSNAddsParseTime(t *testing.T) {
	got, err := apply.DSN("u:p@tcp(db:4000)/app?charset=utf8mb4")
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
	for _, bad := range []string{"no slash here", "mysql://u:p@db:4000/app", "u@db:4000/app"} {
		_, err := apply.DSN(bad)
		if !errors.Is(err, apply.ErrInvalidDSN) || !strings.Contains(err.Error(), "@tcp(host:4000)/db") || strings.Contains(err.Error(), ":p@") {
			t.Errorf("DSN(%q): %v", bad, err)
		}
	}
}

// TestSeedTablesThroughGoose applies both seed tables under every strategy
// through goose's tidb dialect to a real TiDB and a real MariaDB (the TiDB
// clauses are comments there, SPLIT TABLE is recorded without running),
// then checks: the tables exist with their key, indexes and (on TiDB) the
// strategy's options in SHOW CREATE TABLE, a second Up applies nothing,
// and the named version table holds every version.
func TestSeedTablesThroughGoose(t *testing.T) {
	for _, target := range tidbtest.Targets(t) {
		for _, s := range tidb.Strategies() {
			t.Run(target.Name+"/"+string(s), func(t *testing.T) {
				t.Parallel()
				dsn := target.Database(t)
				ms := tidbtest.Migrations(t, seedDDL(t, s))
				m, res, err := tidbtest.Up(t, dsn, ms, "shardid_goose")
				if err != nil || tidbtest.CountApplied(res) != len(ms) {
					t.Fatalf("applied %d of %d migrations: %v", tidbtest.CountApplied(res), len(ms), err)
				}
				for _, r := range res {
					if r.Skipped != (r.Migration.TiDBOnly && !target.TiDB) {
						t.Errorf("%s: skipped %v on %s", r.Migration.Name, r.Skipped, target.Name)
					}
				}
				for _, tc := range []struct{ table, key, index string }{
					{"T_TX_GLOBAL_LIST", "global_tx_no", "index1"},
					{"T_TX_BRANCH_LIST", "branch_tx_no", "index3"},
				} {
					create := tidbtest.ShowCreate(t, dsn, tc.table)
					if !strings.Contains(create, "PRIMARY KEY (`"+tc.key+"`)") || !strings.Contains(create, "KEY `"+tc.index+"`") {
						t.Errorf("%s lacks its key or index:\n%s", tc.table, create)
					}
					if target.TiDB {
						assertTiDBOptions(t, s, create)
					}
				}
				again, err := m.Up(context.Background())
				if err != nil || tidbtest.CountApplied(again) != 0 || len(again) != len(ms) {
					t.Fatalf("rerun applied %d migrations (%v), want none", tidbtest.CountApplied(again), err)
				}
				st, err := m.Status(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range st {
					if !x.Applied {
						t.Errorf("%s is pending", x.Migration.Name)
					}
				}
				db, _ := apply.Open(dsn)
				defer db.Close()
				var n int
				if err := db.QueryRow("SELECT COUNT(*) FROM shardid_goose WHERE version_id > 0 AND is_applied").Scan(&n); err != nil || n != len(ms) {
					t.Errorf("version table holds %d applied versions (%v), want %d", n, err, len(ms))
				}
			})
		}
	}
}

// TestUpSequences runs the sequences of file-based ups a user runs: up A,
// up B, up A B. Each must do what it says: B is created by the second run
// (every file used to be version 1, so B was silently "applied"), the third
// applies nothing, and a changed A is refused because its table exists.
func TestUpSequences(t *testing.T) {
	for _, target := range tidbtest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dsn := target.Database(t)
			a := seedDDL(t, tidb.StrategyShardRowID)[:1]
			b := seedDDL(t, tidb.StrategyShardRowID)[1:]
			if _, res, err := tidbtest.Up(t, dsn, tidbtest.Migrations(t, a), ""); err != nil || tidbtest.CountApplied(res) != 1 {
				t.Fatalf("up A: %d applied, %v", tidbtest.CountApplied(res), err)
			}
			if _, res, err := tidbtest.Up(t, dsn, tidbtest.Migrations(t, b), ""); err != nil || tidbtest.CountApplied(res) != 1 {
				t.Fatalf("up B after A: %d applied, %v", tidbtest.CountApplied(res), err)
			}
			if tidbtest.ShowCreate(t, dsn, "T_TX_BRANCH_LIST") == "" {
				t.Fatal("up B reported success but the table is missing")
			}
			if _, res, err := tidbtest.Up(t, dsn, tidbtest.Migrations(t, append(a, b...)), ""); err != nil || tidbtest.CountApplied(res) != 0 || len(res) != 2 {
				t.Fatalf("up A B: %d applied of %d, %v; want none", tidbtest.CountApplied(res), len(res), err)
			}
			changed := seedDDL(t, tidb.StrategyAutoRandom)[:1]
			m, res, err := tidbtest.Up(t, dsn, tidbtest.Migrations(t, changed), "")
			if !errors.Is(err, apply.ErrTableExists) || tidbtest.CountApplied(res) != 0 {
				t.Fatalf("changed A: %d applied, %v; want ErrTableExists", tidbtest.CountApplied(res), err)
			}
			if st, _ := m.Status(context.Background()); len(st) != 1 || st[0].Applied {
				t.Errorf("the refused migration is recorded: %+v", st)
			}
		})
	}
}

// TestExistingTableRefused creates a table by hand with another layout and
// checks that up neither reports it created nor records a migration whose
// Down would drop it; the table and its row stay as they were.
func TestExistingTableRefused(t *testing.T) {
	for _, target := range tidbtest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dsn := target.Database(t)
			db, err := apply.Open(dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE orders (id BIGINT PRIMARY KEY, note VARCHAR(10))"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO orders VALUES (1, 'mine')"); err != nil {
				t.Fatal(err)
			}
			before := tidbtest.ShowCreate(t, dsn, "orders")
			ms := tidbtest.Migrations(t, tidbtest.RenderSQL(t, "CREATE TABLE IF NOT EXISTS orders (id BIGINT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(10), total INT)", tidb.Options{}))
			m, res, err := tidbtest.Up(t, dsn, ms, "")
			if !errors.Is(err, apply.ErrTableExists) || tidbtest.CountApplied(res) != 0 {
				t.Fatalf("up over an existing table: %d applied, %v", tidbtest.CountApplied(res), err)
			}
			if !strings.Contains(err.Error(), "never adopts") || strings.Contains(err.Error(), "\n") {
				t.Errorf("message: %q", err)
			}
			st, err := m.Status(context.Background())
			if err != nil || st[0].Applied {
				t.Errorf("recorded as applied: %+v %v", st, err)
			}
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM orders").Scan(&n); err != nil || n != 1 || tidbtest.ShowCreate(t, dsn, "orders") != before {
				t.Errorf("the existing table changed: %d rows, %v", n, err)
			}
		})
	}
}

// TestRerunAfterFailureCompletes breaks the second of two migrations,
// checks the first stays applied and the second unrecorded, repairs it,
// and checks a rerun finishes: one statement per file makes that safe.
func TestRerunAfterFailureCompletes(t *testing.T) {
	for _, target := range tidbtest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dsn := target.Database(t)
			ms := tidbtest.Migrations(t, seedDDL(t, tidb.StrategyShardRowID))
			good := ms[1].Text
			ms[1].Text = strings.Replace(good, "`input_data` LONGTEXT", "`input_data` NO_SUCH_TYPE", 1)
			m, res, err := tidbtest.Up(t, dsn, ms, "")
			if err == nil || tidbtest.CountApplied(res) != 1 {
				t.Fatalf("broken migration: %d applied, %v", tidbtest.CountApplied(res), err)
			}
			if st, _ := m.Status(context.Background()); !st[0].Applied || st[1].Applied {
				t.Fatalf("after the failure: %+v", st)
			}
			ms[1].Text = good
			if _, res, err := tidbtest.Up(t, dsn, ms, ""); err != nil || tidbtest.CountApplied(res) != 1 {
				t.Fatalf("rerun: %d applied, %v; want 1", tidbtest.CountApplied(res), err)
			}
		})
	}
}

// TestBadVersionTableName checks the version-table option is validated.
func TestBadVersionTableName(t *testing.T) {
	db, err := apply.Open("root@tcp(127.0.0.1:1)/x")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms := tidbtest.Migrations(t, seedDDL(t, tidb.StrategyShardRowID))
	for _, name := range []string{"a-b", "a.b.c", "x;DROP TABLE y", "`q`"} {
		if _, err := apply.NewMigrator(db, ms, apply.Options{TableName: name}); !errors.Is(err, apply.ErrInvalidTableName) {
			t.Errorf("table name %q: %v", name, err)
		}
	}
}

// TestReadDir checks a missing or empty directory is named as such.
func TestReadDir(t *testing.T) {
	if _, err := apply.ReadDir(os.DirFS(filepath.Join(t.TempDir(), "missing"))); !errors.Is(err, apply.ErrNoMigrations) {
		t.Errorf("missing dir: %v", err)
	}
	if _, err := apply.ReadDir(os.DirFS(t.TempDir())); !errors.Is(err, apply.ErrNoMigrations) || !strings.Contains(err.Error(), "tidb gen") {
		t.Errorf("empty dir: %v", err)
	}
}

// assertTiDBOptions checks that TiDB's SHOW CREATE TABLE kept the options.
func assertTiDBOptions(t *testing.T, s tidb.Strategy, create string) {
	t.Helper()
	var want []string
	switch s {
	case tidb.StrategyShardRowID, tidb.StrategyAuto: // the seed tables have BIGINT keys the application fills
		want = []string{"NONCLUSTERED", "SHARD_ROW_ID_BITS=4", "PRE_SPLIT_REGIONS=4"}
	case tidb.StrategyAutoRandom:
		want = []string{"/*T![clustered_index] CLUSTERED */", "AUTO_RANDOM(5, 54)", "PRE_SPLIT_REGIONS=4"}
	case tidb.StrategyRotatedInt:
		want = []string{"/*T![clustered_index] CLUSTERED */"}
	}
	for _, w := range want {
		if !strings.Contains(create, w) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", w, create)
		}
	}
}
