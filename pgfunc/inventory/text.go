package inventory

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/pgfunc"
)

// WriteText writes what shardid pg status prints of c after its table:
// the unreadable counters the table does not list (in other databases,
// or kept by a down), then what the census found beyond the shards: a
// server in recovery, a template database, shard ids held twice in other
// databases, generators in template databases, the counters downs kept,
// the kinds of generator when there are several, the generators under
// logical replication, the template databases read, the invalid
// databases passed over and the databases the role could not read. Each
// part begins with an empty line; nothing is written when there is none.
func (c Census) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, in := range c.Unreadable {
		if in.Database == "" && !in.Retired {
			continue // the table lists it
		}
		what := "counter"
		if in.Retired {
			what = "counter kept by pg down"
		}
		fmt.Fprintf(&b, "\nUNREADABLE: %s (%s): a %s whose metadata cannot be read: %s\n", c.Where(in), shardText(in.Meta.Shard), what, in.Unreadable)
	}
	if c.InRecovery {
		b.WriteString("\nIN RECOVERY: the server is a standby or a recovery paused at its target (pg_is_in_recovery()); it hands out no IDs until promoted, and pg resume must run after the promotion, before writers draw\n")
	}
	if c.Template {
		fmt.Fprintf(&b, "\nTEMPLATE: database %s is a template; every CREATE DATABASE from it copies its generators, and the copies hand out the same IDs\n", c.Database)
	}
	for _, held := range c.HeldElsewhere() {
		var places []string
		for _, in := range held {
			places = append(places, c.Where(in))
		}
		fmt.Fprintf(&b, "\nALSO IN: shard %d is held by %s: two schemas with one shard id hand out the same IDs\n", held[0].Meta.Shard, strings.Join(places, " and "))
	}
	for _, t := range c.InTemplates() {
		fmt.Fprintf(&b, "\nTEMPLATE: database %s is a template and holds %s: every CREATE DATABASE from it copies them, and the copies hand out the same IDs\n", t.Database, strings.Join(t.Generators, ", "))
	}
	if len(c.Retired) > 0 {
		b.WriteString("\ncounters kept by pg down (an up of the shard id carries on from them, in any schema):\n")
		for _, in := range c.Retired {
			fmt.Fprintf(&b, "  %-30s shard %-5d %s\n", c.Where(in), in.Meta.Shard, describe(in.Meta))
		}
	}
	if pairs := c.Mixed(); len(pairs) > 0 {
		b.WriteString("\ngenerators of different layouts, epochs or modes on the server:\n")
		for _, p := range pairs {
			if p.Meet {
				when := "could both have handed out ID %d (the smallest of their lives; from now on they never meet)"
				if p.Ahead {
					when = "can both hand out ID %d (the first still ahead)"
				}
				fmt.Fprintf(&b, "  MIXED: %s (%s) and %s (%s) "+when+"\n", c.Where(p.A), describe(p.A.Meta), c.Where(p.B), describe(p.B.Meta), p.ID)
			} else {
				fmt.Fprintf(&b, "  mixed: %s (%s) and %s (%s), and every other pair of these two kinds, never hand out one ID\n", c.Where(p.A), describe(p.A.Meta), c.Where(p.B), describe(p.B.Meta))
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
			fmt.Fprintf(&b, "\nLOGICAL REPLICA: %s (DEFAULT %s.next_id()) is subscribed from elsewhere (%s %s): PostgreSQL replicates rows, not sequences, so %s's counter here stands where it was while the rows carry the publisher's IDs; at cutover, once the publisher's writers have stopped and before any writer draws here, run shardid pg resume --apply on this server (operations.md, \"Logical replicas and other logical copies\")\n",
				table, r.Generator, words.Plural(len(r.Subscriptions), "subscription", "subscriptions"), strings.Join(r.Subscriptions, ", "), r.Generator)
		}
		if len(r.Publications) > 0 {
			fmt.Fprintf(&b, "\nlogical replication: %s (DEFAULT %s.next_id()) is published (%s %s): a subscriber that takes over from this server hands out its IDs again unless shardid pg resume --apply runs there first (its counters do not follow)\n",
				table, r.Generator, words.Plural(len(r.Publications), "publication", "publications"), strings.Join(r.Publications, ", "))
		}
	}
	if len(c.Templates) > 0 {
		fmt.Fprintf(&b, "\ntemplate databases read: %s (template0 accepts no connection: nothing can be in it)\n", strings.Join(c.Templates, ", "))
	}
	if len(c.Invalid) > 0 {
		fmt.Fprintf(&b, "\ninvalid databases passed over: %s (an interrupted DROP DATABASE left them so; nobody can connect to them or draw IDs from them; drop them with DROP DATABASE)\n", strings.Join(c.Invalid, ", "))
	}
	if len(c.Closed) > 0 {
		fmt.Fprintf(&b, "\nNOT READ: %s: the role may not connect (no CONNECT privilege, or connections not allowed); grant CONNECT to prove no copy of a shard is there\n", strings.Join(c.Closed, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describe renders a generator's metadata as pg status shows it: its
// mode, bits (time/shard/seq, and route bits when it has them), time
// unit and epoch.
func describe(m pgfunc.Meta) string {
	bits := fmt.Sprintf("%d/%d/%d", m.TimeBits, m.ShardBits, m.SeqBits)
	if m.RouteBits > 0 {
		bits += fmt.Sprintf("/%d route", m.RouteBits)
	}
	return fmt.Sprintf("mode %s, %s bits of %dms since %s", m.Mode, bits,
		m.UnitMS, time.UnixMilli(m.EpochMS).UTC().Format(time.RFC3339Nano))
}
