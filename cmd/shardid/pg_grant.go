package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shardid/shardid/internal/words"
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
	start := time.Now()
	var n, failed int
	_, err = privilege.Grant(ctx, db, shards, *role, func(r pgfunc.Result) {
		n++
		if r.Err != nil {
			failed++
		}
		fmt.Fprintln(env.stdout, env.secrets.Scrub(resultLine(n, len(shards), "granted", r)))
		pgResultJSON(rep, env, "granted", r)
	})
	if errors.Is(err, privilege.ErrInvalidRole) && !pgfunc.IsPartial(err) {
		return flagUsagef("role", "%v", err) // a superuser, or no such role: bad input
	}
	if err != nil && !pgfunc.IsPartial(err) { // partial: each line says
		return err
	}
	pgTotalsJSON(rep, len(shards), len(shards)-failed, failed, "granted", time.Since(start))
	rep.total("role", *role)
	fmt.Fprintf(env.stdout, "%d %s: %d granted to %s, %d failed (%s)\n",
		len(shards), words.Plural(len(shards), "shard", "shards"), len(shards)-failed, *role, failed, time.Since(start).Round(time.Millisecond))
	if failed > 0 {
		return errSomeFailed
	}
	return nil
}

// printDangers lists, after pg status, the privileges that let roles
// break the generators.
func printDangers(env *cliEnv, dangers []privilege.Danger) {
	if len(dangers) == 0 {
		return
	}
	fmt.Fprintln(env.stdout, "\nprivileges that let a role break a generator (revoke them; shardid pg grant --role ROLE gives an application exactly what it needs):")
	for _, d := range dangers {
		fmt.Fprintf(env.stdout, "  %-20s %s\n", d.Schema, d)
	}
}
