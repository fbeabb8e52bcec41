package tidb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tools/testsrv"
)

// These tests check the effect of the rendered DDL on a real TiDB: the
// throwaway server (TIDB_BIN; CI fails without it) and, when TIDB_TEST_DSN
// is set, the user's own cluster too.

func renderOn(t *testing.T, db *sql.DB, input string, o tidb.Options) {
	t.Helper()
	for _, d := range tidbtest.RenderSQL(t, input, o) {
		for _, s := range d.Statements {
			if _, err := db.Exec(s.SQL); err != nil {
				t.Fatalf("%v\n%s", err, s.SQL)
			}
		}
	}
}

func regions(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	rows, err := db.Query("SHOW TABLE " + table + " REGIONS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n
}

// TestTiDBShardBitsVary inserts rows in separate autocommit transactions
// and checks that the shard bits (the 4 bits under the sign bit of
// _tidb_rowid) take several values: the rows really scatter.
func TestTiDBShardBitsVary(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		renderOn(t, db, "CREATE TABLE scatter (k VARCHAR(20) PRIMARY KEY, v INT)", tidb.Options{})
		for i := range 200 {
			if _, err := db.Exec("INSERT INTO scatter VALUES (?, ?)", i, i); err != nil {
				t.Fatal(err)
			}
		}
		var shards int
		if err := db.QueryRow("SELECT COUNT(DISTINCT _tidb_rowid >> 59) FROM scatter").Scan(&shards); err != nil {
			t.Fatal(err)
		}
		if shards < 4 {
			t.Errorf("200 autocommit inserts used %d of 16 shards", shards)
		}
	})
}

// TestTiDBAutoRandomCarriesShardBits checks that a BIGINT AUTO_INCREMENT
// key rendered by auto becomes AUTO_RANDOM and that its values carry shard
// bits (the 5 bits under the sign bit of the 54-bit range) that vary
// across inserts.
func TestTiDBAutoRandomCarriesShardBits(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		renderOn(t, db, "CREATE TABLE ar (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT)", tidb.Options{})
		for i := range 200 {
			if _, err := db.Exec("INSERT INTO ar (v) VALUES (?)", i); err != nil {
				t.Fatal(err)
			}
		}
		// AUTO_RANDOM(5, 54): the shard bits are bits 48–52, under the
		// sign bit of a 54-bit range, so every id stays below 2^53.
		var shards, outside int
		if err := db.QueryRow("SELECT COUNT(DISTINCT id >> 48), SUM(id < 0 OR id >= 9007199254740992) FROM ar").Scan(&shards, &outside); err != nil {
			t.Fatal(err)
		}
		if shards < 8 || outside != 0 {
			t.Errorf("200 inserts used %d of 32 shard values (%d IDs outside 0–2^53)", shards, outside)
		}
	})
}

// TestTiDBPreSplitRegions checks that PRE_SPLIT_REGIONS=4 gives 2^4
// regions, for shard-rowid and auto-random tables, (tidb_scatter_region takes ”, 'table' or 'global' in 8.5; with
// 'table' the split finishes before CREATE TABLE returns).
func TestTiDBPreSplitRegions(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		db.SetMaxOpenConns(1) // the session variable must hold for the CREATE
		if _, err := db.Exec("SET SESSION tidb_scatter_region = 'table'"); err != nil {
			t.Fatal(err)
		}
		renderOn(t, db, "CREATE TABLE presplit (k VARCHAR(20) PRIMARY KEY, v INT)", tidb.Options{})
		if n := regions(t, db, "presplit"); n < 16 {
			t.Errorf("SHOW TABLE presplit REGIONS lists %d regions, want at least 16", n)
		}
		// An AUTO_RANDOM table is pre-split too (at its 54-bit range's
		// shard boundaries); a SMALLINT key's table, below --min-split, is
		// not.
		renderOn(t, db, "CREATE TABLE presplit_ar (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)", tidb.Options{})
		if n := regions(t, db, "presplit_ar"); n < 16 {
			t.Errorf("SHOW TABLE presplit_ar REGIONS lists %d regions, want at least 16", n)
		}
		renderOn(t, db, "CREATE TABLE small (id SMALLINT AUTO_INCREMENT PRIMARY KEY, v INT)", tidb.Options{})
		if n := regions(t, db, "small"); n != 1 {
			t.Errorf("SHOW TABLE small REGIONS lists %d regions, want 1", n)
		}
	})
}

