package tidb_test

import (
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// virtualScript adds generated columns with NULL and NOT NULL by ALTER
// TABLE, folded into the CREATE TABLE, before an unrelated table.
const virtualScript = "CREATE TABLE a (id INT PRIMARY KEY, x INT);\n" +
	"ALTER TABLE a ADD y INT AS (x + 1) VIRTUAL NULL;\n" +
	"ALTER TABLE a ADD z INT AS (x * 2) STORED NOT NULL;\n" +
	"CREATE TABLE b (id BIGINT PRIMARY KEY, v VARCHAR(9));\n" +
	"INSERT INTO a (id, x) VALUES (1, 2);\n"

// TestGeneratedColumnFold applies virtualScript through goose on TiDB and
// MariaDB: the folded generated columns are written in a form each
// server reads (no NULL after VIRTUAL; on MariaDB no NOT NULL either), so
// both tables are created and the row computes y and z. Negative control:
// the fold as it was (VIRTUAL NULL) makes MariaDB refuse table a
// (ERROR 1064), and up stops before table b.
func TestGeneratedColumnFold(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			ms := tidbtest.PlanMigrations(t, tidbtest.PlanScript(t, virtualScript, tidb.Options{Target: srv.RenderTarget()}))
			dsn := srv.Database(t)
			tidbtest.UpAll(t, dsn, ms)
			var y, z int
			if err := testsrv.Open(t, "mysql", dsn).QueryRow("SELECT y, z FROM a WHERE id = 1").Scan(&y, &z); err != nil || y != 3 || z != 4 {
				t.Errorf("y, z = %d, %d (%v); want 3, 4", y, z, err)
			}
			if tidbtest.ShowCreate(t, dsn, "b") == "" {
				t.Error("table b is missing")
			}
			if srv.TiDB {
				return
			}
			for i := range ms {
				if ms[i].Kind == script.KindCreate && ms[i].Table == "a" {
					ms[i].Text = strings.Replace(ms[i].Text, "VIRTUAL", "VIRTUAL NULL", 1)
				}
			}
			dsn = srv.Database(t)
			_, _, err := tidbtest.Up(t, dsn, ms, "")
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1064 {
				t.Errorf("VIRTUAL NULL on MariaDB: %v; want ERROR 1064", err)
			}
			if got := tidbtest.ShowCreate(t, dsn, "b"); got != "" {
				t.Errorf("table b exists after the failed fold:\n%s", got)
			}
		})
	}
}
