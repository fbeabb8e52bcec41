package lease_test

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
	"github.com/shardid/shardid/lease"
)

// An application wires a lease into its generator by taking the one the
// lease built: Acquire claims a node id and makes the shardid.Generator
// for it with two fields of shardid.Settings, LastDrawn (where the node's
// earlier holders stopped: the first ID is at a later tick) and Fence (the
// lease's check, asked before every draw). Hand Lease.Generator to the
// code that makes IDs; it draws only while the lease covers it, and once
// the lease is closed or lost every draw returns the lease's reason. A
// later holder of the node id, here the same holder name back after a
// restart, draws above every ID drawn before.
//
// The database comes from DATABASE_URL: the package's tests point it at a
// throwaway PostgreSQL server.
func Example_generator() {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := lease.Up(ctx, db, "", ""); err != nil { // the lease table, once (shardid worker up)
		log.Fatal(err)
	}

	l, err := lease.Acquire(ctx, db, lease.Settings{
		Generator: shardid.Settings{Layout: shardid.Snowflake()}, // Node stays 0: the lease picks it
		Holder:    "web-1",
	})
	if err != nil {
		log.Fatal(err)
	}
	var g *shardid.Generator = l.Generator() // the only generator for l.Node()
	id, err := g.Next()
	if err != nil {
		log.Fatal(err)
	}
	p, _ := g.Layout().Decompose(id)
	fmt.Println("drawn on the leased node:", p.Shard == l.Node())

	if err := l.Close(); err != nil { // records the last tick drawn at, gives the node back
		log.Fatal(err)
	}
	_, err = g.Next()
	fmt.Println("after Close:", errors.Is(err, lease.ErrClosed))

	again, err := lease.Acquire(ctx, db, lease.Settings{Holder: "web-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer again.Close()
	next, err := again.Next()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the same node again:", again.Node() == l.Node(), "drawing above:", next > id)
	// Output:
	// drawn on the leased node: true
	// after Close: true
	// the same node again: true drawing above: true
}

// A process leases a node id from the database it already uses, draws IDs
// from the generator bound to the lease, and gives the id back on exit.
// The lease table comes first: `shardid worker up --dsn "$DATABASE_URL"`,
// or the migration of lease.Migrations in your own goose directory.
func ExampleAcquire() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	l, err := lease.Acquire(context.Background(), db, lease.Settings{
		Generator: shardid.Settings{Layout: shardid.Snowflake()},
		Holder:    os.Getenv("HOSTNAME"), // a stable name gets its node back after a restart
	})
	if err != nil {
		log.Fatal(err) // no free node, clock too far off, database unreachable: each named
	}
	defer l.Close() // stop drawing and release the node

	g := l.Generator()  // node l.Node(); renews in the background
	id, err := g.Next() // ErrExpired once renewals have failed for TTL-Margin
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Node(), id)
}

// OnEvent feeds a log or metrics: each renewal with the lease's age, the
// database going and coming back, drawing stopped for want of a renewal,
// and a lost lease with its cause. It is called synchronously: keep it
// quick.
func ExampleSettings_onEvent() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	renewals := expvar.NewInt("lease_renewals") // on /debug/vars
	outages := expvar.NewInt("lease_database_outages")
	l, err := lease.Acquire(context.Background(), db, lease.Settings{
		OnEvent: func(e lease.Event) {
			switch e.Kind {
			case lease.Renewed:
				renewals.Add(1)
			case lease.DatabaseDown:
				outages.Add(1)
				log.Print(e) // "node 3: database down: …"
			case lease.Expired, lease.Lost, lease.DatabaseUp:
				log.Print(e)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	st := l.Stats() // renewals, failures, when drawing stops without another renewal
	fmt.Println(st.Node, st.DrawUntil)
}

// An event prints as one line.
func ExampleEvent_String() {
	fmt.Println(lease.Event{Kind: lease.Renewed, Node: 3, Age: 3333 * time.Millisecond, Took: 800 * time.Microsecond})
	fmt.Println(lease.Event{Kind: lease.DatabaseUp, Node: 3, Outage: 12 * time.Second})
	fmt.Println(lease.Event{Kind: lease.Lost, Node: 3, Err: errors.New("lease lost: an operator fenced every node of the table")})
	// Output:
	// node 3: lease renewed 3.333s after the previous renewal (took 800µs)
	// node 3: database up again after 12s
	// node 3: lost: lease lost: an operator fenced every node of the table
}

// After restoring the lease table from a backup, fence it before anything
// else: every holder stops at its next renewal, and no node id is taken
// again until every holder from before the restore has stopped drawing.
// (`shardid worker fence --dsn …` from a shell.)
func ExampleFence() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	res, err := lease.Fence(context.Background(), db, "", "", lease.FenceSettings{
		TTL: 30 * time.Second, // the longest TTL any holder uses
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d node ids fenced until %s\n", res.Fenced, res.Until)
}
