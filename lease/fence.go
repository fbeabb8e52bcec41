package lease

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
)

// fenceToken is the token of a row Fence quarantined. An
// acquisition's token is 32 hex digits, so no holder has this one.
const fenceToken = "fenced"

// maxFenceBits bounds the node bits of a layout Fence fences: one
// row per node id, 2^20 at most.
const maxFenceBits = 20

// FenceSettings configures Fence. The zero value of every field means
// the documented default.
type FenceSettings struct {
	// Layout is the layout of the generators leasing from the table: it
	// decides how many node ids there are, every one of which is fenced.
	// The zero Layout means the layout the table's rows record; a table
	// without rows then needs it given.
	Layout shardid.Layout
	// TTL is how long the fence keeps every node id from new holders, by
	// which time every holder from before it has stopped drawing: at least
	// the longest TTL any holder uses. 0 means the longest TTL a row of the
	// table records (Info.TTL), or DefaultTTL when none records one; a TTL
	// below the longest a row records is refused (ErrInvalidSettings).
	// Rows leased before the table recorded TTLs (TTLMigrationName) record
	// none: give a TTL that covers their holders (FenceResult.Unknown
	// counts the live ones).
	TTL time.Duration
	// MaxClockSkew is the largest MaxClockSkew any holder uses: a new
	// holder draws only once its clock is this far past the fence's end.
	// 0 means DefaultMaxClockSkew; a negative value means none.
	MaxClockSkew time.Duration
	// Nodes, if not 0, fences node ids 0 to Nodes-1 (and every row the
	// table holds) instead of every node id of the layout: for layouts of
	// more than 20 node bits, which have more ids than a fence writes rows
	// for (MaxFenceNodes). Holders take the lowest free id, so Nodes above
	// the most holders that ever held leases at once covers every id in
	// use; a newcomer then takes an id above them, which no holder from
	// before the fence has. At most MaxFenceNodes and the layout's ids.
	Nodes int64
}

// MaxFenceNodes is the most node ids Fence writes rows for: a layout of
// more node bits needs FenceSettings.Nodes.
const MaxFenceNodes = 1 << maxFenceBits

// FenceResult is what Fence did.
type FenceResult struct {
	// Fenced is the number of rows fenced, Added of them made for node ids
	// the table had no row for.
	Fenced, Added int64
	// Until is when the fence ends at the soonest, by the database's
	// clock, in UTC: the earliest end of the fenced rows, read after the
	// last of them was written; no node id is free before it.
	Until time.Time
	// TTL is how long the fence lasts (FenceSettings.TTL, or what it
	// stands for), and Longest the longest TTL a row of the table records
	// (0 for none).
	TTL, Longest time.Duration
	// Unknown counts the live rows that record no TTL (leased before the
	// table recorded TTLs): the fence covers their holders only if TTL is
	// at least theirs.
	Unknown int64
}

