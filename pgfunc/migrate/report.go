package migrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// Report is everything a status of one server shows, read by one call
// (Migrator.Report).
type Report struct {
	// Statuses is Survey's answer for the shards, in shard id order
	// (insta2 before insta10), schemas of one shard id by name.
	Statuses []Status
	// Census is what the same reading of the server found beyond the
	// shards (Survey).
	Census inventory.Census
	// Dangers are the privileges that let a role break the shards'
	// generators (privilege.Dangers).
	Dangers privilege.DangerList
	// Citus is the cluster as its coordinator shows it (citus.Survey),
	// nil on a server without Citus.
	Citus *citus.Status
}

// Report reads what a status shows of the shards (with no shards, of
// every generator of the Migrator's database): Survey's statuses and
// census from one reading of the server, the dangerous privileges on
// them, and on a Citus coordinator every node's counters. It stops at the
// first reading that fails.
func (m *Migrator) Report(ctx context.Context, shards []pgfunc.Shard) (Report, error) {
	var r Report
	var err error
	if r.Statuses, r.Census, err = m.Survey(ctx, shards); err != nil {
		return Report{}, err
	}
	slices.SortStableFunc(r.Statuses, func(a, b Status) int {
		return cmp.Or(cmp.Compare(a.Shard.ID, b.Shard.ID), strings.Compare(a.Shard.Schema, b.Shard.Schema))
	})
	if r.Dangers, err = privilege.Dangers(ctx, m.db, shards); err != nil {
		return Report{}, err
	}
	if r.Citus, err = citus.Survey(ctx, m.db, m.opts, shards); err != nil {
		return Report{}, err
	}
	return r, nil
}

// Err is the verdict of a status on r: nil when nothing is wrong, else
// one error naming the most serious kind of problem found and how many
// (Citus problems, shard ids held twice, unreadable counters, generators
// outdated or, when asked, differing from the Migrator's options, shard
// ids in another schema than the format names, a server in recovery,
// copies in other databases, templates, unread databases, generators of
// different kinds that meet, exhausted layouts, counters past their
// lead, dangerous privileges). asked says whether the options were named
// by the caller: without, a generator that differs from them is no
// problem.
func (r Report) Err(asked bool) error {
	var mismatched, copies, moved, exhausted, ahead int
	for _, s := range r.Statuses {
		if s.Installed != nil && (s.Upgradable || s.Outdated || !s.Matches && asked) {
			mismatched++
		}
		copied := s.Installed != nil || len(s.Elsewhere) > 1
		switch {
		case copied && len(s.Elsewhere) > 0:
			copies++ // shard ids, however many copies each has
		case len(s.Elsewhere) > 0:
			moved++
		}
		switch {
		case s.Exhausted:
			exhausted++
		case s.PastLead():
			ahead++
		}
	}
	meet := 0
	for _, p := range r.Census.Mixed() {
		if p.Meet {
			meet++
		}
	}
	c, citus, unreadable := r.Census, 0, len(r.Census.Unreadable)
	elsewhere, templated := len(c.HeldElsewhere()), len(c.InTemplates())
	if r.Citus != nil {
		citus = len(r.Citus.Problems)
	}
	switch {
	case citus > 0:
		return fmt.Errorf("%d %s on the Citus cluster (listed above, each naming the node and the counter): IDs could repeat, or draws refuse", citus, words.Plural(citus, "problem", "problems"))
	case copies > 0:
		return fmt.Errorf("%d shard %s held by more than one schema on the server", copies, words.Plural(copies, "id is", "ids are"))
	case unreadable > 0:
		return fmt.Errorf("%d %s like a generator's but %s metadata cannot be read (listed above): %s IDs nobody can place", unreadable,
			words.Plural(unreadable, "counter looks", "counters look"), words.Plural(unreadable, "its", "their"), words.Plural(unreadable, "it hands out", "they hand out"))
	case mismatched > 0:
		return fmt.Errorf("%d %s a generator that is outdated or differs from the requested options", mismatched, words.Plural(mismatched, "schema holds", "schemas hold"))
	case moved > 0:
		return fmt.Errorf("%d shard %s held by another schema than the schema format names", moved, words.Plural(moved, "id is", "ids are"))
	case c.InRecovery:
		return errors.New("the server is in recovery (a standby, or a point-in-time recovery paused at its target): it hands out no IDs; promote it, then run pg resume before writers draw")
	case elsewhere > 0:
		return fmt.Errorf("%d shard %s held by more than one schema in other databases of the server (listed above)", elsewhere, words.Plural(elsewhere, "id is", "ids are"))
	case c.Template:
		return fmt.Errorf("database %s is a template: every database created from it copies its generators", c.Database)
	case templated > 0:
		return fmt.Errorf("%d %s of the server %s generators: every database created from one copies them (listed above)", templated, words.Plural(templated, "template database", "template databases"), words.Plural(templated, "holds", "hold"))
	case len(c.Closed) > 0:
		return fmt.Errorf("%d %s of the server could not be read (%s): a copy of a shard there would go unseen", len(c.Closed),
			words.Plural(len(c.Closed), "database", "databases"), strings.Join(c.Closed, ", "))
	case meet > 0:
		return fmt.Errorf("%d %s of generators of different kinds on the server can hand out the same IDs (listed above)", meet, words.Plural(meet, "pair", "pairs"))
	case exhausted > 0:
		return fmt.Errorf("%d %s no ID left: %s layout has ended (listed above)", exhausted, words.Plural(exhausted, "generator has", "generators have"), words.Plural(exhausted, "its", "their"))
	case ahead > 0:
		return fmt.Errorf("%d %s further ahead of the clock than %s lead (listed above)", ahead, words.Plural(ahead, "counter stands", "counters stand"), words.Plural(ahead, "its", "their"))
	case len(r.Dangers) > 0:
		return fmt.Errorf("%d %s roles break the generators (listed above)", len(r.Dangers), words.Plural(len(r.Dangers), "privilege lets", "privileges let"))
	}
	return nil
}

// Totals is what pg status --json reports of the server beyond the
// shards, by key: its database, whether it is a template, the counters
// downs kept, the counters whose metadata cannot be read, the
// generators under logical replication, the templates read, the
// databases not read and invalid, and the privileges that let roles
// break the generators. Every list is [] when empty.
func (r Report) Totals() map[string]any {
	type kept struct {
		Where string      `json:"where"`
		Meta  pgfunc.Meta `json:"generator"`
	}
	c := r.Census
	where := func(in inventory.Installed) string { return strings.TrimPrefix(in.Database+"."+in.Schema, ".") }
	retired := []kept{}
	for _, in := range c.Retired {
		retired = append(retired, kept{where(in), in.Meta})
	}
	unreadable := []map[string]any{}
	for _, in := range c.Unreadable {
		unreadable = append(unreadable, map[string]any{"where": where(in), "shard": in.Meta.Shard, "retired": in.Retired, "why": in.Unreadable})
	}
	ds := []map[string]string{}
	for _, d := range r.Dangers {
		ds = append(ds, map[string]string{"schema": d.Schema, "role": d.Role, "object": d.Object, "privilege": d.Privilege, "effect": d.String()})
	}
	replicated := []inventory.Replicated{}
	for _, x := range c.Replicated {
		if x.Database == "" {
			x.Database = c.Database
		}
		replicated = append(replicated, x)
	}
	return map[string]any{"database": c.Database, "template": c.Template, "retired_counters": retired, "unreadable_counters": unreadable,
		"logical_replication": replicated, "templates_read": c.Templates, "databases_not_read": c.Closed, "invalid_databases": c.Invalid,
		"dangerous_privileges": ds}
}
