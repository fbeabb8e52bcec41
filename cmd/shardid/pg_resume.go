package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/words"
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
		t, err := time.Parse(time.RFC3339Nano, *after)
		if err != nil {
			return usagef("--after: %q is not an RFC 3339 instant such as 2026-11-25T10:00:05Z", *after)
		}
		ro.After = t
	}
	if *parallel < 1 || *parallel > migrate.MaxParallel {
		return usagef("--parallel: %d is out of range (allowed 1-%d)", *parallel, migrate.MaxParallel)
	}
	if *lead <= 0 || *lead > pgfunc.MaxLead || *lead%time.Millisecond != 0 {
		return usagef("--lead: %s is not a lead shardid accepts (a whole number of milliseconds from 1ms to %s)", *lead, pgfunc.MaxLead)
	}
	ro.Lead = *lead
	ro.DryRun, ro.BelowRecordedLead = !*apply, *below
	if *lockWait <= 0 {
		return usagef("--lock-timeout: %s is not a positive duration (e.g. 30s, 2m)", *lockWait)
	}
	o := pgfunc.Options{}
	rep := resumeReport{After: ro.After, DryRun: ro.DryRun, Scope: resumeScope(*mapPath, *shards)}
	header := func() { // once the servers are known to be reachable
		if !*asJSON {
			how := "moving counters"
			if ro.DryRun {
				how = "dry run: nothing moves; --apply moves the counters"
			}
			fmt.Fprintf(env.stdout, "pg resume (%s): %s, past %s\n", how, rep.Scope, resumeTarget(ro))
		}
	}
	start := time.Now()
	line := func(server string, r resume.Resumed) {
		rep.Add(server, r)
		if !*asJSON {
			fmt.Fprintln(env.stdout, env.secrets.Scrub(resumedLine(server, r)))
		}
	}
	if *mapPath != "" {
		m, err := loadMap(env, fs, *mapPath, "lead", "lock-timeout")
		if err != nil {
			return err
		}
		m.LockTimeout = *lockWait
		header()
		for _, sr := range m.Resume(ctx, ro, line) {
			if sr.SameAs != "" && !*asJSON {
				fmt.Fprintf(env.stdout, "same     %s: reaches the running server of %s, whose run moved its counters\n", sr.Server.Name, sr.SameAs)
			}
			if sr.Err != nil {
				rep.Servers = append(rep.Servers, resume.ServerError{Server: sr.Server.Name, Error: env.line(sr.Err.Error())})
				if !*asJSON {
					fmt.Fprintf(env.stdout, "FAILED   %s: %s\n", sr.Server.Name, env.line(sr.Err.Error()))
				}
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
		m, err := openMigrator(ctx, *dsn, o, migrate.Options{Parallel: *parallel, LockTimeout: *lockWait})
		if err != nil {
			return err
		}
		defer m.Close()
		header()
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
	if *asJSON {
		if err := writeJSON(env.stdout, rep); err != nil {
			return err
		}
	} else {
		n := len(rep.Counters) - rep.Missing
		moved := "moved"
		if ro.DryRun {
			moved = "would move"
		}
		fmt.Fprintf(env.stdout, "%d %s: %d %s, %d already past, %d not taking part, %d failed", n, words.Plural(n, "counter", "counters"), rep.Moved, moved, rep.Current, rep.Skipped, rep.Failed)
		if rep.Missing > 0 {
			fmt.Fprintf(env.stdout, "; %d %s without a generator", rep.Missing, words.Plural(rep.Missing, "shard asked for", "shards asked for"))
		}
		if len(rep.Databases) > 0 {
			fmt.Fprintf(env.stdout, "; %d %s not read", len(rep.Databases), words.Plural(len(rep.Databases), "database", "databases"))
		}
		fmt.Fprintf(env.stdout, " (%s)\n", rep.Took)
		if ro.DryRun && rep.Moved > 0 {
			fmt.Fprintln(env.stdout, "dry run: nothing moved; run again with --apply, before writers draw, to move them")
		}
	}
	if n := rep.NotMoved(); n > 0 {
		return fmt.Errorf("%d %s not moved (each line says why); the others' moves stand: mend what the failures name, then rerun (resume only ever moves counters forward)",
			n, words.Plural(n, "counter, database or server was", "counters, databases or servers were"))
	}
	return nil
}

// resumeScope says which counters a pg resume run looks at.
func resumeScope(mapPath, shards string) string {
	switch {
	case mapPath != "":
		return "every generator of every database of every server of the map " + mapPath
	case shards != "":
		return "shards " + shards + " in the database of the DSN"
	}
	return "every generator of every database of the server (kept counters included)"
}

// resumeTarget says how far pg resume moves the counters.
func resumeTarget(ro resume.Options) string {
	if !ro.After.IsZero() {
		return words.Stamp(ro.After) + " (--after)"
	}
	return fmt.Sprintf("the clock plus %s (--lead) or each generator's own lead, whichever is larger", ro.Lead)
}

// resumeReport is pg resume's --json document.
type resumeReport = resume.Report

// resumedLine is the line pg resume prints for one counter.
func resumedLine(server string, r resume.Resumed) string {
	where := r.Schema
	if r.Database != "" {
		where = r.Database + "." + where
	}
	if r.Retired {
		where += " (kept by down)"
	}
	if r.Node != "" { // a Citus node's counter (pg_citus.go)
		where += " on " + r.Node
	}
	if server != "" {
		where = server + " " + where
	}
	state := r.State()
	var what string
	switch state {
	case "missing":
		label := "MISSING"
		return fmt.Sprintf("%-8s %-28s shard %-5s %s", label, where, shardID(r.Shard), strings.TrimPrefix(r.Note, "MISSING: "))
	case "failed":
		if errors.Is(r.Err, resume.ErrDatabaseNotRead) {
			return fmt.Sprintf("FAILED   %s", words.OneLine(r.Err.Error()))
		}
		what = words.OneLine(r.Err.Error())
	case "moved":
		what = fmt.Sprintf("counter moved past %s (%s)", words.Stamp(r.Past), counterTime(r, r.From))
		if r.DryRun {
			what = fmt.Sprintf("counter would move past %s (%s)", words.Stamp(r.Past), counterTime(r, r.From))
		}
		if !r.Until.IsZero() && r.Until.After(time.Now().Add(time.Second)) && !strings.Contains(r.Note, "until the clock reaches") {
			wait := "draws wait"
			if r.DryRun {
				wait = "draws would wait"
			}
			what += fmt.Sprintf("; %s until %s", wait, words.Stamp(r.Until))
		}
	case "current":
		what = fmt.Sprintf("counter already past %s (%s)", words.Stamp(r.Past), counterTime(r, r.From))
	default:
		what = r.Note
	}
	label := state
	switch {
	case state == "failed":
		label = "FAILED"
	case state == "moved" && r.DryRun:
		label = "would"
	}
	line := fmt.Sprintf("%-8s %-28s shard %-5s %s", label, where, shardID(r.Shard), what)
	if r.Note != "" && state != "skipped" {
		line += "; " + r.Note
	}
	return line
}

// counterTime says where counter value v stood: the start of its tick.
func counterTime(r resume.Resumed, v int64) string {
	if v < 0 {
		return "never drawn from"
	}
	l := r.Meta.LayoutOf()
	return "it stood at " + words.Stamp(l.TickTime(v>>l.SeqBits))
}

// shardID writes a shard id, "?" when it is not known (-1: a counter
// whose metadata cannot be read, or not shardid's).
func shardID(id int64) string {
	if id < 0 {
		return "?"
	}
	return fmt.Sprint(id)
}
