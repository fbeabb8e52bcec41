package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for goose

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

func runPGStatus(ctx context.Context, env *cliEnv, args []string) (err error) {
	t, err := migrateCommand(ctx, env, "status", args, false)
	if err != nil {
		return err
	}
	defer t.close()
	env, rep := startReport(env, t.json, "pg status")
	defer func() { err = rep.finish(env, err) }()
	if t.fleet != nil {
		return runMapStatus(ctx, env, t.fleet)
	}
	r, err := t.m.Report(ctx, t.shards)
	if err != nil {
		return err
	}
	st, census, dangers := r.Statuses, r.Census, r.Dangers
	pgStatusJSON(rep, st, t.asked)
	fmt.Fprintf(env.stdout, "%-20s %-6s %-8s %-12s %s\n", "SCHEMA", "SHARD", "VERSION", "MODE", "GENERATOR")
	for _, s := range st {
		gen, mode := "none", "-"
		if s.Installed != nil {
			mode = string(s.Installed.Mode)
			gen = fmt.Sprintf("shard %d, %d/%d/%d bits of %dms since %s", s.Installed.Shard, s.Installed.TimeBits,
				s.Installed.ShardBits, s.Installed.SeqBits, s.Installed.UnitMS, time.UnixMilli(s.Installed.EpochMS).UTC().Format(time.RFC3339Nano))
			if s.Installed.RouteBits > 0 {
				gen += fmt.Sprintf(", %d route bits", s.Installed.RouteBits)
			}
			if s.Installed.LeadMS > 0 {
				gen += ", lead " + s.Installed.Lead().String()
			}
			switch {
			case s.Upgradable:
				gen += "  (OUTDATED: applied by an older shardid, without next_id_bulk() and next_ids(); pg up replaces its body in place)"
			case s.Outdated:
				gen += "  (OUTDATED: applied by an older shardid, whose body lacks this release's fixes)"
			case !s.Matches && t.asked:
				gen += "  (differs from the requested options)"
			}
		}
		// A generator without a history in its schema was applied by goose
		// from a pg gen directory, whose history is that directory's.
		version := fmt.Sprint(s.Version)
		switch {
		case s.Version < 0:
			version = "?" // a history the role may not read (no USAGE on the schema)
		case s.Version == 0 && s.Installed != nil:
			version = "goose"
		}
		if s.Unreadable != "" {
			gen = "UNREADABLE: a counter beside a generator's objects, but " + s.Unreadable + "; it hands out IDs nobody can place: record its metadata (COMMENT ON SEQUENCE " + s.Shard.Schema + ".next_id_seq IS the metadata pg status --json shows where it came from; pg up over it then records next_id_meta())"
			mode = "?"
		}
		fmt.Fprintf(env.stdout, "%-20s %-6s %-8s %-12s %s\n", s.Shard.Schema, shardID(s.Shard.ID), version, mode, gen)
		if s.Exhausted {
			fmt.Fprintf(env.stdout, "%-20s %-6d EXHAUSTED: its layout ends at %s and the generator has no ID left: every draw raises \"time field exhausted\"; pg down it and bring the shard up with a layout of a later epoch\n",
				"", s.Shard.ID, s.Installed.LayoutOf().End().Format(time.RFC3339))
		} else if s.PastLead() {
			fmt.Fprintf(env.stdout, "%-20s %-6d %s\n", "", s.Shard.ID, aheadText(s))
		}
		// Elsewhere: other schemas holding this shard id. Beside a
		// generator here each is a copy; with none here, one is just the
		// shard in another schema (renamed, another schema format), two
		// or more are copies of each other.
		copied := s.Installed != nil || len(s.Elsewhere) > 1
		for _, e := range s.Elsewhere {
			where := e.Schema
			if e.Database != "" {
				where = e.Database + "." + e.Schema
			}
			if copied {
				fmt.Fprintf(env.stdout, "%-20s %-6d ALSO IN %s: two schemas with one shard id hand out the same IDs\n", "", s.Shard.ID, where)
			} else {
				fmt.Fprintf(env.stdout, "%-20s %-6d HELD BY %s instead (another schema format, or a renamed schema)\n", "", s.Shard.ID, where)
			}
		}
	}
	for _, in := range census.Unreadable {
		if in.Database == "" && !in.Retired {
			continue // the table lists it
		}
		where, what := census.Where(in), "counter"
		if in.Retired {
			what = "counter kept by pg down"
		}
		fmt.Fprintf(env.stdout, "\nUNREADABLE: %s (%s): a %s whose metadata cannot be read: %s\n", where, shardText(in.Meta.Shard), what, in.Unreadable)
	}
	printServer(env, census)
	printDangers(env, dangers)
	for k, v := range r.Totals() {
		rep.total(k, v)
	}
	// Citus (pg_citus.go): every node's counters, through the coordinator.
	printCitus(env, r.Citus)
	return r.Err(t.asked)
}

// aheadText describes a counter further ahead of the clock than its lead
// (migrate.Status.PastLead).
func aheadText(s migrate.Status) string {
	lead := "no lead (an older shardid)"
	if l := s.Installed.Lead(); l > 0 {
		lead = "its lead of " + l.String()
	}
	return fmt.Sprintf("AHEAD: the counter stands %s ahead of the clock, past %s: next_id() waits, then fails (SQLSTATE %s), until the clock catches up (nextval called on the counter directly, or a clock behind the one that drew it)",
		s.Ahead.Round(time.Millisecond), lead, pgfunc.LeadExceededState)
}

