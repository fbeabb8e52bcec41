package tidb_test

import (
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// golden compares got with testdata/<case>/<name>, or rewrites the
// file under -update.
func checkGolden(t *testing.T, dir, name, got string) {
	t.Helper()
	testsrv.CheckGolden(t, filepath.Join(dir, name), []byte(got))
}

// TestGolden renders every testdata case under each strategy, as
// CREATE TABLE and as ALTER TABLE, re-parses every statement with TiDB's
// parser and checks its options (checkDDL), and compares the text (or the
// one-line refusal) with the golden file.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/input.sql")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, in := range dirs {
		dir := filepath.Dir(in)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := tidb.Parse(string(b))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tidb.Strategies() {
				for _, alter := range []bool{false, true} {
					name := string(s) + ".sql"
					render := tidb.Render
					if alter {
						name, render = "alter-"+name, tidb.RenderAlter
					}
					d, err := render(tb, tidb.Options{Strategy: s})
					if err != nil {
						if strings.Contains(err.Error(), "\n") {
							t.Errorf("%s: error spans lines: %q", name, err)
						}
						checkGolden(t, dir, strings.TrimSuffix(name, ".sql")+".err", err.Error()+"\n")
						continue
					}
					checkDDL(t, d, alter)
					checkGolden(t, dir, name, d.String())
				}
			}
		})
	}
}

// TestSeedTablesRenderEverywhere pins what the article's two tables need:
// every strategy applies to a BIGINT Snowflake key, and shard-rowid gives
// the measured SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 by default.
func TestSeedTablesRenderEverywhere(t *testing.T) {
	for _, c := range []string{"global_tx_list", "branch_tx_list"} {
		tb, err := tidb.Parse(tidbtest.SeedInput(t, c))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tidb.Strategies() {
			d, err := tidb.Render(tb, tidb.Options{Strategy: s})
			if err != nil {
				t.Fatalf("%s %s: %v", c, s, err)
			}
			checkDDL(t, d, false)
			if s == tidb.StrategyShardRowID && (d.Options.ShardBits != 4 || d.Options.PreSplit != 4 || d.Options.NoPreSplit) {
				t.Errorf("default shard-rowid options %+v, want 4/4", d.Options)
			}
		}
	}
}

// TestOptionsReachTheAST varies every numeric option and checks through
// TiDB's parser that the rendered statement carries exactly that value.
func TestOptionsReachTheAST(t *testing.T) {
	tb, err := tidb.Parse("CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(10))")
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= tidb.MaxShardBits; s++ {
		for _, p := range []int{-1, 1, s} {
			d, err := tidb.Render(tb, tidb.Options{Strategy: tidb.StrategyShardRowID, ShardBits: s, PreSplit: max(p, 0), NoPreSplit: p < 0})
			if err != nil {
				t.Fatal(err)
			}
			checkDDL(t, d, false)
		}
		for _, r := range []int{tidb.MinIncrementBits + 1 + s, tidb.JSSafeRangeBits, tidb.MaxRangeBits} {
			d, err := tidb.Render(tb, tidb.Options{Strategy: tidb.StrategyAutoRandom, ShardBits: s, RangeBits: max(r, tidb.MinRangeBits)})
			if err != nil {
				t.Fatal(err)
			}
			checkDDL(t, d, false)
		}
	}
	for k := 1; k <= tidb.MaxRotateDigits; k++ {
		d, err := tidb.Render(tb, tidb.Options{Strategy: tidb.StrategyRotatedInt, Digits: k, Lead: 5})
		if err != nil {
			t.Fatal(err)
		}
		checkDDL(t, d, false)
	}
}

