package pgfunc_test

import (
	"fmt"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

func ExampleLayout_Decompose() {
	l := pgfunc.Instagram() // 41 bits of ms since 2025-01-01, 13 shard bits, 10 sequence bits
	p, err := l.Decompose(499680437493301249)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Time.Format(time.RFC3339Nano), p.Shard, p.Seq)
	// Output: 2026-11-21T10:15:49.956Z 0 1
}

func ExampleLayout_Compose() {
	l := pgfunc.JS53()
	id, err := l.Compose(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), 7, 3)
	if err != nil {
		panic(err)
	}
	p, _ := l.Decompose(id)
	fmt.Println(id, id <= 1<<53-1, p.Time.Format(time.RFC3339), p.Shard, p.Seq)
	// Output: 1034576494593795 true 2030-01-02T03:04:05Z 7 3
}

func ExampleParseShards() {
	ids, err := pgfunc.ParseShards("0-3,8,10-12", pgfunc.Instagram())
	if err != nil {
		panic(err)
	}
	fmt.Println(ids)
	_, err = pgfunc.ParseShards("0-8192", pgfunc.Instagram())
	fmt.Println(err)
	// Output:
	// [0 1 2 3 8 10 11 12]
	// shard id out of range: 8192 (allowed 0-8191 for 13 shard bits)
}

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
