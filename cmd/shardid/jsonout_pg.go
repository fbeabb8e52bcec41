package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// pgStatusRow is one shard of pg status --json.
type pgStatusRow struct {
	Schema    string       `json:"schema"`
	Shard     int64        `json:"shard"`
	Version   int64        `json:"version"`
	Generator *pgfunc.Meta `json:"generator"` // null: none in the schema
	// State is "none", "ok", "outdated", "upgradable" (pg up replaces its
	// body in place), "differs" (from the options asked for) or
	// "unreadable" (a counter beside a generator's objects whose metadata
	// cannot be read; shard -1: not known).
	State string `json:"state"`
	// AheadMS is how far the counter stood past the clock when read,
	// when that is past the generator's lead (0 otherwise).
	AheadMS int64 `json:"ahead_ms,omitempty"`
	// AlsoIn lists other schemas ([database.]schema) whose generator
	// carries this shard id.
	AlsoIn []string `json:"also_in"`
}

// pgStatusJSON adds st's rows to r; asked says whether options were named
// (status judges against them then).
func pgStatusJSON(r *jsonReport, st []migrate.Status, asked bool) {
	if r == nil {
		return
	}
	for _, s := range st {
		row := pgStatusRow{Schema: s.Shard.Schema, Shard: s.Shard.ID, Version: s.Version, Generator: s.Installed, State: s.State(asked), AlsoIn: []string{}}
		if s.PastLead() {
			row.AheadMS = s.Ahead.Milliseconds()
		}
		for _, e := range s.Elsewhere {
			row.AlsoIn = append(row.AlsoIn, strings.TrimPrefix(e.Database+"."+e.Schema, "."))
		}
		r.row(row)
	}
}

// pgServerJSON adds to r what pg status found on the server beyond the
// shards: its database, the counters downs kept, the databases it could
// not read, and the privileges that let roles break the generators.
func pgServerJSON(r *jsonReport, c inventory.Census, dangers []privilege.Danger) {
	if r == nil {
		return
	}
	type kept struct {
		Where string      `json:"where"`
		Meta  pgfunc.Meta `json:"generator"`
	}
	retired := []kept{}
	for _, in := range c.Retired {
		retired = append(retired, kept{strings.TrimPrefix(in.Database+"."+in.Schema, "."), in.Meta})
	}
	unreadable := []map[string]any{}
	for _, in := range c.Unreadable {
		unreadable = append(unreadable, map[string]any{"where": strings.TrimPrefix(in.Database+"."+in.Schema, "."), "shard": in.Meta.Shard, "retired": in.Retired, "why": in.Unreadable})
	}
	ds := []map[string]string{}
	for _, d := range dangers {
		ds = append(ds, map[string]string{"schema": d.Schema, "role": d.Role, "object": d.Object, "privilege": d.Privilege, "effect": d.String()})
	}
	r.total("database", c.Database)
	r.total("template", c.Template)
	r.total("retired_counters", retired)
	r.total("unreadable_counters", unreadable)
	replicated := []inventory.Replicated{}
	for _, x := range c.Replicated {
		if x.Database == "" {
			x.Database = c.Database
		}
		replicated = append(replicated, x)
	}
	r.total("logical_replication", replicated)
	r.total("templates_read", c.Templates)
	r.total("databases_not_read", c.Closed)
	r.total("invalid_databases", c.Invalid)
	r.total("dangerous_privileges", ds)
}

// pgResultRow is one shard of the --json of pg up, down and grant.
type pgResultRow struct {
	Schema string  `json:"schema"`
	Shard  int64   `json:"shard"`
	State  string  `json:"state"` // applied, removed, upgraded, granted, current, …, or failed
	MS     float64 `json:"ms"`
	Error  string  `json:"error,omitempty"`
}

// pgResultJSON adds result res (state as the text line says it) to r.
func pgResultJSON(r *jsonReport, env *cliEnv, state string, res pgfunc.Result) {
	if r == nil {
		return
	}
	row := pgResultRow{Schema: res.Shard.Schema, Shard: res.Shard.ID, State: state, MS: float64(res.Duration.Microseconds()) / 1000}
	if res.Err != nil {
		row.State, row.Error = "failed", env.line(res.Err.Error())
	}
	r.row(row)
}

// pgTotalsJSON sets the totals of pg up, down and grant.
func pgTotalsJSON(r *jsonReport, shards, changed, failed int, verb string, took time.Duration) {
	r.total("shards", shards)
	r.total(verb, changed)
	r.total("unchanged", shards-changed-failed)
	r.total("failed", failed)
	r.total("took", fmt.Sprint(took.Round(time.Millisecond)))
}
