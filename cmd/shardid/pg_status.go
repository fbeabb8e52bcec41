package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for goose

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
	mismatched, copies, moved, ahead, exhausted := 0, 0, 0, 0, 0
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
				mismatched++
			case s.Outdated:
				gen += "  (OUTDATED: applied by an older shardid, whose body lacks this release's fixes)"
				mismatched++
			case !s.Matches && t.asked:
				gen += "  (differs from the requested options)"
				mismatched++
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
			exhausted++
			fmt.Fprintf(env.stdout, "%-20s %-6d EXHAUSTED: its layout ends at %s and the generator has no ID left: every draw raises \"time field exhausted\"; pg down it and bring the shard up with a layout of a later epoch\n",
				"", s.Shard.ID, s.Installed.LayoutOf().End().Format(time.RFC3339))
		} else if s.PastLead() {
			ahead++
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
		switch {
		case copied && len(s.Elsewhere) > 0:
			copies++ // shard ids, however many copies each has
		case len(s.Elsewhere) > 0:
			moved++
		}
	}
	unreadable := 0
	for _, in := range census.Unreadable {
		unreadable++
		if in.Database == "" && !in.Retired {
			continue // the table lists it
		}
		where, what := census.Database+"."+in.Schema, "counter"
		if in.Database != "" {
			where = in.Database + "." + in.Schema
		}
		if in.Retired {
			what = "counter kept by pg down"
		}
		fmt.Fprintf(env.stdout, "\nUNREADABLE: %s (%s): a %s whose metadata cannot be read: %s\n", where, shardText(in.Meta.Shard), what, in.Unreadable)
	}
	meet, elsewhere, templated := printServer(env, census)
	printDangers(env, dangers)
	pgServerJSON(rep, census, dangers)
	// Citus (pg_citus.go): every node's counters, through the coordinator.
	citus := printCitus(env, r.Citus)
	switch {
	case citus > 0:
		return fmt.Errorf("%d %s on the Citus cluster (listed above, each naming the node and the counter): IDs could repeat, or draws refuse", citus, plural(citus, "problem", "problems"))
	case copies > 0:
		return fmt.Errorf("%d shard %s held by more than one schema on the server", copies, plural(copies, "id is", "ids are"))
	case unreadable > 0:
		return fmt.Errorf("%d %s like a generator's but %s metadata cannot be read (listed above): %s IDs nobody can place", unreadable,
			plural(unreadable, "counter looks", "counters look"), plural(unreadable, "its", "their"), plural(unreadable, "it hands out", "they hand out"))
	case mismatched > 0:
		return fmt.Errorf("%d %s a generator that is outdated or differs from the requested options", mismatched, plural(mismatched, "schema holds", "schemas hold"))
	case moved > 0:
		return fmt.Errorf("%d shard %s held by another schema than the schema format names", moved, plural(moved, "id is", "ids are"))
	case census.InRecovery:
		return errors.New("the server is in recovery (a standby, or a point-in-time recovery paused at its target): it hands out no IDs; promote it, then run pg resume before writers draw")
	case elsewhere > 0:
		return fmt.Errorf("%d shard %s held by more than one schema in other databases of the server (listed above)", elsewhere, plural(elsewhere, "id is", "ids are"))
	case census.Template:
		return fmt.Errorf("database %s is a template: every database created from it copies its generators", census.Database)
	case templated > 0:
		return fmt.Errorf("%d %s of the server %s generators: every database created from one copies them (listed above)", templated, plural(templated, "template database", "template databases"), plural(templated, "holds", "hold"))
	case len(census.Closed) > 0:
		return fmt.Errorf("%d %s of the server could not be read (%s): a copy of a shard there would go unseen", len(census.Closed),
			plural(len(census.Closed), "database", "databases"), strings.Join(census.Closed, ", "))
	case meet > 0:
		return fmt.Errorf("%d %s of generators of different kinds on the server can hand out the same IDs (listed above)", meet, plural(meet, "pair", "pairs"))
	case exhausted > 0:
		return fmt.Errorf("%d %s no ID left: %s layout has ended (listed above)", exhausted, plural(exhausted, "generator has", "generators have"), plural(exhausted, "its", "their"))
	case ahead > 0:
		return fmt.Errorf("%d %s further ahead of the clock than %s lead (listed above)", ahead, plural(ahead, "counter stands", "counters stand"), plural(ahead, "its", "their"))
	case len(dangers) > 0:
		return errDangers(dangers)
	}
	return nil
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
// databases passed over, the databases the role could not read, the counters downs kept, and the kinds of generator
// when there are several. It returns how many pairs of generators of
// different kinds can hand out the same IDs, how many shard ids other
// databases hold more than once (the table shows those of this one), and
// how many other template databases hold generators.
func printServer(env *cliEnv, c inventory.Census) (meet, elsewhere, templated int) {
	where := func(in inventory.Installed) string {
		if in.Database == "" {
			return c.Database + "." + in.Schema
		}
		return in.Database + "." + in.Schema
	}
	if c.InRecovery {
		fmt.Fprintln(env.stdout, "\nIN RECOVERY: the server is a standby or a recovery paused at its target (pg_is_in_recovery()); it hands out no IDs until promoted, and pg resume must run after the promotion, before writers draw")
	}
	if c.Template {
		fmt.Fprintf(env.stdout, "\nTEMPLATE: database %s is a template; every CREATE DATABASE from it copies its generators, and the copies hand out the same IDs\n", c.Database)
	}
	byShard := map[int64][]inventory.Installed{}
	var ids []int64
	inTemplate := map[string][]string{}
	for _, in := range c.Generators {
		if len(byShard[in.Meta.Shard]) == 0 {
			ids = append(ids, in.Meta.Shard)
		}
		byShard[in.Meta.Shard] = append(byShard[in.Meta.Shard], in)
		if in.Database != "" && slices.Contains(c.Templates, in.Database) {
			inTemplate[in.Database] = append(inTemplate[in.Database], fmt.Sprintf("%s (shard %d)", in.Schema, in.Meta.Shard))
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		held := byShard[id]
		if len(held) < 2 || slices.ContainsFunc(held, func(in inventory.Installed) bool { return in.Database == "" }) {
			continue // once, or in this database too: the table lists it
		}
		elsewhere++
		var places []string
		for _, in := range held {
			places = append(places, where(in))
		}
		fmt.Fprintf(env.stdout, "\nALSO IN: shard %d is held by %s: two schemas with one shard id hand out the same IDs\n", id, strings.Join(places, " and "))
	}
	for _, name := range c.Templates {
		if held := inTemplate[name]; len(held) > 0 {
			templated++
			fmt.Fprintf(env.stdout, "\nTEMPLATE: database %s is a template and holds %s: every CREATE DATABASE from it copies them, and the copies hand out the same IDs\n", name, strings.Join(held, ", "))
		}
	}
	if len(c.Retired) > 0 {
		fmt.Fprintln(env.stdout, "\ncounters kept by pg down (an up of the shard id carries on from them, in any schema):")
		for _, in := range c.Retired {
			fmt.Fprintf(env.stdout, "  %-30s shard %-5d %s\n", where(in), in.Meta.Shard, describe(in.Meta))
		}
	}
	if pairs := inventory.MixedAt(append(slices.Clone(c.Generators), c.Retired...), c.Now); len(pairs) > 0 {
		fmt.Fprintln(env.stdout, "\ngenerators of different layouts, epochs or modes on the server:")
		for _, p := range pairs {
			if p.Meet {
				meet++
				when := "could both have handed out ID %d (the smallest of their lives; from now on they never meet)"
				if p.Ahead {
					when = "can both hand out ID %d (the first still ahead)"
				}
				fmt.Fprintf(env.stdout, "  MIXED: %s (%s) and %s (%s) "+when+"\n", where(p.A), describe(p.A.Meta), where(p.B), describe(p.B.Meta), p.ID)
			} else {
				fmt.Fprintf(env.stdout, "  mixed: %s (%s) and %s (%s), and every other pair of these two kinds, never hand out one ID\n", where(p.A), describe(p.A.Meta), where(p.B), describe(p.B.Meta))
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
				table, r.Generator, plural(len(r.Subscriptions), "subscription", "subscriptions"), strings.Join(r.Subscriptions, ", "), r.Generator)
		}
		if len(r.Publications) > 0 {
			fmt.Fprintf(env.stdout, "\nlogical replication: %s (DEFAULT %s.next_id()) is published (%s %s): a subscriber that takes over from this server hands out its IDs again unless shardid pg resume --apply runs there first (its counters do not follow)\n",
				table, r.Generator, plural(len(r.Publications), "publication", "publications"), strings.Join(r.Publications, ", "))
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
	return meet, elsewhere, templated
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
