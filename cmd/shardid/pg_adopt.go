package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/shardid/shardid/internal/words"
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
	if *lockWait <= 0 {
		return usagef("--lock-timeout: %s is not a positive duration (e.g. 10s)", *lockWait)
	}
	if *serverWait <= 0 {
		return usagef("--server-lock-timeout: %s is not a positive duration (e.g. 1m)", *serverWait)
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
	rep := adoptReport{Apply: *apply}
	_, _ = adopt.Run(ctx, m, shards, ao, func(a adopt.Adoption) { // a partial error: each result says
		rep.Add(a)
		if !*asJSON {
			fmt.Fprint(env.stdout, env.secrets.Scrub(adoptLines(a)))
		}
	})
	rep.Finish(start)
	if *asJSON {
		if err := writeJSON(env.stdout, rep); err != nil {
			return err
		}
	} else {
		what := "would be adopted (a dry run: nothing changed; --apply replaces each next_id())"
		n := rep.DryRun
		if *apply {
			what, n = "adopted", rep.Adopted
		}
		fmt.Fprintf(env.stdout, "%d %s: %d %s, %d already shardid's, %d refused (%s)\n", len(shards), words.Plural(len(shards), "schema", "schemas"),
			n, what, rep.Current, rep.Failed, rep.Took)
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d %s refused (each says why); nothing was changed in %s", rep.Failed, words.Plural(rep.Failed, "schema was", "schemas were"),
			words.Plural(rep.Failed, "it", "them"))
	}
	return nil
}

// adoptReport is pg adopt's --json document.
type adoptReport = adopt.Report

// msFormat is how pg adopt writes instants.
const msFormat = adopt.MillisFormat

// adoptLines is what pg adopt prints for one schema.
func adoptLines(a adopt.Adoption) string {
	head := fmt.Sprintf("%-20s shard %-5d ", a.Shard.Schema, a.Shard.ID)
	switch {
	case a.Err != nil:
		return head + "REFUSED  " + words.OneLine(a.Err.Error()) + "\n"
	case a.Note == "current":
		return head + "current  shardid's generator already (" + a.Layout.String() + "): pg status shows it\n"
	}
	what := "Instagram's published next_id()"
	if a.Kind == adopt.AdoptSerial {
		what = "bigserial-like keys, no next_id()"
	}
	out := head + a.Note + "  " + what + "\n"
	out += fmt.Sprintf("  layout    %s\n", a.Layout.Describe())
	out += fmt.Sprintf("  as flags  --layout %s (what pg up, status and decode take)\n", a.Layout.String())
	verb := "retired by --apply"
	if a.Applied {
		verb = "retired: a draw through the old body fails"
	}
	if a.Kind == adopt.AdoptPublished {
		out += fmt.Sprintf("  sequence  %s (%s)\n", a.Sequence, verb)
	}
	if len(a.Keys) == 0 {
		out += "  keys      no column defaults to next_id()\n"
	}
	for _, k := range a.Keys {
		if a.Kind == adopt.AdoptSerial {
			to := "defaults to next_id() with --apply"
			if a.Applied {
				to = "defaults to next_id() now"
			}
			out += fmt.Sprintf("  key       %s.%s: highest %s, %s handed out up to %d; %s, the sequence capped below the first new ID\n",
				k.Table, k.Column, map[bool]string{true: "none", false: strconv.FormatInt(k.Max, 10)}[k.Empty], k.Sequence, k.Last, to)
			continue
		}
		if k.Empty {
			out += fmt.Sprintf("  key       %s.%s: no rows\n", k.Table, k.Column)
			continue
		}
		out += fmt.Sprintf("  key       %s.%s: highest %d = %s shard %d seq %d\n", k.Table, k.Column, k.Max,
			k.Parts.Time.Format(msFormat), k.Parts.Shard, k.Parts.Seq)
	}
	out += fmt.Sprintf("  counter   starts at %s: past the clock (%s) and the keys above; first new ID %d\n",
		a.Layout.TickTime(a.Start>>a.Layout.SeqBits).Format(msFormat), a.Clock.Format(msFormat), a.FirstID)
	for _, r := range a.Roles {
		out += fmt.Sprintf("  granted   %s (it could draw from the old sequence): what drawing needs, as pg grant gives it\n", r)
	}
	return out
}