// TestTiDBRotatedSplit checks that SPLIT TABLE gave the rotated-int table a
// region per rotated digit, and that ALTER's SPLIT gives an existing
// shard-rowid table its 2^P regions.
func TestTiDBRotatedSplit(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		renderOn(t, db, "CREATE TABLE rotated (id BIGINT PRIMARY KEY, v INT)", tidb.Options{Strategy: tidb.StrategyRotatedInt, Lead: 5})
		if n := regions(t, db, "rotated"); n < 10 {
			t.Errorf("rotated table has %d regions, want at least 10", n)
		}
		if _, err := db.Exec("CREATE TABLE plain (k VARCHAR(9), PRIMARY KEY (k) NONCLUSTERED)"); err != nil {
			t.Fatal(err)
		}
		var name, create string
		if err := db.QueryRow("SHOW CREATE TABLE plain").Scan(&name, &create); err != nil {
			t.Fatal(err)
		}
		tb, err := tidb.Parse(create)
		if err != nil {
			t.Fatal(err)
		}
		d, err := tidb.RenderAlter(tb, tidb.Options{Strategy: tidb.StrategyShardRowID, ShardBits: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Statements {
			if _, err := db.Exec(s.SQL); err != nil {
				t.Fatalf("%v\n%s", err, s.SQL)
			}
		}
		if n := regions(t, db, "plain"); n < 8 {
			t.Errorf("altered table has %d regions, want at least 8", n)
		}
	})
}

// TestTiDBRulesMatchTheServer checks the limits the package enforces
// against the server: what Render refuses, TiDB refuses too, and the
// nearest value Render accepts, TiDB accepts. Without this the package's
// rules could drift from TiDB's.
func TestTiDBRulesMatchTheServer(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		for _, c := range []struct {
			sql string
			ok  bool
		}{
			{"CREATE TABLE r1 (id BIGINT PRIMARY KEY AUTO_RANDOM(5, 32))", false},          // 26 increment bits
			{"CREATE TABLE r2 (id BIGINT PRIMARY KEY AUTO_RANDOM(5, 33))", true},           // 27
			{"CREATE TABLE r3 (id BIGINT UNSIGNED PRIMARY KEY AUTO_RANDOM(5, 32))", true},  // 27, no sign bit
			{"CREATE TABLE r4 (id BIGINT UNSIGNED PRIMARY KEY AUTO_RANDOM(6, 32))", false}, // 26
		} {
			tb, err := tidb.Parse(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			col := tb.Columns[0]
			_, rerr := tidb.Render(tb, tidb.Options{Strategy: tidb.StrategyAutoRandom, ShardBits: col.AutoRandomShardBits, RangeBits: col.AutoRandomRangeBits})
			_, xerr := db.ExecContext(ctx, c.sql)
			if (rerr == nil) != c.ok || (xerr == nil) != c.ok {
				t.Errorf("%s: Render %v, TiDB %v; want accepted=%v", c.sql, rerr, xerr, c.ok)
			}
		}
		// ALTER from AUTO_INCREMENT may not change the range bits (asked
		// with the session setting the switch needs, so that TiDB refuses
		// the range bits and not the setting's absence).
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "CREATE TABLE r5 (id BIGINT AUTO_INCREMENT PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "SET @@SESSION.tidb_allow_remove_auto_inc = ON"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "ALTER TABLE r5 MODIFY COLUMN id BIGINT AUTO_RANDOM(5, 54)"); err == nil || !strings.Contains(err.Error(), "range bits") {
			t.Errorf("TiDB changed the range bits in place, or refused for another reason (%v); RenderAlter refuses that", err)
		}
	})
}

