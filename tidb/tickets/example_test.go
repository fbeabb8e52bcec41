package tickets_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/go-sql-driver/mysql" // driver "mysql"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tidb/tickets"
)

// Flickr's two ticket servers: increment 2, offsets 1 and 2. This is the
// migration for the second.
func ExampleMigrations() {
	files, err := tickets.Migrations(shardid.DialectMySQL, tickets.Settings{Name: "tickets64", Increment: 2, Offset: 2})
	if err != nil {
		panic(err)
	}
	text := string(files[tickets.MigrationName("tickets64")])
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
		if _, _, err := tickets.Up(ctx, db, tickets.Settings{Name: "tickets64", Increment: 2, Offset: int64(i + 1)}); err != nil {
			panic(err) // wraps ErrSettingsDiffer when the server holds other settings
		}
		servers = append(servers, tickets.Server{Name: fmt.Sprintf("tickets%d", i+1), DB: db})
	}
	c, err := tickets.NewClient(ctx, servers, tickets.ClientSettings{Name: "tickets64"})
	if err != nil {
		panic(err) // wraps ErrOverlap or ErrIncrementMismatch for servers that would repeat tickets
	}
	id, err := c.Next(ctx)
	if err != nil {
		panic(err) // wraps ErrNoServer when no server could draw
	}
	fmt.Println(id)
}
