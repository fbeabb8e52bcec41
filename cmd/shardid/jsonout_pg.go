package main

import (
	"fmt"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
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
