package main

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
)

// runPGMove moves one logical shard's schema between the nodes of a Citus
// cluster (citus.Move): Citus's own move, the counters staying where they
// are.
func runPGMove(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "pg move")
	dsn := fs.envString("dsn", envPGDSN, "", "PostgreSQL connection URL of the Citus coordinator, as the generators' owner (env "+envPGDSN+")")
	shardText := fs.String("shard", "", "the shard id to move, e.g. 3")
	schemaFormat := fs.envString("schema-format", envSchemaFm, pgfunc.DefaultSchemaFormat, "schema name of shard N, with one %d (env "+envSchemaFm+")")
	to := fs.String("to", "", "host:port of the node to move the shard to, as the coordinator's pg_dist_node names it")
	mode := fs.String("transfer-mode", "auto", "Citus's shard transfer mode (allowed: "+strings.Join(citus.TransferModes, ", ")+")")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	id, err := strconv.ParseInt(*shardText, 10, 64)
	if err != nil || id < 0 {
		return usagef("--shard: %q is not a shard id (0 or more)", *shardText)
	}
	host, p, err := net.SplitHostPort(*to)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil || host == "" || port < 1 || port > 65535 {
		return usagef("--to: %q is not host:port, e.g. worker2:5432", *to)
	}
	if !slices.Contains(citus.TransferModes, *mode) {
		return usagef("--transfer-mode: %q is not a Citus transfer mode (allowed: %s)", *mode, strings.Join(citus.TransferModes, ", "))
	}
	schema, err := pgfunc.SchemaName(*schemaFormat, id)
	if err != nil {
		return usagef("--schema-format: %v", err)
	}
	db, err := connect(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	sh := pgfunc.Shard{Schema: schema, ID: id}
	if err := citus.Move(ctx, db, sh, host, port, *mode); err != nil {
		return err
	}
	return citus.Moved{Shard: sh, Host: host, Port: port}.WriteText(env.stdout)
}
