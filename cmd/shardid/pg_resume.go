package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
)

// runPGResume moves, after a restore, PITR or failover, every generator's
// counter past anything the old server could have handed out
// (migrate.Migrator.Resume).
func runPGResume(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "pg resume")
	dsn := fs.envString("dsn", envPGDSN, "", "PostgreSQL connection URL of the restored or promoted server, as the generators' owner (env "+envPGDSN+")")
	shards := fs.String("shards", "", "shard ids, e.g. 0-63 or 0-3,8,10-12 (default: every generator in every database of the server)")
	schemaFormat := fs.envString("schema-format", envSchemaFm, pgfunc.DefaultSchemaFormat, "schema name of shard N, with one %d, for --shards (env "+envSchemaFm+")")
	after := fs.String("after", "", "RFC 3339 instant at or after the end of the tick of every ID the old server could have handed out, e.g. its last draw plus its lead (default: the server's clock plus --lead)")
	lead := fs.Duration("lead", pgfunc.MaxLead, "the largest lead any generator of the old server ran with after the backup or recovery target (a restored server remembers the leads of its backup, not a larger one given later with pg down and pg up --lead): counters move past the clock plus the larger of this and their own lead; draws wait for the clock (then fail, SQLSTATE "+pgfunc.LeadExceededState+") until it is back within their own lead, so give the real value to move no further than needed")
	lockWait := fs.Duration("lock-timeout", inventory.DefaultLockTimeout, "how long resume waits for the server-wide lock (in database "+inventory.LockDatabase+", the lock of pg up) while another session holds it")
	parallel := fs.Int("parallel", migrate.DefaultParallel, "counters moved at once, each on its own connection")
	mapPath := fs.String("map", "", "shard map file (TOML): every mapped shard on every server of a fleet, instead of --dsn and --shards"+mapEnvNote)
	apply := fs.Bool("apply", false, "move the counters; without it resume is a dry run: it says what each counter would move to and until when draws would wait, and moves nothing")
	below := fs.Bool("below-recorded-lead", false, "move by --lead even though a generator of the server records a larger lead (refused without it: a counter moved by less than the lead the old server ran with hands its IDs out again)")
	asJSON := fs.Bool("json", false, "print one JSON document instead of lines")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	var ro resume.Options
	if *after != "" {
		t, err := resume.ParseAfter(*after)
		if err != nil {
			return usagef("--after: %v", err)
		}
		ro.After = t
	}
	if err := checkRunFlags(*parallel, *lockWait); err != nil {
		return err
	}
	if err := resume.ValidateLead(*lead); err != nil {
		return usagef("--lead: %v", err)
	}
	ro.Lead, ro.DryRun, ro.BelowRecordedLead = *lead, !*apply, *below
	rep := resume.Report{After: ro.After, DryRun: ro.DryRun, Scope: resume.Scope(*mapPath, *shards), Lead: ro.Lead}
	text := func(t func(io.Writer) error) { // nothing with --json
		if !*asJSON {
			_ = env.writeText(t)
		}
	}
	start := time.Now()
	line := func(server string, r resume.Resumed) {
		rep.Add(server, r)
		text(func(w io.Writer) error { _, err := fmt.Fprintln(w, r.Line(server)); return err })
	}
	if *mapPath != "" {
		m, err := loadMap(env, fs, *mapPath, "lead", "lock-timeout")
		if err != nil {
			return err
		}
		m.LockTimeout = *lockWait
		text(rep.WriteHeader) // once the servers are known to be reachable
		for _, sr := range m.Resume(ctx, ro, line) {
			text(sr.WriteText) // an entry reaching an earlier one's server
			if sr.Err != nil {
				se := resume.ServerError{Server: sr.Server.Name, Error: env.line(sr.Err.Error())}
				rep.Servers = append(rep.Servers, se)
				text(se.WriteText)
			}
		}
	} else {
		var list []pgfunc.Shard
		if *shards != "" {
			f := genFlags{schemaFormat: *schemaFormat}
			var err error
			// Any shard id a layout can hold (62 shard bits at most): resume
			// reads each generator's layout from its schema.
			if list, err = f.shardList(shardid.Layout{ShardBits: 62}, *shards); err != nil {
				return err
			}
		}
		m, err := openMigrator(ctx, *dsn, pgfunc.Options{}, migrate.Options{Parallel: *parallel, LockTimeout: *lockWait})
		if err != nil {
			return err
		}
		defer m.Close()
		text(rep.WriteHeader)
		if _, err := resume.Run(ctx, m, list, ro, func(r resume.Resumed) { line("", r) }); err != nil && !pgfunc.IsPartial(err) { // partial: each line says
			if errors.Is(err, resume.ErrAfterLayoutEnd) {
				return usagef("--after: %v", err)
			}
			if errors.Is(err, resume.ErrLeadBelowRecorded) {
				return usagef("--lead: %v", err)
			}
			return err
		}
	}
	rep.Finish(start)
	return env.writeResult(*asJSON, "pg resume", rep, rep.WriteText, rep.Err())
}
