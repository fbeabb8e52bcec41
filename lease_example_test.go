package shardid_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"

	_ "github.com/jackc/pgx/v5/stdlib" // or _ "github.com/go-sql-driver/mysql" for MySQL, MariaDB, TiDB

	"github.com/shardid/shardid"
)

// A process leases a node id from the database it already uses, draws IDs
// from the generator bound to the lease, and gives the id back on exit.
// The lease table comes first: `shardid worker up --dsn "$DATABASE_URL"`,
// or the migration of shardid.LeaseMigrations in your own goose directory.
func ExampleAcquireLease() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	lease, err := shardid.AcquireLease(context.Background(), db, shardid.LeaseSettings{
		Generator: shardid.Settings{Layout: shardid.Snowflake()},
		Holder:    os.Getenv("HOSTNAME"), // a stable name gets its node back after a restart
	})
	if err != nil {
		log.Fatal(err) // no free node, clock too far off, database unreachable: each named
	}
	defer lease.Close() // stop drawing and release the node

	g := lease.Generator() // node lease.Node(); renews in the background
	id, err := g.Next()    // ErrLeaseExpired once renewals have failed for TTL-Margin
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(lease.Node(), id)
}
