package segment

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/shardid/shardid/dialect"
)

// Statement renders one of the allocator's statements (alloc,
// explain, get, list, add, raise, setstep, report, resume) for d and table,
// for TiDB's parser.
func Statement(d dialect.Dialect, table, name string) (string, error) {
	v, err := newSegmentView(d, table)
	if err != nil {
		return "", err
	}
	return v.render(name)
}

// NextStep exposes the step rule.
var NextStep = nextStep

// BreakSegments makes c take segments a wrong way, for negative controls,
// and believe what it gets:
//
//   - "no-write" reads max_id and hands out the range above it without
//     moving it, so two clients, or a client and its restarted self, get
//     the same segment;
//   - "read-then-write" reads max_id, then writes max_id + step in a second
//     statement, so concurrent clients can read the same max_id;
//   - "unrecorded" takes segments without holding the row to the tag's
//     record (only to its own memory), as clients did before the record
//     joined the allocation;
//   - "forgetful" takes segments as a client without memory of what it took
//     would: the allocation without its "above what I took" condition, no
//     check of what comes back, no reading of the row between loads, so a
//     restored table's segments are believed.
func BreakSegments(c *Segments, how string) {
	if how == "unrecorded" {
		// The allocation without its record condition, all else as it is:
		// a client started before a restore of the allocation table
		// alone then takes segments a client no longer running took.
		c.view.Recorded = false
		stmt, err := c.view.prepareAlloc(context.Background(), c.db)
		if err != nil {
			panic(err)
		}
		c.alloc.Close()
		c.alloc = stmt
		return
	}
	c.noRecord = true // nor does it keep the record table
	if how == "forgetful" {
		c.trust = true
		c.take = func(step, _ int64) (int64, int64, error) { return c.takeDB(step, math.MinInt64) }
		return
	}
	c.trust = true // a broken allocator, not a client that checks what it gets
	read := "SELECT max_id FROM shardid_segments WHERE tag = ?"
	write := "UPDATE shardid_segments SET max_id = ? WHERE tag = ?"
	if c.view.Dialect == dialect.Postgres {
		read = "SELECT max_id FROM shardid_segments WHERE tag = $1"
		write = "UPDATE shardid_segments SET max_id = $1 WHERE tag = $2"
	}
	c.take = func(step, _ int64) (int64, int64, error) {
		var maxID int64
		if err := c.db.QueryRowContext(context.Background(), read, c.set.Tag).Scan(&maxID); err != nil {
			return 0, 0, err
		}
		switch how {
		case "no-write":
		case "read-then-write":
			if _, err := c.db.ExecContext(context.Background(), write, maxID+step, c.set.Tag); err != nil {
				return 0, 0, err
			}
		default:
			panic(fmt.Sprintf("BreakSegments: unknown way %q", how))
		}
		return maxID + step, step, nil
	}
}

// NewOnClock is New taking its decisions of when (the step, retries after
// a failure) on mono instead of the runtime's monotonic clock, so that a
// test drives them.
func NewOnClock(ctx context.Context, db *sql.DB, s Settings, mono func() time.Duration) (*Segments, error) {
	return newSegments(ctx, db, s, mono)
}
