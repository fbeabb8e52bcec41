package shardid_test

import (
	"context"
	"database/sql"
	"errors"
	"expvar"
	"fmt"
	"log"
	"os"
	"time"

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

// OnEvent feeds a log or metrics: each renewal with the lease's age, the
// database going and coming back, drawing stopped for want of a renewal,
// and a lost lease with its cause. It is called synchronously: keep it
// quick.
func ExampleLeaseSettings_onEvent() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	renewals := expvar.NewInt("lease_renewals") // on /debug/vars
	outages := expvar.NewInt("lease_database_outages")
	lease, err := shardid.AcquireLease(context.Background(), db, shardid.LeaseSettings{
		OnEvent: func(e shardid.LeaseEvent) {
			switch e.Kind {
			case shardid.LeaseRenewed:
				renewals.Add(1)
			case shardid.LeaseDatabaseDown:
				outages.Add(1)
				log.Print(e) // "node 3: database down: …"
			case shardid.LeaseExpired, shardid.LeaseLost, shardid.LeaseDatabaseUp:
				log.Print(e)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Close()
	st := lease.Stats() // renewals, failures, when drawing stops without another renewal
	fmt.Println(st.Node, st.DrawUntil)
}

// An event prints as one line.
func ExampleLeaseEvent_String() {
	fmt.Println(shardid.LeaseEvent{Kind: shardid.LeaseRenewed, Node: 3, Age: 3333 * time.Millisecond, Took: 800 * time.Microsecond})
	fmt.Println(shardid.LeaseEvent{Kind: shardid.LeaseDatabaseUp, Node: 3, Outage: 12 * time.Second})
	fmt.Println(shardid.LeaseEvent{Kind: shardid.LeaseLost, Node: 3, Err: errors.New("lease lost: an operator fenced every node of the table")})
	// Output:
	// node 3: lease renewed 3.333s after the previous renewal (took 800µs)
	// node 3: database up again after 12s
	// node 3: lost: lease lost: an operator fenced every node of the table
}

// After restoring the lease table from a backup, fence it before anything
// else: every holder stops at its next renewal, and no node id is taken
// again until every holder from before the restore has stopped drawing.
// (`shardid worker fence --dsn …` from a shell.)
func ExampleFenceLeases() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	res, err := shardid.FenceLeases(context.Background(), db, "", "", shardid.LeaseFenceSettings{
		TTL: 30 * time.Second, // the longest TTL any holder uses
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d node ids fenced until %s\n", res.Fenced, res.Until)
}
