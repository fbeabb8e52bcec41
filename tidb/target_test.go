package tidb_test

import (
	"database/sql"
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestTargetsOnServers renders a BIGINT AUTO_INCREMENT key (with the
// AUTO_INCREMENT=100 a dump carries) for each target and runs the CREATE
// TABLE and an INSERT that leaves the key out on TiDB and MariaDB. The
// TiDB text must give AUTO_RANDOM on TiDB and AUTO_INCREMENT on MariaDB,
// both starting at 100; the MySQL text AUTO_INCREMENT on MariaDB, and TiDB
// must refuse it (ERROR 8216) rather than create a hot AUTO_INCREMENT key.
// The negative control strips the /*M! … */ comments from the TiDB text:
// MariaDB then refuses the INSERT (ERROR 1364), the failure the comment
// prevents.
func TestTargetsOnServers(t *testing.T) {
	tb, err := tidb.Parse("CREATE TABLE t (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT=100")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[tidb.Target]string{}
	for _, target := range tidb.Targets() {
		d, err := tidb.Render(tb, tidb.Options{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		checkDDL(t, d, false)
		if d.Options.Strategy != tidb.StrategyAutoRandom || len(d.Statements) != 1 {
			t.Fatalf("%s: %s, %d statements", target, d.Options.Strategy, len(d.Statements))
		}
		texts[target] = d.Statements[0].SQL
	}
	if texts[tidb.TargetTiDB] != texts[tidb.TargetMariaDB] || texts[tidb.TargetTiDB] == texts[tidb.TargetMySQL] {
		t.Fatalf("the TiDB and MariaDB texts must match and differ from MySQL's:\n%s\n%s", texts[tidb.TargetTiDB], texts[tidb.TargetMySQL])
	}
	stripped := strings.ReplaceAll(strings.ReplaceAll(texts[tidb.TargetTiDB], "/*M! AUTO_INCREMENT */ ", ""), " /*M! AUTO_INCREMENT=100 */", "")
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			db := testsrv.Open(t, "mysql", srv.Database(t))
			first := func(sql string) (int64, error) {
				if _, err := db.Exec("DROP TABLE IF EXISTS t"); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(sql); err != nil {
					return 0, err
				}
				res, err := db.Exec("INSERT INTO t (v) VALUES (1)")
				if err != nil {
					return 0, err
				}
				return res.LastInsertId()
			}
			id, err := first(texts[tidb.TargetTiDB])
			switch {
			case err != nil:
				t.Fatalf("TiDB text: %v", err)
			case srv.TiDB && (id&(1<<48-1) != 100 || id >= 1<<53):
				t.Errorf("TiDB text on TiDB: first id %d, want increment 100 below 2^53", id)
			case !srv.TiDB && id != 100:
				t.Errorf("TiDB text on MariaDB: first id %d, want 100 (AUTO_INCREMENT=100)", id)
			}
			id, err = first(texts[tidb.TargetMySQL])
			var me *mysql.MySQLError
			switch {
			case srv.TiDB && (!errors.As(err, &me) || me.Number != 8216):
				t.Errorf("MySQL text on TiDB: %v; want ERROR 8216 (AUTO_INCREMENT beside AUTO_RANDOM)", err)
			case !srv.TiDB && (err != nil || id != 100):
				t.Errorf("MySQL text on MariaDB: first id %d, %v; want 100", id, err)
			}
			if srv.TiDB {
				return
			}
			if _, err := first(stripped); !errors.As(err, &me) || me.Number != 1364 {
				t.Errorf("negative control: without /*M! AUTO_INCREMENT */ MariaDB answered %v; want ERROR 1364", err)
			}
		})
	}
}

// TestJavaScriptSafeByDefault draws 300 keys, each in its own transaction
// (so each draws its own shard bits), from the AUTO_RANDOM key auto
// renders, and checks none reaches 2^53; the negative control renders
// --range 64 and checks most do, so the check would see a default that
// is not JavaScript-safe.
func TestJavaScriptSafeByDefault(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		for _, tc := range []struct {
			name      string
			rangeBits int
			safe      bool
		}{{"default", 0, true}, {"range64", 64, false}} {
			tb, err := tidb.Parse("CREATE TABLE js_" + tc.name + " (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT)")
			if err != nil {
				t.Fatal(err)
			}
			d, err := tidb.Render(tb, tidb.Options{RangeBits: tc.rangeBits})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(d.Statements[0].SQL); err != nil {
				t.Fatal(err)
			}
			for range 300 {
				if _, err := db.Exec("INSERT INTO js_" + tc.name + " (v) VALUES (1)"); err != nil {
					t.Fatal(err)
				}
			}
			var above int
			if err := db.QueryRow("SELECT COUNT(*) FROM js_" + tc.name + " WHERE id >= 9007199254740992").Scan(&above); err != nil {
				t.Fatal(err)
			}
			if (above == 0) != tc.safe || (!tc.safe && above < 150) {
				t.Errorf("%s: %d of 300 ids at or above 2^53", tc.name, above)
			}
		}
	})
}