// TestAlterToAutoRandom runs what render --alter prints for the one switch
// TiDB allows in place, a clustered BIGINT AUTO_INCREMENT key to
// AUTO_RANDOM, in order on one session of a real TiDB, from the table's
// SHOW CREATE TABLE: the key becomes AUTO_RANDOM, and rows inserted after
// the switch do not collide with those before it.
func TestAlterToAutoRandom(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "CREATE TABLE ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO ai (v) VALUES (1), (2), (3)"); err != nil {
			t.Fatal(err)
		}
		var name, create string
		if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE ai").Scan(&name, &create); err != nil {
			t.Fatal(err)
		}
		tb, err := tidb.Parse(create)
		if err != nil {
			t.Fatal(err)
		}
		d, err := tidb.RenderAlter(tb, tidb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Statements {
			if _, err := conn.ExecContext(ctx, s.SQL); err != nil {
				t.Fatalf("%v\n%s", err, d)
			}
		}
		if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE ai").Scan(&name, &create); err != nil || !strings.Contains(create, "AUTO_RANDOM(5)") {
			t.Fatalf("after the switch (%v):\n%s", err, create)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO ai (v) VALUES (4), (5), (6)"); err != nil {
			t.Fatal(err)
		}
	})
}

// keyExpression is a table whose BIGINT AUTO_INCREMENT key `编号` an
// expression reads, and what TiDB does with it.
type keyExpression struct {
	name, key, columns, after string        // the key's extra options, the other columns, the clauses after them
	inputErr                  string        // TiDB's error for the input as written, "" if it takes it
	insertErr                 string        // TiDB's error inserting under AUTO_RANDOM, "" if none
	auto                      tidb.Strategy // auto's pick where the input is taken
}

// TestTiDBExpressionsOnTheKey checks, on a real TiDB, tables whose BIGINT
// AUTO_INCREMENT key a generated column, an expression key or the
// partitioning reads. TiDB refuses the input itself for a generated
// column or an expression key (so does Render, whatever keeps
// AUTO_INCREMENT); it takes them once the key is AUTO_RANDOM, but then
// inserts fail on the large keys, which is why auto never picks
// auto-random for them and an explicit auto-random warns. Partitioning by
// RANGE works with AUTO_INCREMENT, so auto picks shard-rowid, whose
// inserts all succeed. HASH partitioning takes any value: auto-random
// stays, without a warning.
func TestTiDBExpressionsOnTheKey(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		checkKeyExpressions(t, db, []keyExpression{
			{"用户表", "", "`双倍` BIGINT AS (`编号`*2) VIRTUAL", "", "3109", "1690", ""},
			{"stored", "", "`双倍` BIGINT AS (`编号`*2) STORED", "", "3109", "1690", ""},
			{"expression_key", "", "v INT, KEY k ((`编号` * 4))", "", "3754", "1690", ""},
			{"by_range", "", "v INT", "PARTITION BY RANGE (`编号`) (PARTITION p0 VALUES LESS THAN (1000000), PARTITION p1 VALUES LESS THAN (2000000))", "", "1526", tidb.StrategyShardRowID},
			{"by_range_columns", "", "v INT", "PARTITION BY RANGE COLUMNS (`编号`) (PARTITION p0 VALUES LESS THAN (1000000), PARTITION p1 VALUES LESS THAN (2000000))", "", "1526", tidb.StrategyShardRowID},
			{"by_hash", "", "v INT", "PARTITION BY HASH (`编号`) PARTITIONS 4", "", "", tidb.StrategyAutoRandom},
			{"reads_other", "", "v INT, w INT AS (v*2), CONSTRAINT c CHECK (v > 0), KEY k ((v*4))", "", "", "", tidb.StrategyAutoRandom},
		})
	})
}

