package main

import (
	"cmp"
	"context"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/adopt"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// runPGAdopt reads each schema's next_id() in Instagram's published form,
// prints the layout, epoch and shard id it infers, and with --apply
// replaces it by shardid's generator (migrate.Migrator.Adopt).
func runPGAdopt(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "pg adopt")
	var f genFlags
	f.layoutFlags.register(fs)
	fs.envStringVar(&f.schemaFormat, "schema-format", envSchemaFm, pgfunc.DefaultSchemaFormat, "schema name of shard N, with one %d (env "+envSchemaFm+")")
	fs.StringVar(&f.shards, "shards", "", "shard ids, e.g. 0-63 or 0-3,8,10-12, each the shard id its schema's next_id() must stamp (required)")
	fs.DurationVar(&f.lead, "lead", pgfunc.DefaultLead, "the new generator's lead: how far ahead of the server's clock its IDs may go (env "+envLead+")")
	fs.envVar("lead", envLead)
	dsn := fs.envString("dsn", envPGDSN, "", "PostgreSQL connection URL, as the owner of the schemas' next_id() (env "+envPGDSN+")")
	apply := fs.Bool("apply", false, "replace each next_id() (default: a dry run that only prints what it infers)")
	lockWait := fs.Duration("lock-timeout", adopt.DefaultAdoptLockTimeout, "how long the switch waits for transactions that drew from the old next_id() to end (new draws queue meanwhile)")
	serverWait := fs.Duration("server-lock-timeout", inventory.DefaultLockTimeout, "how long --apply waits for the server-wide lock of pg up (in database "+inventory.LockDatabase+")")
	asJSON := jsonFlag(fs)
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	given := func(n string) bool { return fs.set(n) || fs.origin(n) != "--"+n }
	var ao adopt.Options
	l, err := f.resolve()
	if err != nil {
		return err
	}
	if given("layout") || given("epoch") {
		ao.Layout = l // what the user expects: a body spelling another is refused
	}
	o := pgfunc.Options{Lead: f.lead}
	if f.lead <= 0 {
		return flagUsagef("lead", "%s is not a positive duration (e.g. 5s, 30s)", f.lead)
	}
	if err := o.Validate(); err != nil {
		return flagUsagef("lead", "%v", err)
	}
	if err := cmp.Or(positive("lock-timeout", *lockWait, "10s"), positive("server-lock-timeout", *serverWait, "1m")); err != nil {
		return err
	}
	shards, err := f.shardList(l, f.shards)
	if err != nil {
		return err
	}
	ao.Apply, ao.LockTimeout = *apply, *lockWait
	m, err := openMigrator(ctx, *dsn, o, migrate.Options{LockTimeout: *serverWait})
	if err != nil {
		return err
	}
	defer m.Close()
	start := time.Now()
	rep := adopt.Report{Apply: *apply, Asked: len(shards)}
	_, _ = adopt.Run(ctx, m, shards, ao, func(a adopt.Adoption) { // a partial error: each result says
		rep.Add(a)
		if !*asJSON {
			_ = env.writeText(a.WriteText)
		}
	})
	rep.Finish(start)
	return env.writeResult(*asJSON, "pg adopt", rep, rep.WriteText, rep.Err())
}
