package tidb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/shardid/shardid/tidb"
)

// TestRealSchemas takes every published schema script under
// testdata/tidb/real through the whole path on a real TiDB and MariaDB:
// parse the script, render each table under auto and under every explicit
// strategy that fits it (TiDB's parser re-reads each statement), apply
// auto's migrations with goose, check every table exists with the layout
// auto picked, run up again (nothing applied), and apply each explicit
// strategy to a database of its own on TiDB.
func TestRealSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: applies every real schema to TiDB and MariaDB")
	}
	files, err := filepath.Glob("../testdata/tidb/real/*.sql")
	if err != nil || len(files) < 5 {
		t.Fatalf("real schemas: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := tidb.ParseScript(string(b), tidb.ScriptOptions{SkipData: true})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		render := func(t *testing.T, o tidb.Options, all bool) []*tidb.DDL {
			var out []*tidb.DDL
			for _, tb := range s.Tables {
				d, err := tidb.Render(tb, o)
				if err != nil {
					if all {
						t.Fatalf("%s: %v", tb.Name, err)
					}
					continue // the strategy does not fit this table; Render said why
				}
				checkDDL(t, d, false)
				out = append(out, d)
			}
			return out
		}
		for _, target := range targets(t) {
			t.Run(filepath.Base(f)+"/"+target.name, func(t *testing.T) {
				t.Parallel()
				auto := render(t, tidb.Options{}, true)
				dsn := target.database(t)
				if target.tidb {
					auto = refusedByTiDB(t, dsn, auto)
				}
				ms := migrations(t, auto)
				m, res, err := up(t, dsn, ms, "")
				if err != nil || countApplied(res) != len(ms) {
					t.Fatalf("up: %d of %d applied: %v", countApplied(res), len(ms), err)
				}
				for _, d := range auto {
					create := showCreate(t, dsn, d.Table.Name)
					if create == "" {
						t.Fatalf("%s missing after up", d.Table.Name)
					}
					if target.tidb {
						want := "SHARD_ROW_ID_BITS=4"
						if d.Options.Strategy == tidb.StrategyAutoRandom {
							want = "AUTO_RANDOM(5, 5" // 54, or 53 for UNSIGNED
						}
						if !strings.Contains(create, want) {
							t.Errorf("%s (%s) lacks %s:\n%s", d.Table.Name, d.Options.Strategy, want, create)
						}
					}
				}
				again, err := m.Up(context.Background())
				if err != nil || countApplied(again) != 0 {
					t.Fatalf("rerun applied %d (%v)", countApplied(again), err)
				}
				if !target.tidb {
					return
				}
				for _, st := range []tidb.Strategy{tidb.StrategyShardRowID, tidb.StrategyAutoRandom, tidb.StrategyRotatedInt} {
					ddls := refusedByTiDB(t, target.database(t), render(t, seedOptions(st), st == tidb.StrategyShardRowID && !hasAutoRandom(s)))
					if len(ddls) == 0 {
						continue
					}
					if _, res, err := up(t, target.database(t), migrations(t, ddls), ""); err != nil || countApplied(res) == 0 {
						t.Errorf("%s: %d applied: %v", st, countApplied(res), err)
					}
				}
			})
		}
	}
}

// unsupportedOnTiDB names input that TiDB itself refuses, with the error
// it gives: such a table fails as written, before shardid changes it.
var unsupportedOnTiDB = map[string]uint16{
	"LATIN1_GENERAL_CS": 1273, // "Unsupported collation when new collation is enabled"
}

// refusedByTiDB returns the tables TiDB accepts, after checking that each
// left out fails on TiDB with the expected error as the input wrote it.
func refusedByTiDB(t *testing.T, dsn string, ddls []*tidb.DDL) []*tidb.DDL {
	t.Helper()
	db, err := tidb.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var keep []*tidb.DDL
	for _, d := range ddls {
		sql := d.Statements[0].SQL
		refused := false
		for word, code := range unsupportedOnTiDB {
			if !strings.Contains(strings.ToUpper(sql), word) {
				continue
			}
			refused = true
			_, err := db.Exec(sql)
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != code {
				t.Errorf("%s: TiDB answered %v, want error %d for %s", d.Table.Name, err, code, word)
			}
		}
		if !refused {
			keep = append(keep, d)
		}
	}
	return keep
}

func hasAutoRandom(s *tidb.Script) bool {
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if c.AutoRandom {
				return true
			}
		}
	}
	return false
}