// TestTiDBChecksOnTheKey checks CHECK constraints on the key, on a TiDB of
// its own: TiDB enforces them only with the global
// tidb_enable_check_constraint ON (OFF by default: it then drops every
// CHECK, with a warning), and a test may not set a global on a shared
// server.
func TestTiDBChecksOnTheKey(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a TiDB of its own")
	}
	t.Parallel()
	db, err := apply.Open(testsrv.Database(t, testsrv.NewTiDB(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// OFF: the input is taken, its CHECK dropped.
	if _, err := db.Exec("CREATE TABLE off (`编号` BIGINT AUTO_INCREMENT PRIMARY KEY CHECK (`编号` < 1000000000000))"); err != nil {
		t.Fatal(err)
	}
	var name, create string
	if err := db.QueryRow("SHOW CREATE TABLE off").Scan(&name, &create); err != nil || strings.Contains(create, "CHECK") {
		t.Fatalf("with tidb_enable_check_constraint OFF TiDB kept the CHECK (%v):\n%s", err, create)
	}
	if _, err := db.Exec("SET GLOBAL tidb_enable_check_constraint = ON"); err != nil {
		t.Fatal(err)
	}
	checkKeyExpressions(t, db, []keyExpression{
		{"column_check", "CHECK (`编号` < 1000000000000)", "v INT", "", "3818", "3819", ""},
		{"table_check", "", "v INT, CONSTRAINT small CHECK (`编号` + 1 < 1000000000000)", "", "3818", "3819", ""},
	})
}

// checkKeyExpressions runs each case on db: the input as written, auto's
// rendering and auto-random's, inserting rows under both.
func checkKeyExpressions(t *testing.T, db *sql.DB, cases []keyExpression) {
	t.Helper()
	ctx := context.Background()
	for i, c := range cases {
		input := fmt.Sprintf("CREATE TABLE `%s` (`编号` BIGINT AUTO_INCREMENT PRIMARY KEY %s, %s) %s", c.name, c.key, c.columns, c.after)
		tb, err := tidb.Parse(input)
		if err != nil {
			t.Fatal(err)
		}
		_, xerr := db.ExecContext(ctx, input)
		if (xerr == nil) != (c.inputErr == "") || (xerr != nil && !strings.Contains(xerr.Error(), c.inputErr)) {
			t.Errorf("%s: TiDB said %v to the input; want error %q", c.name, xerr, c.inputErr)
		}
		// auto: refused where TiDB refuses the input, else a strategy
		// whose inserts all succeed.
		d, err := tidb.Render(tb, tidb.Options{})
		switch {
		case c.inputErr != "":
			if !errors.Is(err, tidb.ErrConflict) || !strings.Contains(err.Error(), "ERROR "+c.inputErr) {
				t.Errorf("%s: auto rendered %v, %v; want a conflict naming ERROR %s", c.name, d, err, c.inputErr)
			}
		case err != nil || d.Options.Strategy != c.auto:
			t.Errorf("%s: auto gave %v, %v; want %s", c.name, d, err, c.auto)
		default:
			d.Table.Name = fmt.Sprintf("auto%d", i)
			if got := insertKeys(t, db, d, 32); got != nil {
				t.Errorf("%s: auto (%s, %s): insert failed: %v", c.name, d.Options.Strategy, d.Reason, got)
			}
		}
		// auto-random asked for, with TiDB's full range (values up to
		// 2^63-1): TiDB takes the table, and the warning is no false alarm:
		// inserts fail.
		tb, _ = tidb.Parse(input)
		d, err = tidb.Render(tb, tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: tidb.TiDBRangeBits})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (len(d.KeyWarnings) == 0) != (c.insertErr == "") {
			t.Errorf("%s: auto-random warnings %q; want one unless nothing reads the key", c.name, d.KeyWarnings)
		}
		for _, w := range d.KeyWarnings {
			if !strings.Contains(w, "ERROR "+c.insertErr) {
				t.Errorf("%s: warning %q does not name ERROR %s", c.name, w, c.insertErr)
			}
		}
		d.Table.Name = fmt.Sprintf("ar%d", i)
		got := insertKeys(t, db, d, 32)
		if (got == nil) != (c.insertErr == "") || (got != nil && !strings.Contains(got.Error(), c.insertErr)) {
			t.Errorf("%s under auto-random: 32 inserts gave %v; want error %q", c.name, got, c.insertErr)
		}
	}
}

// insertKeys creates d's table (renamed by the caller, since the input's
// name may be taken) and inserts n rows, each in its own transaction so that each draws
// its own shard bits, leaving the key to the table. It returns the first
// insert error.
func insertKeys(t *testing.T, db *sql.DB, d *tidb.DDL, n int) error {
	t.Helper()
	d, err := tidb.Render(d.Table, d.Options)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Statements {
		if _, err := db.Exec(s.SQL); err != nil {
			t.Fatalf("%v\n%s", err, s.SQL)
		}
	}
	q := "INSERT INTO `" + d.Table.Name + "` (`编号`) VALUES (NULL)"
	for range n {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	return nil
}
