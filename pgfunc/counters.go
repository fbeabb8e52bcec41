package pgfunc

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shardid/shardid/dialect"
)

// counterRef is one counter Resume found.
type counterRef struct {
	schema     string
	retired    bool
	meta       Meta
	known      bool   // its metadata was read (next_id_meta() or the comment)
	unreadable string // why it looks like a generator's yet has no metadata (Installed.Unreadable)
	hasLock    bool   // the schema holds the jump lock's table
}

// listCounters reads the counters of the database db is connected to,
// of the listed schemas (nil: all).
func listCounters(ctx context.Context, db *sql.DB, schemas []string) ([]counterRef, error) {
	q, err := query("resume_counters", nil)
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
	var out []counterRef
	for rows.Next() {
		var r counterRef
		var row counterRow
		if err := rows.Scan(&r.schema, &r.retired, &row.comment, &r.hasLock, &row.body, &row.looks); err != nil {
			return nil, fmt.Errorf("resume: list counters: %w", err)
		}
		row.retired = r.retired
		// The comment read here is next_id()'s for a live counter without
		// one, as discover's older column.
		r.meta, _, _, r.unreadable = row.meta()
		r.known = r.meta.Tool != ""
		if !r.known {
			r.meta.Shard = -1 // not known (Meta's zero would read as shard 0)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("resume: list counters: %w", err)
	}
	rows.Close()
	for i := range out {
		if out[i].unreadable != "" {
			if out[i].meta.Shard, err = jumpShard(ctx, db, out[i].schema); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// ownerHint adds to a permission error that moving a counter takes the
// generator's owner.
func ownerHint(err error) error {
	if dialect.ErrorCode(err) == "42501" { // insufficient_privilege
		return fmt.Errorf("%w (resume moves counters with setval under the jump lock: run it as the generators' owner, the role that applied them)", err)
	}
	return err
}

// readAhead fills Status.Ahead for every status whose schema holds a
// generator in mode unique whose counter the role may read.
func (m *Migrator) readAhead(ctx context.Context, sts []Status) error {
	var schemas []string
	idx := map[string]int{}
	for i, st := range sts {
		if st.Installed != nil && st.Installed.Mode == ModeUnique {
			schemas = append(schemas, st.Shard.Schema)
			idx[st.Shard.Schema] = i
		}
	}
	if len(schemas) == 0 {
		return nil
	}
	q, err := query("counters", m.opts.clock)
	if err != nil {
		return err
	}
	rows, err := m.db.QueryContext(ctx, q, schemas)
	if err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var schema string
		var last sql.NullInt64
		var nowMS float64
		if err := rows.Scan(&schema, &last, &nowMS); err != nil {
			return fmt.Errorf("read counters: %w", err)
		}
		st := &sts[idx[schema]]
		l := st.Installed.LayoutOf()
		if nowMS >= float64(l.End().UnixMilli()) || last.Valid && last.Int64 >= (l.MaxTicks()+1)<<l.SeqBits-1 {
			st.Exhausted = true
		}
		if !last.Valid {
			continue // never drawn
		}
		endMS := ((last.Int64>>l.SeqBits)+1)*l.UnitMillis() + l.EpochMillis()
		st.Ahead = time.Duration((float64(endMS) - nowMS) * float64(time.Millisecond))
		st.CounterRead = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	return nil
}

// clockNow reads the server's clock on db, as the generators read it.
func (m *Migrator) clockNow(ctx context.Context, db *sql.DB) (time.Time, error) {
	q, err := query("clock_now", m.opts.clock)
	if err != nil {
		return time.Time{}, err
	}
	var now time.Time
	if err := db.QueryRowContext(ctx, q).Scan(&now); err != nil {
		return time.Time{}, fmt.Errorf("read the clock: %w", err)
	}
	return now, nil
}
