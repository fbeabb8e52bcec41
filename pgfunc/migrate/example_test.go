package migrate_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
)

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
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{})
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
	res, err := m.Up(ctx, shards, nil)
	if err != nil {
		panic(err) // a *pgfunc.PartialError: the other shards' results stand; a rerun completes the rest
	}
	for _, r := range res {
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
	res, _ = m.Up(ctx, shards[:1], nil)
	for _, r := range res {
		fmt.Println(r.Shard.Schema, "applied:", r.Applied, r.Note)
	}
}
