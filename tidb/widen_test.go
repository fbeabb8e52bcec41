package tidb_test

import (
	"context"
	"fmt"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tidb/spread"
	"github.com/shardid/shardid/tools/testsrv"
)

// intScript is the most common MySQL shape: INT AUTO_INCREMENT keys, an
// INT UNSIGNED one among them, and FOREIGN KEYs of INT columns pointing
// at them, with seed rows that refer to each other by number, and a
// column named for a key with no FOREIGN KEY (payment.OrderId).
const intScript = "CREATE TABLE customer (id INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, name VARCHAR(20), PRIMARY KEY (id)) ENGINE=InnoDB AUTO_INCREMENT=10;\n" +
	"CREATE TABLE orders (id INT NOT NULL AUTO_INCREMENT, customer_id INT(10) UNSIGNED NOT NULL, total DECIMAL(10,2), PRIMARY KEY (id), KEY (customer_id), CONSTRAINT fk_c FOREIGN KEY (customer_id) REFERENCES customer (id));\n" +
	"CREATE TABLE order_line (order_id INT NOT NULL, line SMALLINT NOT NULL, qty INT, PRIMARY KEY (order_id, line), CONSTRAINT fk_o FOREIGN KEY (order_id) REFERENCES orders (id));\n" +
	"CREATE TABLE payment (id BIGINT AUTO_INCREMENT PRIMARY KEY, OrderId INT, amount INT);\n" +
	"INSERT INTO customer (name) VALUES ('a'),('b');\n" +
	"INSERT INTO orders (customer_id, total) VALUES (10, 1.5), (11, 2.5);\n" +
	"INSERT INTO order_line VALUES (1, 1, 3), (2, 1, 4);\n"

// spreadInserts applies intScript rendered under o to a fresh TiDB
// database, makes n single-row inserts into orders (each its own
// transaction, as an application makes them) and measures how the keys
// TiDB gave them spread over regions with the spread package's model of
// TiKV's splits.
func spreadInserts(t *testing.T, o tidb.Options, n int) spread.Window {
	t.Helper()
	dsn := testsrv.Database(t, testsrv.TiDB(t))
	tidbtest.UpAll(t, dsn, tidbtest.PlanMigrations(t, tidbtest.PlanScript(t, intScript, o)))
	db := testsrv.Open(t, "mysql", dsn)
	var keys []int64
	for i := range n {
		res, err := db.Exec("INSERT INTO orders (customer_id, total) VALUES (10, ?)", i)
		if err != nil {
			t.Fatal(err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, id)
	}
	next := 0
	r, err := spread.Measure(func() (int64, error) { next++; return keys[next-1], nil }, spread.Config{Writes: n, Window: n / 6})
	if err != nil {
		t.Fatal(err)
	}
	return r.Steady()
}

// TestIntKeysSpread checks that an INT AUTO_INCREMENT key no longer sends
// every insert to one region: auto widens it to BIGINT AUTO_RANDOM (and
// the INT FOREIGN KEY columns pointing at it, so the script still applies
// with its seed rows), and 3,000 single-row inserts into orders spread
// their key writes over at least 8 regions, none taking more than 20%.
// Negative control: with NoWiden (the rendering before, shard-rowid
// keeping the key INT), the key index's writes all go to one region.
func TestIntKeysSpread(t *testing.T) {
	const n = 3000
	st := spreadInserts(t, tidb.Options{}, n)
	t.Logf("widened: %d regions, %d taking writes, hottest %.1f%%", st.Regions, st.Written, 100*st.Hottest)
	if st.Written < 8 || st.Hottest > 0.20 {
		t.Errorf("widened INT key: writes over %d regions, hottest %.1f%%; want at least 8, at most 20%%", st.Written, 100*st.Hottest)
	}
	kept := spreadInserts(t, tidb.Options{NoWiden: true}, n)
	t.Logf("--no-widen: %d regions, %d taking writes, hottest %.1f%%", kept.Regions, kept.Written, 100*kept.Hottest)
	if kept.Written >= 8 || kept.Hottest <= 0.20 {
		t.Errorf("negative control: the INT key kept spread over %d regions, hottest %.1f%%; the check would not catch a hot key", kept.Written, 100*kept.Hottest)
	}
}

// TestWidenedForeignKeys checks what widening writes: the INT keys become
// BIGINT (UNSIGNED kept) with AUTO_RANDOM, every INT column a FOREIGN KEY
// points from at them becomes BIGINT too, along the chain, and so does a
// column named for one of them, each change noted; NoWiden leaves every column as written; and on MariaDB the
// rendering applies with its seed rows, the keys AUTO_INCREMENT BIGINT.
func TestWidenedForeignKeys(t *testing.T) {
	s, err := script.ParseScript(intScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"customer":   {"`id` BIGINT UNSIGNED NOT NULL /*M! AUTO_INCREMENT */ /*T![auto_rand] AUTO_RANDOM(5, 53) */"},
		"orders":     {"`id` BIGINT NOT NULL /*M! AUTO_INCREMENT */ /*T![auto_rand] AUTO_RANDOM(5, 54) */", "`customer_id` BIGINT UNSIGNED NOT NULL"},
		"order_line": {"`order_id` BIGINT NOT NULL", "`line` SMALLINT NOT NULL", "`qty` INT"},
		"payment":    {"`OrderId` BIGINT,", "`amount` INT"},
	}
	for _, d := range p.Tables {
		for _, w := range want[d.Table.Name] {
			if !strings.Contains(d.String(), w) {
				t.Errorf("%s lacks %q:\n%s", d.Table.Name, w, d)
			}
		}
		if d.Table.Name == "payment" && !strings.Contains(strings.Join(d.Notes, "\n"), "OrderId widened from INT to BIGINT: it is named for orders.id") {
			t.Errorf("payment: notes %q say nothing of OrderId widened", d.Notes)
		}
		if (d.Table.Name == "orders" || d.Table.Name == "order_line") && !strings.Contains(strings.Join(d.Notes, "\n"), "widened to BIGINT (a FOREIGN KEY needs") {
			t.Errorf("%s: notes %q say nothing of the FOREIGN KEY column widened", d.Table.Name, d.Notes)
		}
	}
	kept, err := tidb.RenderScript(s, tidb.Options{NoWiden: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range kept.Tables {
		if d.Table.Name != "payment" && (strings.Contains(d.String(), "BIGINT") || d.Options.Strategy != tidb.StrategyShardRowID) {
			t.Errorf("NoWiden: %s is %s:\n%s", d.Table.Name, d.Options.Strategy, d)
		}
	}
	dsn := testsrv.Database(t, testsrv.MariaDB(t))
	tidbtest.UpAll(t, dsn, tidbtest.PlanMigrations(t, tidbtest.PlanScript(t, intScript, tidb.Options{Target: tidb.TargetMariaDB})))
	db := testsrv.Open(t, "mysql", dsn)
	var lines int
	if err := db.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM order_line l JOIN orders o ON o.id = l.order_id JOIN customer c ON c.id = o.customer_id").Scan(&lines); err != nil || lines != 2 {
		t.Errorf("MariaDB: %d order lines reach their customer (%v), want 2", lines, err)
	}
	if got := fmt.Sprint(tidbtest.ShowCreate(t, dsn, "orders")); !strings.Contains(got, "`id` bigint(20) NOT NULL AUTO_INCREMENT") {
		t.Errorf("MariaDB orders:\n%s", got)
	}
}
