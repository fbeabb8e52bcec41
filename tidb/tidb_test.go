package tidb_test

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
)

// These tests need a real TiDB (TIDB_TEST_DSN); they skip without one.

// assertTiDBOptions checks that TiDB's SHOW CREATE TABLE kept the options.
func assertTiDBOptions(t *testing.T, s tidb.Strategy, create string) {
	t.Helper()
	var want []string
	switch s {
	case tidb.StrategyShardRowID:
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

func tidbDB(t *testing.T) *sql.DB {
	t.Helper()
	dsn := os.Getenv("TIDB_TEST_DSN")
	if dsn == "" {
		t.Skip("TIDB_TEST_DSN not set: no TiDB to check the effect on")
	}
	db, err := tidb.Open(tidbDatabase(t, dsn, "shardid_effect"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func renderOn(t *testing.T, db *sql.DB, input string, o tidb.Options) {
	t.Helper()
	tb, err := tidb.Parse(input)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tidb.Render(tb, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Statements {
		if _, err := db.Exec(s.SQL); err != nil {
			t.Fatalf("%v\n%s", err, s.SQL)
		}
	}
}

// TestTiDBShardBitsVary inserts rows in separate autocommit transactions
// and checks that the shard bits (the 4 bits under the sign bit of
// _tidb_rowid) take several values: the rows really scatter.
func TestTiDBShardBitsVary(t *testing.T) {
	db := tidbDB(t)
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
}

// TestTiDBPreSplitRegions checks that PRE_SPLIT_REGIONS=4 gives at least
// 2^4 regions for the table's rows.
func TestTiDBPreSplitRegions(t *testing.T) {
	db := tidbDB(t)
	if _, err := db.Exec("SET SESSION tidb_scatter_region = 1"); err != nil {
		t.Logf("tidb_scatter_region: %v", err)
	}
	renderOn(t, db, "CREATE TABLE presplit (k VARCHAR(20) PRIMARY KEY, v INT)", tidb.Options{})
	rows, err := db.Query("SHOW TABLE presplit REGIONS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if n < 16 {
		t.Errorf("SHOW TABLE presplit REGIONS lists %d regions, want at least 16", n)
	}
}

// TestTiDBRotatedSplit checks that SPLIT TABLE gave the rotated-int table a
// region per rotated digit.
func TestTiDBRotatedSplit(t *testing.T) {
	db := tidbDB(t)
	renderOn(t, db, "CREATE TABLE rotated (id BIGINT PRIMARY KEY, v INT)", tidb.Options{Strategy: tidb.StrategyRotatedInt, Lead: 5})
	var n int
	rows, err := db.Query("SHOW TABLE rotated REGIONS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		n++
	}
	if n < 10 {
		t.Errorf("rotated table has %d regions, want at least 10", n)
	}
}
