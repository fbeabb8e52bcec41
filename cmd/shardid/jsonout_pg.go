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
type pgStatusRow = migrate.StatusRow

// pgStatusJSON adds st's rows to r; asked says whether options were named
// (status judges against them then).
func pgStatusJSON(r *jsonReport, st []migrate.Status, asked bool) {
	for _, s := range st {
		r.row(s.Row(asked))
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