// printServer prints, after pg status's table, what the census found
// beyond the shards: shard ids held twice in other databases, generators
// in template databases, the template databases read, the invalid
// databases passed over, the databases the role could not read, the
// counters downs kept, and the kinds of generator when there are several.
func printServer(env *cliEnv, c inventory.Census) {
	if c.InRecovery {
		fmt.Fprintln(env.stdout, "\nIN RECOVERY: the server is a standby or a recovery paused at its target (pg_is_in_recovery()); it hands out no IDs until promoted, and pg resume must run after the promotion, before writers draw")
	}
	if c.Template {
		fmt.Fprintf(env.stdout, "\nTEMPLATE: database %s is a template; every CREATE DATABASE from it copies its generators, and the copies hand out the same IDs\n", c.Database)
	}
	for _, held := range c.HeldElsewhere() {
		var places []string
		for _, in := range held {
			places = append(places, c.Where(in))
		}
		fmt.Fprintf(env.stdout, "\nALSO IN: shard %d is held by %s: two schemas with one shard id hand out the same IDs\n", held[0].Meta.Shard, strings.Join(places, " and "))
	}
	for _, t := range c.InTemplates() {
		fmt.Fprintf(env.stdout, "\nTEMPLATE: database %s is a template and holds %s: every CREATE DATABASE from it copies them, and the copies hand out the same IDs\n", t.Database, strings.Join(t.Generators, ", "))
	}
	if len(c.Retired) > 0 {
		fmt.Fprintln(env.stdout, "\ncounters kept by pg down (an up of the shard id carries on from them, in any schema):")
		for _, in := range c.Retired {
			fmt.Fprintf(env.stdout, "  %-30s shard %-5d %s\n", c.Where(in), in.Meta.Shard, describe(in.Meta))
		}
	}
	if pairs := c.Mixed(); len(pairs) > 0 {
		fmt.Fprintln(env.stdout, "\ngenerators of different layouts, epochs or modes on the server:")
		for _, p := range pairs {
			if p.Meet {
				when := "could both have handed out ID %d (the smallest of their lives; from now on they never meet)"
				if p.Ahead {
					when = "can both hand out ID %d (the first still ahead)"
				}
				fmt.Fprintf(env.stdout, "  MIXED: %s (%s) and %s (%s) "+when+"\n", c.Where(p.A), describe(p.A.Meta), c.Where(p.B), describe(p.B.Meta), p.ID)
			} else {
				fmt.Fprintf(env.stdout, "  mixed: %s (%s) and %s (%s), and every other pair of these two kinds, never hand out one ID\n", c.Where(p.A), describe(p.A.Meta), c.Where(p.B), describe(p.B.Meta))
			}
		}
	}
	for _, r := range c.Replicated {
		table := r.Table
		if r.Database != "" {
			table = r.Database + "." + table
		} else {
			table = c.Database + "." + table
		}
		if len(r.Subscriptions) > 0 {
			fmt.Fprintf(env.stdout, "\nLOGICAL REPLICA: %s (DEFAULT %s.next_id()) is subscribed from elsewhere (%s %s): PostgreSQL replicates rows, not sequences, so %s's counter here stands where it was while the rows carry the publisher's IDs; at cutover, once the publisher's writers have stopped and before any writer draws here, run shardid pg resume --apply on this server (operations.md, \"Logical replicas and other logical copies\")\n",
				table, r.Generator, words.Plural(len(r.Subscriptions), "subscription", "subscriptions"), strings.Join(r.Subscriptions, ", "), r.Generator)
		}
		if len(r.Publications) > 0 {
			fmt.Fprintf(env.stdout, "\nlogical replication: %s (DEFAULT %s.next_id()) is published (%s %s): a subscriber that takes over from this server hands out its IDs again unless shardid pg resume --apply runs there first (its counters do not follow)\n",
				table, r.Generator, words.Plural(len(r.Publications), "publication", "publications"), strings.Join(r.Publications, ", "))
		}
	}
	if len(c.Templates) > 0 {
		fmt.Fprintf(env.stdout, "\ntemplate databases read: %s (template0 accepts no connection: nothing can be in it)\n", strings.Join(c.Templates, ", "))
	}
	if len(c.Invalid) > 0 {
		fmt.Fprintf(env.stdout, "\ninvalid databases passed over: %s (an interrupted DROP DATABASE left them so; nobody can connect to them or draw IDs from them; drop them with DROP DATABASE)\n", strings.Join(c.Invalid, ", "))
	}
	if len(c.Closed) > 0 {
		fmt.Fprintf(env.stdout, "\nNOT READ: %s: the role may not connect (no CONNECT privilege, or connections not allowed); grant CONNECT to prove no copy of a shard is there\n", strings.Join(c.Closed, ", "))
	}
}

// describe renders a generator's metadata as pg status shows it.
func describe(m pgfunc.Meta) string {
	bits := fmt.Sprintf("%d/%d/%d", m.TimeBits, m.ShardBits, m.SeqBits)
	if m.RouteBits > 0 {
		bits += fmt.Sprintf("/%d route", m.RouteBits)
	}
	return fmt.Sprintf("mode %s, %s bits of %dms since %s", m.Mode, bits,
		m.UnitMS, time.UnixMilli(m.EpochMS).UTC().Format(time.RFC3339Nano))
}

// shardText names a shard id for a line: "shard N", or "shard unknown".
func shardText(id int64) string {
	if id < 0 {
		return "shard unknown"
	}
	return fmt.Sprintf("shard %d", id)
}