// TestRefusals checks each documented refusal: one line, the sentinel
// reachable with errors.Is.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name, sql string
		o         tidb.Options
		alter     bool
		want      error
	}{
		{"shard bits 16", "CREATE TABLE t (a INT)", tidb.Options{ShardBits: 16}, false, tidb.ErrShardBits},
		{"shard bits negative", "CREATE TABLE t (a INT)", tidb.Options{ShardBits: -1}, false, tidb.ErrShardBits},
		{"pre-split above shard bits", "CREATE TABLE t (a INT)", tidb.Options{ShardBits: 3, PreSplit: 4}, false, tidb.ErrPreSplit},
		{"auto-random 0 range", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: 31}, false, tidb.ErrRangeBits},
		{"auto-random range 65", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: 65}, false, tidb.ErrRangeBits},
		{"auto-random bits 16", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom, ShardBits: 16}, false, tidb.ErrShardBits},
		{"auto-random varchar key", "CREATE TABLE t (id VARCHAR(20) PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom}, false, tidb.ErrKey},
		{"auto-random int key kept", "CREATE TABLE t (id INT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom, NoWiden: true}, false, tidb.ErrKey},
		{"auto-random smallint key", "CREATE TABLE t (id SMALLINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom}, false, tidb.ErrKey},
		{"auto-random composite key", "CREATE TABLE t (a BIGINT, b BIGINT, PRIMARY KEY (a, b))", tidb.Options{Strategy: tidb.StrategyAutoRandom}, false, tidb.ErrKey},
		{"auto-random no key", "CREATE TABLE t (a BIGINT)", tidb.Options{Strategy: tidb.StrategyAutoRandom}, false, tidb.ErrKey},
		{"auto-random range 32 leaves 26 increment bits", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: 32}, false, tidb.ErrRangeBits},
		{"auto-random unsigned 31+5 bits", "CREATE TABLE t (id BIGINT UNSIGNED PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: 32, ShardBits: 6}, false, tidb.ErrRangeBits},
		{"alter auto-random with a range", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY CLUSTERED)", tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: 54}, true, tidb.ErrRangeBits},
		{"pre-split negative", "CREATE TABLE t (a INT)", tidb.Options{PreSplit: -1}, false, tidb.ErrPreSplit},
		{"pre-split and none", "CREATE TABLE t (a INT)", tidb.Options{PreSplit: 2, NoPreSplit: true}, false, tidb.ErrPreSplit},
		{"auto-random with default", "CREATE TABLE t (id BIGINT DEFAULT 1 PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom}, false, tidb.ErrConflict},
		{"auto-random with shard_row_id_bits", "CREATE TABLE t (id BIGINT PRIMARY KEY) SHARD_ROW_ID_BITS=4", tidb.Options{Strategy: tidb.StrategyAutoRandom}, false, tidb.ErrConflict},
		{"shard-rowid with auto_random column", "CREATE TABLE t (id BIGINT AUTO_RANDOM PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyShardRowID}, false, tidb.ErrConflict},
		{"rotated-int varchar key", "CREATE TABLE t (id VARCHAR(20) PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyRotatedInt}, false, tidb.ErrKey},
		{"rotated-int 4 digits", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyRotatedInt, Digits: 4}, false, tidb.ErrDigits},
		{"rotated-int lead 9 of 19 digits past int64", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyRotatedInt, IDDigits: 20, Lead: 9}, false, tidb.ErrDigits},
		{"generated column reads auto_increment key", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, d BIGINT AS (id*2))", tidb.Options{}, false, tidb.ErrConflict},
		{"shard-rowid keeps auto_increment a check reads", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, CHECK (ID > 0))", tidb.Options{Strategy: tidb.StrategyShardRowID}, false, tidb.ErrConflict},
		{"expression key on auto_increment non-key column", "CREATE TABLE t (id BIGINT PRIMARY KEY, n INT AUTO_INCREMENT, KEY ((n+1)))", tidb.Options{Strategy: tidb.StrategyAutoRandom}, false, tidb.ErrConflict},
		{"script folds a generated column reading the key", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY); ALTER TABLE t ADD COLUMN d BIGINT AS (id*2)", tidb.Options{}, false, tidb.ErrConflict},
		{"rotated-int with auto_increment", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyRotatedInt}, false, tidb.ErrConflict},
		{"range on shard-rowid", "CREATE TABLE t (a INT)", tidb.Options{Strategy: tidb.StrategyShardRowID, RangeBits: 54}, false, tidb.ErrOptionNotApplicable},
		{"digits on auto-random", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyAutoRandom, Digits: 2}, false, tidb.ErrOptionNotApplicable},
		{"unknown strategy", "CREATE TABLE t (a INT)", tidb.Options{Strategy: "hash"}, false, tidb.ErrInvalidStrategy},
		{"alter clustered key to shard-rowid", "CREATE TABLE t (id BIGINT PRIMARY KEY CLUSTERED)", tidb.Options{Strategy: tidb.StrategyShardRowID}, true, tidb.ErrAlterNotAllowed},
		{"alter key of unknown clustering", "CREATE TABLE t (id VARCHAR(9) PRIMARY KEY)", tidb.Options{}, true, tidb.ErrAlterNotAllowed},
		{"alter lowers shard bits", "CREATE TABLE t (a INT) SHARD_ROW_ID_BITS=6", tidb.Options{}, true, tidb.ErrShardBits},
		{"alter adds auto_random to plain column", "CREATE TABLE t (id BIGINT PRIMARY KEY CLUSTERED)", tidb.Options{Strategy: tidb.StrategyAutoRandom}, true, tidb.ErrAlterNotAllowed},
		{"alter auto_random on nonclustered key", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY NONCLUSTERED)", tidb.Options{Strategy: tidb.StrategyAutoRandom}, true, tidb.ErrAlterNotAllowed},
		{"alter rotated-int nonclustered", "CREATE TABLE t (id BIGINT PRIMARY KEY NONCLUSTERED)", tidb.Options{Strategy: tidb.StrategyRotatedInt}, true, tidb.ErrAlterNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := script.ParseScript(c.sql, script.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tb := s.Tables[0]
			render := tidb.Render
			if c.alter {
				render = tidb.RenderAlter
			}
			d, err := render(tb, c.o)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, %v; want %v", d, err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// TestParseRefusals checks that only one plain CREATE TABLE is accepted.
func TestParseRefusals(t *testing.T) {
	for sql, want := range map[string]error{
		"CREATE TABLE": script.ErrParse,
		"SELECT 1":     script.ErrNotCreateTable,
		"CREATE TABLE a (x INT); CREATE TABLE b (y INT)": script.ErrNotCreateTable,
		"ALTER TABLE a ADD COLUMN b INT":                 script.ErrNotCreateTable,
		"CREATE TABLE a LIKE b":                          script.ErrNotCreateTable,
		"CREATE TABLE a AS SELECT 1 AS x":                script.ErrNotCreateTable,
		"CREATE TEMPORARY TABLE a (x INT)":               script.ErrNotCreateTable,
		"CREATE TABLE `a``b` (x INT)":                    script.ErrInvalidIdentifier,
		"CREATE TABLE a (`x ` INT)":                      script.ErrInvalidIdentifier,
	} {
		if _, err := tidb.Parse(sql); !errors.Is(err, want) {
			t.Errorf("Parse(%q) = %v, want %v", sql, err, want)
		}
	}
	// A number too long for the parser's value driver, which panics on it:
	// an error, in Parse and in a script, never a crash.
	long := "CREATE TABLE a (x DECIMAL(65) DEFAULT " + strings.Repeat("9", 90) + ")"
	if _, err := tidb.Parse(long); !errors.Is(err, script.ErrParse) || !strings.Contains(err.Error(), "81 digits") {
		t.Errorf("Parse of a 90-digit number: %v", err)
	}
	if _, err := script.ParseScript("CREATE TABLE b (y INT);\n"+long+";\n", script.Options{}); !errors.Is(err, script.ErrParse) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ParseScript of a 90-digit number: %v", err)
	}
}

// TestRenderedCreateRoundTrips parses a rendered CREATE TABLE again and
// renders it once more: the description survives, so the output is stable.
func TestRenderedCreateRoundTrips(t *testing.T) {
	tb, err := tidb.Parse(tidbtest.SeedInput(t, "varchar_key"))
	if err != nil {
		t.Fatal(err)
	}
	d1, err := tidb.Render(tb, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tb2, err := tidb.Parse(d1.Statements[0].SQL)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := tidb.Render(tb2, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d1.String() != d2.String() {
		t.Errorf("second rendering differs:\n%s\n%s", d1, d2)
	}
	if tb2.ShardRowIDBits != 4 || tb2.PreSplitRegions != 4 || tb2.PrimaryKey.Clustering != script.ClusteringNonClustered {
		t.Errorf("re-parsed table %+v lost the options", tb2)
	}
}

// TestMinSplitRule checks which tables are pre-split: a key whose integer
// type cannot reach --min-split rows is not (and the note says why), a
// larger key or an unknown size is, and MinSplit 1 pre-splits all.
func TestMinSplitRule(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		o         tidb.Options
		presplit  bool
	}{
		{"smallint key", "CREATE TABLE t (id SMALLINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, v INT)", tidb.Options{}, false},
		{"tinyint composite", "CREATE TABLE t (a TINYINT, b TINYINT, PRIMARY KEY (a, b))", tidb.Options{}, false},
		{"int key", "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{}, true},
		{"mediumint key", "CREATE TABLE t (id MEDIUMINT UNSIGNED AUTO_INCREMENT PRIMARY KEY)", tidb.Options{}, true},
		{"varchar key", "CREATE TABLE t (k VARCHAR(9) PRIMARY KEY)", tidb.Options{}, true},
		{"no key", "CREATE TABLE t (v INT)", tidb.Options{}, true},
		{"bigint auto-random", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{}, true},
		{"min-split 1", "CREATE TABLE t (id SMALLINT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{MinSplit: 1}, true},
		{"min-split above int", "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{MinSplit: 5_000_000_000, NoWiden: true}, false},
		{"rows below", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{Rows: 500}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := tidb.Parse(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			d, err := tidb.Render(tb, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			checkDDL(t, d, false)
			got := strings.Contains(d.Statements[0].SQL, "PRE_SPLIT_REGIONS")
			noted := strings.Contains(strings.Join(d.Notes, "\n"), "PRE_SPLIT_REGIONS left out")
			if got != tc.presplit || noted == tc.presplit {
				t.Errorf("pre-split %v (noted %v), want %v:\n%s\n%q", got, noted, tc.presplit, d.Statements[0].SQL, d.Notes)
			}
		})
	}
}

// TestCosts checks what the choice table says a rendering costs: keys that
// stop rising (auto-random, rotated-int), values past 2^53 (only outside
// the JavaScript-safe range), FULLTEXT on TiDB only, regions multiplied by
// partitions; and none for a plain shard-rowid table.
func TestCosts(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		o         tidb.Options
		want      []string
		not       []string
	}{
		{"auto-random", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{}, []string{"id no longer rises in insert order", "`id > ? ORDER BY id`", "--table NAME=shard-rowid"}, []string{"2^53"}},
		{"range 64", "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY)", tidb.Options{RangeBits: 64}, []string{"reaches 2^63", "--range 54"}, nil},
		{"unsigned range 54", "CREATE TABLE t (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY)", tidb.Options{RangeBits: 54}, []string{"reaches 2^54", "--range 53"}, nil},
		{"rotated-int", "CREATE TABLE t (id BIGINT PRIMARY KEY)", tidb.Options{Strategy: tidb.StrategyRotatedInt}, []string{"the application rotates its digits"}, nil},
		{"fulltext", "CREATE TABLE t (id INT PRIMARY KEY, b TEXT, FULLTEXT KEY ft (b))", tidb.Options{}, []string{"FULLTEXT KEY ft: TiDB 8.5 accepts it and builds no index"}, nil},
		{"fulltext for mysql", "CREATE TABLE t (id INT PRIMARY KEY, b TEXT, FULLTEXT KEY ft (b))", tidb.Options{Target: tidb.TargetMySQL}, nil, []string{"FULLTEXT"}},
		{"partitions", "CREATE TABLE t (id INT, v INT) PARTITION BY HASH (id) PARTITIONS 19", tidb.Options{}, []string{"each of the 19 partitions: 304 regions"}, nil},
		{"shard-rowid", "CREATE TABLE t (k VARCHAR(9) PRIMARY KEY)", tidb.Options{}, nil, []string{"rises", "2^53", "regions"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := tidb.Parse(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			d, err := tidb.Render(tb, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			costs := strings.Join(d.Costs, "\n")
			for _, w := range tc.want {
				if !strings.Contains(costs, w) {
					t.Errorf("costs lack %q:\n%s", w, costs)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(costs, w) {
					t.Errorf("costs hold %q:\n%s", w, costs)
				}
			}
		})
	}
}

// TestHotspotWarnings checks the warnings for indexes that keep taking
// inserts at one end: a leading AUTO_INCREMENT or now-defaulted column, a
// leading DATETIME the application fills, a growing column after the
// first, and an integer key the application fills kept as a NONCLUSTERED
// index; and none for an index on ordinary columns.
func TestHotspotWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		want      string
	}{
		{"auto_increment smallint key", "CREATE TABLE t (id SMALLINT AUTO_INCREMENT PRIMARY KEY)", "the NONCLUSTERED primary key leads with id, which is AUTO_INCREMENT"},
		{"widened int key", "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY)", ""},
		{"now default", "CREATE TABLE t (k VARCHAR(9) PRIMARY KEY, at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, KEY by_at (at))", "index by_at leads with at, which defaults to the current time"},
		{"application time", "CREATE TABLE t (k VARCHAR(9) PRIMARY KEY, at DATETIME, KEY by_at (at))", "index by_at leads with at, a DATETIME the application fills"},
		{"second column", "CREATE TABLE t (k VARCHAR(9) PRIMARY KEY, s INT, at TIMESTAMP DEFAULT NOW(), KEY s_at (s, at))", "index s_at holds at after s"},
		{"application key", "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)", "the NONCLUSTERED primary key id is filled by the application"},
		{"plain index", "CREATE TABLE t (k VARCHAR(9) PRIMARY KEY, d DATE, v INT, KEY kv (v, d))", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := tidb.Parse(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			d, err := tidb.Render(tb, tidb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(d.Warnings, "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("warnings %q, want %q", d.Warnings, tc.want)
			}
		})
	}
}
