package pgfunc_test

import (
	"fmt"

	"github.com/shardid/shardid/pgfunc"
)

func ExampleRender() {
	sql, err := pgfunc.Render(pgfunc.Shard{Schema: "insta5", ID: 5}, pgfunc.Options{})
	if err != nil {
		panic(err)
	}
	// A goose migration: apply it with Migrator.Up, or write a directory
	// of them with Files for the goose CLI.
	fmt.Println(len(sql) > 0)
	_, err = pgfunc.Render(pgfunc.Shard{Schema: "insta5", ID: 5}, pgfunc.Options{Mode: "fast"})
	fmt.Println(err)
	// Output:
	// true
	// invalid mode "fast" (allowed: unique, classic, classic-sql)
}
