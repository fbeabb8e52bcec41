package tidb_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
)

// These tests check the effect of the rendered DDL on a real TiDB: the
// throwaway server (TIDB_BIN; CI fails without it) and, when TIDB_TEST_DSN
// is set, the user's own cluster too.

// assertTiDBOptions checks that TiDB's SHOW CREATE TABLE kept the options.
func assertTiDBOptions(t *testing.T, s tidb.Strategy, create string) {
	t.Helper()
	var want []string
	switch s {
	case tidb.StrategyShardRowID, tidb.StrategyAuto: // the seed tables have BIGINT keys the application fills
		want = []string{"NONCLUSTERED", "SHARD_ROW_ID_BITS=4", "PRE_SPLIT_REGIONS=4"}
	case tidb.StrategyAutoRandom:
		want = []string{"/*T![clustered_index] CLUSTERED */", "AUTO_RANDOM(5)"}
	case tidb.StrategyRotatedInt:
		want = []string{"/*T![clustered_index] CLUSTERED */"}
	}
	for _, w := range want {
		if !strings.Contains(create, w) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", w, create)
		}
	}
}

// eachTiDB runs f against a fresh database on every TiDB target.
func eachTiDB(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	for _, target := range targets(t) {
		if !target.tidb {
			continue
		}
		t.Run(target.name, func(t *testing.T) {
			t.Parallel()
			db, err := tidb.Open(target.database(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			f(t, db)
		})
	}
}

func renderOn(t *testing.T, db *sql.DB, input string, o tidb.Options) {
	t.Helper()
	for _, d := range renderSQL(t, input, o) {
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
	eachTiDB(t, func(t *testing.T, db *sql.DB) {
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
// bits (the 5 bits under the sign bit) that vary across inserts.
func TestTiDBAutoRandomCarriesShardBits(t *testing.T) {
	eachTiDB(t, func(t *testing.T, db *sql.DB) {
		renderOn(t, db, "CREATE TABLE ar (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT)", tidb.Options{})
		for i := range 200 {
			if _, err := db.Exec("INSERT INTO ar (v) VALUES (?)", i); err != nil {
				t.Fatal(err)
			}
		}
		var shards, negative int
		if err := db.QueryRow("SELECT COUNT(DISTINCT id >> 58), SUM(id < 0) FROM ar").Scan(&shards, &negative); err != nil {
			t.Fatal(err)
		}
		if shards < 8 || negative != 0 {
			t.Errorf("200 inserts used %d of 32 shard values (%d negative IDs)", shards, negative)
		}
	})
}

// TestTiDBPreSplitRegions checks that PRE_SPLIT_REGIONS=4 gives 2^4
// regions (tidb_scatter_region takes ”, 'table' or 'global' in 8.5; with
// 'table' the split finishes before CREATE TABLE returns).
func TestTiDBPreSplitRegions(t *testing.T) {
	eachTiDB(t, func(t *testing.T, db *sql.DB) {
		db.SetMaxOpenConns(1) // the session variable must hold for the CREATE
		if _, err := db.Exec("SET SESSION tidb_scatter_region = 'table'"); err != nil {
			t.Fatal(err)
		}
		renderOn(t, db, "CREATE TABLE presplit (k VARCHAR(20) PRIMARY KEY, v INT)", tidb.Options{})
		if n := regions(t, db, "presplit"); n < 16 {
			t.Errorf("SHOW TABLE presplit REGIONS lists %d regions, want at least 16", n)
		}
	})
}

// TestTiDBRotatedSplit checks that SPLIT TABLE gave the rotated-int table a
// region per rotated digit, and that ALTER's SPLIT gives an existing
// shard-rowid table its 2^P regions.
func TestTiDBRotatedSplit(t *testing.T) {
	eachTiDB(t, func(t *testing.T, db *sql.DB) {
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
	eachTiDB(t, func(t *testing.T, db *sql.DB) {
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
	eachTiDB(t, func(t *testing.T, db *sql.DB) {
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
