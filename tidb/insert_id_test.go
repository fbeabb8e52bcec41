package tidb_test

import (
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// shopScript seeds parents and children the way OpenCart-style install
// scripts do: a parent's key read back with LAST_INSERT_ID(), straight in
// VALUES or kept in a user variable first.
const shopScript = "SET NAMES utf8mb4;\nSET FOREIGN_KEY_CHECKS = 0;\n" +
	"CREATE TABLE shop_category (category_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, parent_id BIGINT UNSIGNED NOT NULL DEFAULT 0, name VARCHAR(128) NOT NULL);\n" +
	"CREATE TABLE shop_product (product_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, category_id BIGINT UNSIGNED NOT NULL, sku VARCHAR(64) NOT NULL,\n" +
	"  CONSTRAINT fk_product_category FOREIGN KEY (category_id) REFERENCES shop_category (category_id));\n" +
	"CREATE TABLE shop_setting (setting_id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, code VARCHAR(32) NOT NULL);\n" +
	"INSERT INTO shop_category (parent_id, name) VALUES (0, 'Desktops');\n" + // line 7: 1
	"SET @desktops = LAST_INSERT_ID();\n" +
	"INSERT INTO shop_category (parent_id, name) VALUES (@desktops, 'PC'), (@desktops, 'Mac');\n" + // 2, 3
	"INSERT INTO shop_setting (code) VALUES ('config_name');\n" + // LAST_INSERT_ID() 1 (shop_setting)
	"INSERT INTO shop_category (category_id, parent_id, name) VALUES (10, 0, 'Given');\n" + // explicit: LAST_INSERT_ID() stays 1
	"INSERT INTO shop_category (parent_id, name) VALUES (0, 'Laptops');\n" + // 11
	"INSERT INTO shop_product (category_id, sku) VALUES (LAST_INSERT_ID(), 'MBP-14');\n" +
	"SET FOREIGN_KEY_CHECKS = 1;\n"

// TestLastInsertID checks that seed data reading LAST_INSERT_ID() or a
// user variable set from it gets the parent keys the mysql client gives
// it (each written in, noted), on TiDB and MariaDB, where a migration's
// own LAST_INSERT_ID() is goose's; and that what shardid cannot work out
// is refused with the line, LAST_INSERT_ID or the variable, and the way
// forward, never loaded with another value.
func TestLastInsertID(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			target := tidb.TargetMariaDB
			if srv.TiDB {
				target = tidb.TargetTiDB
			}
			s, err := script.ParseScript(shopScript, script.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := tidb.RenderScript(s, tidb.Options{Target: target})
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(p.Notes, "\n")
			for _, want := range []string{"line 9: \"INSERT INTO shop_category …\": @desktops = 1 written in", "line 13: \"INSERT INTO shop_product …\": LAST_INSERT_ID() = 11 written in"} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
			ms, err := apply.Migrations(p, apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dsn := srv.Database(t)
			if _, _, err := tidbtest.Up(t, dsn, ms, ""); err != nil {
				t.Fatal(err)
			}
			db := testsrv.Open(t, "mysql", dsn)
			rows, err := db.Query("SELECT c.name, c.parent_id FROM shop_category c ORDER BY c.category_id")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var name string
				var parent int
				if err := rows.Scan(&name, &parent); err != nil {
					t.Fatal(err)
				}
				got = append(got, name+"←"+string(rune('0'+parent)))
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if want := "Desktops←0 PC←1 Mac←1 Given←0 Laptops←0"; strings.Join(got, " ") != want {
				t.Errorf("categories %q, want %q", strings.Join(got, " "), want)
			}
			var product string
			if err := db.QueryRow("SELECT c.name FROM shop_product p JOIN shop_category c ON c.category_id = p.category_id").Scan(&product); err != nil || product != "Laptops" {
				t.Errorf("the product's category is %q (%v), want Laptops", product, err)
			}
		})
	}
}

// TestLastInsertIDRefused checks the refusals: each names the line, what
// cannot be worked out and --skip-data.
func TestLastInsertIDRefused(t *testing.T) {
	const tables = "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT);\nCREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, a_id INT);\n"
	for _, c := range []struct{ name, data, want string }{
		{"insert select", "INSERT INTO a (v) SELECT 1;\nINSERT INTO b (a_id) VALUES (LAST_INSERT_ID());\n", "line 4: \"INSERT INTO b …\": LAST_INSERT_ID() here is the key the INSERT at line 3 got from the server"},
		{"variable from an expression", "SET @m = (SELECT MAX(id) FROM a);\nINSERT INTO b (a_id) VALUES (@m);\n", "line 4: \"INSERT INTO b …\": @m: line 3 sets it to an expression shardid does not evaluate"},
		{"variable never set", "INSERT INTO b (a_id) VALUES (@nope);\n", "line 3: \"INSERT INTO b …\": @nope is never set by the script before it"},
		{"LAST_INSERT_ID(expr)", "INSERT INTO a (v) VALUES (LAST_INSERT_ID(5));\n", "LAST_INSERT_ID(expr) sets the value for later statements"},
		{"after LOAD DATA", "LOAD DATA LOCAL INFILE 'a.csv' INTO TABLE a (v);\nUPDATE b SET a_id = LAST_INSERT_ID();\n", "line 4: \"UPDATE b SET …\": LAST_INSERT_ID() here is set by the rows LOAD DATA at line 3 loads"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := script.ParseScript(tables+c.data, script.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = tidb.RenderScript(s, tidb.Options{})
			if !errors.Is(err, script.ErrInsertID) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--skip-data") {
				t.Errorf("got %v\nwant ErrInsertID with %q and --skip-data", err, c.want)
			}
			// --skip-data takes the script.
			s, err = script.ParseScript(tables+c.data, script.Options{SkipData: true})
			if err == nil {
				_, err = tidb.RenderScript(s, tidb.Options{})
			}
			if err != nil {
				t.Errorf("--skip-data: %v", err)
			}
		})
	}
}
