package pgfunc_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
)

// Render gives one shard's generator as a goose migration (Up, then
// Down); its header says what it makes.
func ExampleRender() {
	sh := pgfunc.Shard{Schema: "insta5", ID: 5}
	text, err := pgfunc.Render(sh, pgfunc.Options{Layout: shardid.Instagram(), Mode: pgfunc.ModeUnique})
	if err != nil {
		panic(err)
	}
	for _, line := range strings.SplitN(string(text), "\n", 4)[:3] {
		fmt.Println(line)
	}
	_, err = pgfunc.Render(sh, pgfunc.Options{Mode: "fast"})
	fmt.Println(err)
	// Output:
	// -- shardid: ID generator for logical shard 5 in schema "insta5"
	// -- layout: instagram (time 41 bits of 1ms since 2025-01-01T00:00:00Z, shard 13 bits, sequence 10 bits)
	// -- mode:   unique
	// invalid mode "fast" (allowed: unique, classic, classic-sql)
}

// A Migrator applies generators to a server: here shards 0-3 into
// schemas insta0..insta3 of the database SHARDID_PG_DSN names, then a
// table keyed by DEFAULT next_id(). It needs a PostgreSQL server, so it is
// not run by go test as an example; TestExampleMigrator runs it against a
// throwaway server and checks what it prints.
func ExampleMigrator() {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("SHARDID_PG_DSN"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	m, err := pgfunc.NewMigrator(db, pgfunc.Options{}, pgfunc.MigrateOptions{})
	if err != nil {
		panic(err)
	}
	var shards []pgfunc.Shard
	for id := int64(0); id < 4; id++ {
		schema, err := pgfunc.SchemaName(pgfunc.DefaultSchemaFormat, id)
		if err != nil {
			panic(err)
		}
		shards = append(shards, pgfunc.Shard{Schema: schema, ID: id})
	}
	for _, r := range m.Up(ctx, shards, nil) {
		if r.Err != nil {
			panic(r.Err) // the other shards' results stand; a rerun completes this one
		}
		fmt.Println(r.Shard.Schema, "applied:", r.Applied)
	}
	// Any client's plain INSERT now gets an ID.
	if _, err := db.ExecContext(ctx, `CREATE TABLE insta2.photos (id bigint PRIMARY KEY DEFAULT insta2.next_id(), caption text)`); err != nil {
		panic(err)
	}
	var id int64
	if err := db.QueryRowContext(ctx, `INSERT INTO insta2.photos (caption) VALUES ('hello') RETURNING id`).Scan(&id); err != nil {
		panic(err)
	}
	p, err := shardid.Instagram().Decompose(id)
	if err != nil {
		panic(err)
	}
	fmt.Println("shard", p.Shard)
	// A rerun changes nothing.
	for _, r := range m.Up(ctx, shards[:1], nil) {
		fmt.Println(r.Shard.Schema, "applied:", r.Applied, r.Note)
	}
}

func ExampleCheckRole() {
	for _, role := range []string{"app", "App-Writer", "pg_write_all_data", "public"} {
		fmt.Println(role, pgfunc.CheckRole(role))
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
	_, err = pgfunc.Grant(context.Background(), db, shards, "app", func(r pgfunc.Result) {
		if r.Err != nil {
			fmt.Println("FAILED", r.Err) // errors.Is(r.Err, pgfunc.ErrUnsafePrivileges) names what is wrong
			return
		}
		fmt.Println("granted", r.Shard.Schema)
	})
	if err != nil {
		panic(err) // pgfunc.ErrInvalidRole: no such role, a superuser, a pg_* role
	}
}
