package tickets_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	_ "github.com/go-sql-driver/mysql" // driver "mysql"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// Flickr's two ticket servers: increment 2, offsets 1 and 2. This is the
// migration for the second.
func ExampleMigrations() {
	fsys, err := tickets.Migrations(dialect.MySQL, tickets.Counter{Name: "tickets64", Increment: 2, Offset: 2})
	if err != nil {
		panic(err)
	}
	data, err := fs.ReadFile(fsys, tickets.MigrationName("tickets64"))
	if err != nil {
		panic(err)
	}
	text := string(data)
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "INSERT") || strings.HasPrefix(l, "ON DUPLICATE") {
			fmt.Println(l)
		}
	}
	// Output:
	// INSERT INTO `tickets64` (`stub`, `id`, `increment`, `offset`) VALUES ('a', 0, 2, 2)
	// ON DUPLICATE KEY UPDATE `stub` = `stub`;
}

// Create the name on both servers (shardid tickets up does this from a
// shell), then draw over both: a server that fails is passed over and
// tried again a second later.
func ExampleNewClient() {
	ctx := context.Background()
	var servers []tickets.Server
	for i, dsn := range []string{"app:pw@tcp(tickets1:3306)/ids", "app:pw@tcp(tickets2:3306)/ids"} {
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			panic(err)
		}
		if _, _, err := tickets.Up(ctx, db, tickets.Counter{Name: "tickets64", Increment: 2, Offset: int64(i + 1)}); err != nil {
			panic(err) // wraps ErrSettingsDiffer when the server holds other settings
		}
		servers = append(servers, tickets.Server{Name: fmt.Sprintf("tickets%d", i+1), DB: db})
	}
	c, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "tickets64"})
	if err != nil {
		panic(err) // wraps ErrOverlap or ErrIncrementMismatch for servers that would repeat tickets
	}
	id, err := c.Next(ctx)
	if err != nil {
		panic(err) // wraps ErrNoServer when no server could draw
	}
	fmt.Println(id)
}

// OnEvent reports what the client does about its servers, and Stats
// counts it. Here server b has lost its ticket row: the first draw tries
// it, fails over to a, and b is passed over after that. (The example runs
// against a throwaway MariaDB server of its own.)
func ExampleSettings_onEvent() {
	ctx := context.Background()
	dbA, dbB := exampleDatabase("example_a"), exampleDatabase("example_b")
	for i, db := range []*sql.DB{dbA, dbB} {
		if _, _, err := tickets.Up(ctx, db, tickets.Counter{Name: "t", Increment: 2, Offset: int64(i + 1)}); err != nil {
			panic(err)
		}
	}
	c, err := tickets.NewClient(ctx, []tickets.Server{{Name: "a", DB: dbA}, {Name: "b", DB: dbB}}, tickets.Settings{
		Name: "t",
		OnEvent: func(e tickets.Event) { // called synchronously: must not block
			switch e.Kind {
			case tickets.EventFailover:
				fmt.Printf("%s: %s → %s: %v\n", e.Kind, e.Server, e.To, errors.Is(e.Err, tickets.ErrNoTickets))
			case tickets.EventRecordFailed:
				// the records are written beside the draws: not part of this output
			default:
				fmt.Println(e.Kind, e.Server)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	if _, err := dbB.Exec("DELETE FROM t"); err != nil {
		panic(err)
	}
	for range 3 {
		id, err := c.Next(ctx)
		if err != nil {
			panic(err)
		}
		fmt.Println("ticket", id)
	}
	st := c.Stats()
	fmt.Printf("draws %d, failovers %d, b down: %v\n", st.Draws, st.Failovers, st.Servers[1].Down)
	// Output:
	// server down b
	// failover: b → a: true
	// ticket 1
	// ticket 3
	// ticket 5
	// draws 3, failovers 1, b down: true
}

var (
	exampleOnce sync.Once
	exampleSrv  *dbserver.MariaDB
)

// exampleDatabase creates database name on a throwaway MariaDB server,
// started on first use and stopped when the tests end.
func exampleDatabase(name string) *sql.DB {
	exampleOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		srv, err := dbserver.StartMariaDB(ctx, dbserver.MariaDBOptions{})
		if err != nil {
			panic(err)
		}
		exampleSrv = srv
		testsrv.AtExit(srv.Stop)
	})
	dsn, err := exampleSrv.CreateDatabase(context.Background(), name)
	if err != nil {
		panic(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		panic(err)
	}
	return db
}