// Fence quarantines every node id of the lease table on db for one
// TTL, as after a restore of the table from an older copy: every row gets
// a token no holder has, so every holder stops drawing at its next renewal
// (ErrLost, "fenced"); no new holder takes any node id until TTL has
// passed, by when every holder from before the fence has stopped; and the
// next holder of each id draws only at times after the fence's end plus
// MaxClockSkew. Node ids the table has no row for get a fenced row too
// (a restored table may lack rows live holders have). It runs in one
// transaction; a rerun fences again from its own time (the fence never
// ends sooner). d "" asks the server; table "" means DefaultTable.
// It returns errors wrapping ErrInvalidTable, ErrInvalidSettings,
// the layout's errors, ErrLayoutMismatch (the table holds nodes of more
// than one layout, or not of the one given) and the database's own.
func Fence(ctx context.Context, db *sql.DB, d dialect.Dialect, table string, f FenceSettings) (FenceResult, error) {
	var res FenceResult
	if f.Layout != (shardid.Layout{}) {
		if err := f.Layout.Validate(); err != nil {
			return res, fmt.Errorf("fence leases: %w", err)
		}
	}
	switch {
	case f.MaxClockSkew == 0:
		f.MaxClockSkew = DefaultMaxClockSkew
	case f.MaxClockSkew < 0:
		f.MaxClockSkew = 0
	}
	if f.TTL < 0 {
		return res, fmt.Errorf("fence leases: %w: TTL %s must not be negative", ErrInvalidSettings, f.TTL)
	}
	if table == "" {
		table = DefaultTable
	}
	if d == "" {
		var err error
		if d, err = dialect.Detect(ctx, db); err != nil {
			return res, fmt.Errorf("fence leases: %w", err)
		}
	}
	q, err := leaseStatements(d, table, false)
	if err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	rows, err := listLeases(ctx, db, q)
	if err != nil {
		return res, fmt.Errorf("fence leases: read %s: %w%s", table, err, leaseTableHint(err))
	}
	var layout string
	var shardBits int
	switch {
	case f.Layout != (shardid.Layout{}):
		layout, shardBits = leaseLayoutText(f.Layout), int(f.Layout.ShardBits)
	case len(rows) == 0:
		return res, fmt.Errorf("fence leases: %w: %s has no row to read the holders' layout from; give the holders' layout (Layout; shardid worker fence --layout): it decides how many node ids to fence", ErrInvalidSettings, table)
	default:
		layout = rows[0].Layout
		if _, err := fmt.Sscanf(layout, "%d/%d/", new(int), &shardBits); err != nil || shardBits < 0 {
			return res, fmt.Errorf("fence leases: %w: node %d in %s records layout %q, which does not say its node bits; give the layout", ErrInvalidSettings, rows[0].Node, table, layout)
		}
	}
	nodes := int64(1) << shardBits
	switch {
	case f.Nodes < 0 || f.Nodes > min(nodes, MaxFenceNodes):
		return res, fmt.Errorf("fence leases: %w: Nodes %d is out of range (allowed 1-%d: node ids 0 to Nodes-1 of the layout's %d, at most %d)", ErrInvalidSettings, f.Nodes, min(nodes, MaxFenceNodes), nodes, MaxFenceNodes)
	case f.Nodes > 0:
		nodes = f.Nodes
	case shardBits > maxFenceBits:
		return res, fmt.Errorf("fence leases: %w: %d node bits are %d node ids, more than the %d a fence writes rows for; fence node ids 0 to N-1 and every row the table holds instead (Nodes; shardid worker fence --nodes N) with N above the most generators that ever held a lease at once: they take the lowest free id",
			ErrInvalidSettings, shardBits, nodes, MaxFenceNodes)
	}
	have := map[int64]bool{}
	var longestNode int64
	for _, r := range rows {
		if r.Layout != layout {
			return res, fmt.Errorf("fence leases: %w: node %d in %s was leased for layout %q, node %d for %q (give the holders' layout)", ErrLayoutMismatch, r.Node, table, r.Layout, rows[0].Node, layout)
		}
		have[r.Node] = true
		if r.TTL > res.Longest {
			res.Longest, longestNode = r.TTL, r.Node
		}
		if r.TTL == 0 && r.Live && !r.Fenced {
			res.Unknown++
		}
	}
	switch {
	case f.TTL == 0 && res.Longest > 0:
		f.TTL = res.Longest
	case f.TTL == 0:
		f.TTL = DefaultTTL
	case f.TTL < res.Longest:
		return res, fmt.Errorf("fence leases: %w: TTL %s is below %s, the TTL node %d's holder leases with in %s: a holder from before the fence could draw after it ended (give at least %s, or leave it 0 for the longest the table records)",
			ErrInvalidSettings, f.TTL, res.Longest, longestNode, table, res.Longest)
	}
	res.TTL = f.TTL
	ttlUs, untilMs := f.TTL.Microseconds(), (f.TTL + f.MaxClockSkew).Milliseconds()
	var startUs int64 // the fence ends TTL after its last statement, so no sooner than TTL after this
	if err := db.QueryRowContext(ctx, q.now).Scan(&startUs); err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	defer tx.Rollback()
	insert, err := tx.PrepareContext(ctx, q.fenceInsert)
	if err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	defer insert.Close()
	for node := int64(0); node < nodes; node++ {
		if have[node] {
			continue
		}
		r, err := insert.ExecContext(ctx, node, layout, ttlUs, untilMs)
		if err != nil {
			return res, fmt.Errorf("fence leases: node %d: %w", node, err)
		}
		n, _ := r.RowsAffected()
		res.Added += n
	}
	r, err := tx.ExecContext(ctx, q.fence, ttlUs, untilMs)
	if err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	if res.Fenced, err = r.RowsAffected(); err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	var endUs sql.NullInt64 // the rows' own end: after the inserts and the update
	if err := tx.QueryRowContext(ctx, q.fenceEnd).Scan(&endUs); err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("fence leases: %w", err)
	}
	res.Until = time.UnixMicro(max(startUs+ttlUs, endUs.Int64)).UTC()
	return res, nil
}
