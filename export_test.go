package shardid

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/shardid/shardid/dialect"
)

// Test-only access to the lease's internals, for the external tests.

// AcquireLeaseWithHook is AcquireLease calling beforeClaim before every
// claim statement, so a test can line concurrent acquirers up at the worst
// moment: all have read the table, none has claimed. With unchecked it is
// the broken variant the concurrency tests must catch: it believes every
// claim statement that ran without error, without reading the row back.
func AcquireLeaseWithHook(ctx context.Context, db *sql.DB, s LeaseSettings, beforeClaim func(), unchecked bool) (*Lease, error) {
	return acquire(ctx, db, s, func(l *Lease, ctx context.Context, c candidate) (bool, claimed, error) {
		if beforeClaim != nil {
			beforeClaim()
		}
		if !unchecked {
			return l.tryClaim(ctx, c)
		}
		if _, err := l.claimStatement(ctx, c); err != nil {
			return false, claimed{}, err
		}
		_, row, err := l.readBack(ctx, c.node) // the row's counts, whoever's token it holds
		return err == nil, row, err
	})
}

// LeaseFence returns the generator's fence: the instant it stops drawing
// and the last tick it may draw at.
func LeaseFence(l *Lease) (time.Time, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopAt, l.capTick
}

// BreakFence is the broken variant the outage tests must catch: a
// generator that keeps drawing whatever its lease says.
func BreakFence(l *Lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopAt, l.capTick = time.Unix(1<<40, 0), math.MaxInt64
}

// TrustRow is the broken variant the restore tests must catch: a holder
// that renews on its token alone, without the row's write count, so a row
// restored from an older copy with its token goes unnoticed.
func TrustRow(l *Lease) {
	l.renewMu.Lock()
	defer l.renewMu.Unlock()
	l.trustRow = true
}

// DropFloor is the broken variant the clock tests must catch: a generator
// that forgets the earlier holders' last tick. It replaces the lease's
// generator with one made without Settings.LastDrawn, behind the same
// fence.
func DropFloor(l *Lease) {
	gs := l.s.Generator
	gs.Node, gs.Clock, gs.Fence = l.node, l.clock, l.allow
	g, err := NewGenerator(gs)
	if err != nil {
		panic(err)
	}
	l.gen = g
}

// BenchNext is BenchmarkNext's loop over any generator: IDs per
// millisecond and the share of the Snowflake ceiling.
var BenchNext = benchNext

// SegmentStatement renders one of the allocator's statements (alloc,
// explain, get, list, add, raise, setstep, report, resume) for d and table,
// for TiDB's parser.
func SegmentStatement(d dialect.Dialect, table, name string) (string, error) {
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
//   - "forgetful" takes segments as a client without memory of what it took
//     would: the allocation without its "above what I took" condition, no
//     check of what comes back, no reading of the row between loads, so a
//     restored table's segments are believed.
func BreakSegments(c *Segments, how string) {
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
