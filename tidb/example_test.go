package tidb_test

import (
	"context"
	"fmt"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
)

// The measured layout for a table whose key is text: NONCLUSTERED key,
// SHARD_ROW_ID_BITS=4, PRE_SPLIT_REGIONS=4, all in comments MySQL skips.
func ExampleRender() {
	t, err := tidb.Parse("CREATE TABLE orders (order_no VARCHAR(20) NOT NULL PRIMARY KEY, amount INT)")
	if err != nil {
		panic(err)
	}
	d, err := tidb.Render(t, tidb.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(d)
	// Output:
	// CREATE TABLE `orders` (
	//   `order_no` VARCHAR(20) NOT NULL,
	//   `amount` INT,
	//   PRIMARY KEY (`order_no`) /*T![clustered_index] NONCLUSTERED */
	// ) /*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */;
}

// A BIGINT AUTO_INCREMENT key becomes AUTO_RANDOM with 54 range bits
// (signed IDs stay below 2^53, exact as JavaScript numbers), pre-split into
// 16 regions. MariaDB reads the /*M! … */ comment and keeps AUTO_INCREMENT,
// TiDB reads the /*T! … */ ones; Costs say what readers of the key lose.
func ExampleRender_autoRandom() {
	t, _ := tidb.Parse("CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, kind VARCHAR(16))")
	d, err := tidb.Render(t, tidb.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(d)
	fmt.Println(d.Costs[0][:60] + "…")
	// Output:
	// CREATE TABLE `events` (
	//   `id` BIGINT NOT NULL /*M! AUTO_INCREMENT */ /*T![auto_rand] AUTO_RANDOM(5, 54) */,
	//   `kind` VARCHAR(16),
	//   PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */
	// ) /*T! PRE_SPLIT_REGIONS=4 */;
	// id no longer rises in insert order (AUTO_RANDOM puts random …
}

// TiDB cannot uncluster a key in place; the error says what to do.
func ExampleRenderAlter() {
	t, _ := tidb.Parse("CREATE TABLE t (id BIGINT PRIMARY KEY /*T![clustered_index] CLUSTERED */)")
	_, err := tidb.RenderAlter(t, tidb.Options{})
	fmt.Println(err)
	// Output:
	// render alter t: TiDB cannot alter the existing table this way: SHARD_ROW_ID_BITS needs a NONCLUSTERED key and TiDB cannot uncluster a primary key in place: create the table anew (shardid tidb render --strategy shard-rowid without --alter) under another name, copy the rows with INSERT … SELECT, then RENAME TABLE
}

// One rotated digit of 19-digit IDs led by 5: ten ranges, ten regions.
func ExampleRotatedSplitPoints() {
	p, _ := tidb.RotatedSplitPoints(1, 19, 5, false)
	fmt.Println(p[0], p[1], p[9])
	// Output: 5000000000000000000 5100000000000000000 5900000000000000000
}

// The path a user copies: read a schema script, render each table (auto
// picks the strategy), turn the result into goose migrations and apply
// them with goose's tidb dialect. Run it again and nothing is applied. It
// needs a TiDB (here a throwaway one; the tests skip this example, and say
// so, without a tidb-server binary).
func Example_migrate() {
	ctx := context.Background()
	dsn := exampleDSN // yours: "root@tcp(127.0.0.1:4000)/app"

	s, err := script.ParseScript(`
		DROP TABLE IF EXISTS orders;
		CREATE TABLE orders (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, note VARCHAR(20));
		CREATE TABLE tags (name VARCHAR(20) PRIMARY KEY);`, script.Options{})
	if err != nil {
		panic(err)
	}
	var ddls []*tidb.DDL
	for _, t := range s.Tables {
		d, err := tidb.Render(t, tidb.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s (%s)\n", t.Name, d.Options.Strategy, d.Reason)
		ddls = append(ddls, d)
	}
	migrations, err := apply.Migrations(&tidb.Plan{Tables: ddls}, apply.Options{})
	if err != nil {
		panic(err)
	}
	db, err := apply.Open(dsn)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	m, err := apply.NewMigrator(db, migrations, apply.Options{})
	if err != nil {
		panic(err)
	}
	for range 2 {
		results, err := m.Up(ctx)
		if err != nil {
			panic(err)
		}
		for _, r := range results {
			fmt.Printf("%s %s applied now: %v\n", r.Migration.Kind, r.Migration.Table, r.Applied)
		}
	}
	fmt.Println(s.Notes)
	// Output:
	// orders: auto-random (BIGINT AUTO_INCREMENT key: AUTO_RANDOM replaces AUTO_INCREMENT)
	// tags: shard-rowid (VARCHAR key)
	// create orders applied now: true
	// create tags applied now: true
	// create orders applied now: false
	// create tags applied now: false
	// [line 2: DROP statements never run (a migration refuses a table that already exists instead of dropping it)]
}
