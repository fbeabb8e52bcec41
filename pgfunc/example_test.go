package pgfunc_test

import (
	"fmt"
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
