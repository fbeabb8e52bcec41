package main

import (
	"context"
	"fmt"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tools/demo"
)

// runDemo shows the whole path on a real server (tools/demo): a
// throwaway one, or the one --dsn names.
func runDemo(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "demo")
	// No environment fallback, as bench: the demo makes and drops schemas,
	// so it runs on a server the environment names only when --dsn says so.
	dsn := fs.String("dsn", "", fmt.Sprintf("use this PostgreSQL instead of a throwaway one (schemas shardid_demo0..3 hold shards %d-%d, refused if the server holds any trace of them (a generator, a counter pg down kept), and are dropped at the end; %s is not read)",
		shardid.Instagram().MaxShard()-3, shardid.Instagram().MaxShard(), envPGDSN))
	rows := fs.Int("rows", 3, "rows to insert per shard")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if *rows < 1 || *rows > demo.MaxRows {
		return usagef("--rows: %d is out of range (allowed 1-%d)", *rows, demo.MaxRows)
	}
	return openErrorText(demo.Run(ctx, demo.Settings{DSN: *dsn, Rows: *rows, Stdout: env.stdout, Stderr: env.stderr}))
}
