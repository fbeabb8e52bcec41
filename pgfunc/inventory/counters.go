package inventory

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// Counter is one generator's counter (next_id_seq) or one a down kept
// (next_id_retired_seq), as Counters lists them for Resume to move.
type Counter struct {
	// Schema holds the counter.
	Schema string
	// Retired is true for a counter a down kept.
	Retired bool
	// Meta is what the counter's generator records (Shard -1 when not
	// known).
	Meta pgfunc.Meta
	// Known is true when its metadata was read (next_id_meta() or the
	// comment).
	Known bool
	// Unreadable says why it looks like a generator's yet has no
	// metadata (Installed.Unreadable).
	Unreadable string
	// HasLock is true when the schema holds the jump lock's table.
	HasLock bool
}

// Counters reads the counters of the database db is connected to, of the
// listed schemas (nil: all).
func Counters(ctx context.Context, db *sql.DB, schemas []string) ([]Counter, error) {
	q, err := sqlt.Query("resume_counters", nil)
	if err != nil {
		return nil, err
	}
	var arg any
	if schemas != nil {
		arg = schemas
	}
	rows, err := db.QueryContext(ctx, q, arg)
	if err != nil {
		return nil, fmt.Errorf("resume: list counters: %w", err)
	}
	defer rows.Close()
	var out []Counter
	for rows.Next() {
		var r Counter
		var row counterRow
		if err := rows.Scan(&r.Schema, &r.Retired, &row.comment, &r.HasLock, &row.body, &row.looks); err != nil {
			return nil, fmt.Errorf("resume: list counters: %w", err)
		}
		row.retired = r.Retired
		// The comment read here is next_id()'s for a live counter without
		// one, as discover's older column.
		r.Meta, _, _, r.Unreadable = row.meta()
		r.Known = r.Meta.Tool != ""
		if !r.Known {
			r.Meta.Shard = -1 // not known (pgfunc.Meta's zero would read as shard 0)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("resume: list counters: %w", err)
	}
	rows.Close()
	for i := range out {
		if out[i].Unreadable != "" {
			if out[i].Meta.Shard, err = jumpShard(ctx, db, out[i].Schema); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
