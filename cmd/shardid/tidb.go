package main

import "context"

func init() {
	commands["tidb"] = command{"render and apply TiDB tables without write hotspots; measure write spread", runTiDB}
}

// tidbCommands holds the "shardid tidb" subcommands; each registers itself
// from its own file's init function (tidb_ddl.go, tidb_spread.go).
var tidbCommands = map[string]command{}

func runTiDB(ctx context.Context, env *cliEnv, args []string) error {
	return subcommand(ctx, env, "tidb", tidbCommands, args)
}
