package privilege_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/privilege"
)

func ExampleCheckRole() {
	for _, role := range []string{"app", "App-Writer", "pg_write_all_data", "public"} {
		fmt.Println(role, privilege.CheckRole(role))
	}
	// Output:
	// app <nil>
	// App-Writer <nil>
	// pg_write_all_data invalid role "pg_write_all_data": pg_* roles are PostgreSQL's own; grant to a role of your own
	// public invalid role "public": reserved by PostgreSQL; grant to a role of your own
}

// Grant the application's role what drawing IDs needs on shards 0-3, and
// nothing more; each shard is checked on its own. (Not run: it needs a
// server; the database/sql driver "pgx" is github.com/jackc/pgx/v5/stdlib.)
func ExampleGrant() {
	db, err := sql.Open("pgx", os.Getenv("SHARDID_PG_DSN")) // as the generators' owner
	if err != nil {
		panic(err)
	}
	defer db.Close()
	var shards []pgfunc.Shard
	for id := int64(0); id < 4; id++ {
		name, _ := pgfunc.SchemaName(pgfunc.DefaultSchemaFormat, id)
		shards = append(shards, pgfunc.Shard{Schema: name, ID: id})
	}
	_, err = privilege.Grant(context.Background(), db, shards, "app", func(r pgfunc.Result) {
		if r.Err != nil {
			fmt.Println("FAILED", r.Err) // errors.Is(r.Err, privilege.ErrUnsafePrivileges) names what is wrong
			return
		}
		fmt.Println("granted", r.Shard.Schema)
	})
	if err != nil && !pgfunc.IsPartial(err) { // partial: each shard's line says
		panic(err) // privilege.ErrInvalidRole: no such role, a superuser, a pg_* role
	}
}
