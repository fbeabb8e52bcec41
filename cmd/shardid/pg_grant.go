package main

import (
	"context"
	"errors"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// runPGGrant gives an application role exactly what drawing IDs needs on
// each shard's generator, takes back anything more, and checks the role's
// effective privileges (privilege.Grant).
func runPGGrant(ctx context.Context, env *cliEnv, args []string) (err error) {
	fs := newFlagSet(env, "pg grant")
	var f genFlags
	f.layoutFlags.register(fs)
	fs.StringVar(&f.schemaFormat, "schema-format", pgfunc.DefaultSchemaFormat,
		"schema name of shard N, with one %d (env "+envSchemaFm+")")
	fs.envVar("schema-format", envSchemaFm)
	fs.StringVar(&f.shards, "shards", "", "shard ids, e.g. 0-63 or 0-3,8,10-12 (required)")
	dsn := fs.envString("dsn", envPGDSN, "", "PostgreSQL connection URL, as the generators' owner (env "+envPGDSN+")")
	role := fs.String("role", "", "the role the application connects as, which must exist and not be a superuser (required)")
	mapPath := fs.String("map", "", "shard map file (TOML): every shard of a fleet, instead of --dsn and --shards"+mapEnvNote)
	asJSON := jsonFlag(fs)
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	if *mapPath != "" && *asJSON {
		return usagef("pg grant: --json takes --dsn, not --map")
	}
	if *role == "" {
		return usagef("--role is required: the role your application connects as, e.g. --role app")
	}
	if err := privilege.CheckRole(*role); err != nil {
		return usagef("--role: %v", err)
	}
	if *mapPath != "" {
		m, err := loadMap(env, fs, *mapPath)
		if err != nil {
			return err
		}
		return runMapOp(ctx, env, "granted", func(each func(fleet.Event)) []fleet.ServerResult { return m.Grant(ctx, *role, each) }, m)
	}
	l, err := f.resolve()
	if err != nil {
		return err
	}
	shards, err := f.shardList(l, f.shards)
	if err != nil {
		return err
	}
	db, err := connect(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	env, rep := startReport(env, *asJSON, "pg grant")
	defer func() { err = rep.finish(env, err) }()
	start, tally := time.Now(), pgfunc.Tally{Shards: len(shards), Verb: "granted", Role: *role}
	_, err = privilege.Grant(ctx, db, shards, *role, func(r pgfunc.Result) {
		writeProgress(env, rep, tally.Add(r))
	})
	if errors.Is(err, privilege.ErrInvalidRole) && !pgfunc.IsPartial(err) {
		return flagUsagef("role", "%v", err) // a superuser, or no such role: bad input
	}
	if err != nil && !pgfunc.IsPartial(err) { // partial: each line says
		return err
	}
	rep.total("role", *role)
	return writeTally(env, rep, tally, start)
}
