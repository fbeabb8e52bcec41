package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
)

// claimRounds bounds how often Acquire reads the table again after
// other acquirers took the candidates it tried; claimErrors bounds the
// claim statements in a row that fail on an id nobody else took.
const (
	claimRounds = 1000
	claimErrors = 5
	// claimBatch is how many candidates one round tries before reading
	// the table again.
	claimBatch = 64
)

// Acquire leases a node id from the lease table on db and returns the
// lease with its generator bound to it. It takes the free id Holder held
// last, else the lowest free id: one no live lease holds, by the database's
// clock. Before returning it renews the lease once, which records the time
// the generator may draw up to, and starts renewing in the background.
// Close the lease to stop drawing and give the id back.
//
// It returns errors wrapping ErrInvalidSettings, ErrInvalidTable,
// ErrLossyCommit, the layout's errors, ErrClockSkew (the local clock is too far from the
// database's), ErrClockBehind (too far behind the node's last drawn time),
// ErrLayoutMismatch, ErrNoFreeNode (every id held, or fenced by
// Fence; the message says which and names the layout's node bits),
// dialect.ErrUnknown, and the database's own errors
// (the table missing, the database unreachable). No id is cached locally:
// without the database there is no knowing who holds an id or how far it
// was drawn, so an unreachable database is an error.
func Acquire(ctx context.Context, db *sql.DB, s Settings) (*Lease, error) {
	return acquire(ctx, db, s, (*Lease).tryClaim, nil)
}

// claimed is the row of a node a claim made the lease's: its last_ms and
// its write count.
type claimed struct{ lastMs, writes int64 }

// claimFunc runs one claim statement for a candidate and reports whether
// the node is now the lease's, with its row. Tests wrap tryClaim.
type claimFunc func(l *Lease, ctx context.Context, c candidate) (bool, claimed, error)

// acquire is Acquire with the claim statement try and, when mono is not
// nil, a monotonic clock of the caller's (tests).
func acquire(ctx context.Context, db *sql.DB, s Settings, try claimFunc, mono func() time.Duration) (*Lease, error) {
	s, err := s.normalize()
	if err != nil {
		return nil, err
	}
	if s.Dialect == "" {
		if s.Dialect, err = dialect.Detect(ctx, db); err != nil {
			return nil, fmt.Errorf("lease: %w", err)
		}
	}
	q, err := leaseStatements(s.Dialect, s.Table, !s.AllowLossyCommit)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	l := &Lease{db: db, q: q, s: s, layout: s.Generator.Layout, layoutText: leaseLayoutText(s.Generator.Layout),
		clock: s.Generator.Clock, mono: mono, sleep: s.Generator.Sleep, token: newToken(), capTick: -1} // nothing to draw until the first renewal
	if l.mono == nil {
		l.mono = monoNow
		l.monoOfNow = l.clock == nil
	}
	if l.clock == nil {
		l.clock = time.Now
	}
	if l.sleep == nil {
		l.sleep = time.Sleep
	}
	if err := l.checkSkew(ctx, l.clock(), l.mono()); err != nil { // (the round trip counts from after the wall reading)
		return nil, err
	}
	if !s.AllowLossyCommit && s.Dialect != dialect.TiDB {
		if err := dialect.CheckCommit(ctx, db, s.Dialect, leaseLossyConsequence); err != nil {
			return nil, fmt.Errorf("lease: %w", err)
		}
	}
	claimMono, claimSent := l.mono(), l.clock()
	var row claimed
	if l.node, row, err = l.claim(ctx, try); err != nil {
		return nil, err
	}
	l.floorMs, l.writes, l.lastSent, l.lastSentMono = row.lastMs, row.writes, claimSent, claimMono
	l.steps.check(claimSent, claimMono)
	fail := func(err error) (*Lease, error) {
		rctx, cancel := context.WithTimeout(context.Background(), s.TTL)
		defer cancel()
		_, _ = db.ExecContext(rctx, q.release, l.floorMs, l.node, l.token)
		return nil, err
	}
	floor, err := l.waitPast(l.floorMs)
	if err != nil {
		return fail(err)
	}
	// Ticks up to floor are the earlier holders': the generator draws
	// only after them, and only while allow lets it.
	l.drawn = floor
	gs := s.Generator
	gs.Node, gs.Clock, gs.LastDrawn, gs.Fence = l.node, l.clock, time.UnixMilli(l.floorMs), l.allow
	g, err := shardid.NewGenerator(gs)
	if err != nil {
		return fail(fmt.Errorf("lease: %w", err))
	}
	l.gen = g
	if err := l.Renew(ctx); err != nil {
		return fail(err)
	}
	rctx, stop := context.WithCancel(context.Background())
	l.stopRenew, l.renewDone = stop, make(chan struct{})
	if s.RenewEvery > 0 {
		go l.renewLoop(rctx)
	} else {
		close(l.renewDone)
	}
	l.emit(Event{Kind: Acquired, Node: l.node, Time: l.clock()})
	return l, nil
}

// leaseLossyConsequence is what ErrLossyCommit says a lossy server could do
// to a lease.
const leaseLossyConsequence = "a crash could forget a claim or a renewal and give the node id to a second holder while the first still draws"

// newToken returns 128 random bits in hex: the mark that a row is this
// acquisition's. It tells acquisitions apart, it guards nothing secret
// (whoever may write the table may write it anyway), so math/rand/v2's
// randomly seeded generator is enough.
func newToken() string {
	return fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
}

// candidate is a node id Acquire may claim.
type candidate struct {
	node   int64
	exists bool  // a row exists (a lease that ended): take it over
	lastMs int64 // its last_ms when read
}

// claim takes a free node id and returns it with its last_ms.
//
// A claim statement that fails (a deadlock, or a write conflict under
// TiDB's optimistic transactions) usually lost a race: the next reading of
// the table tells, and only a failure on an id that is still free counts
// towards claimErrors. A reading that fails ends the attempt.
func (l *Lease) claim(ctx context.Context, try claimFunc) (int64, claimed, error) {
	var lastErr error
	errNode, failures := int64(-1), 0
	for range claimRounds {
		rows, err := listLeases(ctx, l.db, l.q)
		if err != nil {
			return 0, claimed{}, fmt.Errorf("lease: read lease table %s: %w%s", l.s.Table, err, leaseTableHint(err))
		}
		for _, r := range rows {
			if r.token == l.token { // a claim whose answer was lost did commit
				return r.Node, claimed{r.lastMs, r.renewals}, nil
			}
		}
		if errNode >= 0 {
			if failures++; heldLive(rows, errNode) {
				failures = 0
			}
			if failures >= claimErrors {
				return 0, claimed{}, fmt.Errorf("lease: claim node %d in %s: %w", errNode, l.s.Table, lastErr)
			}
			errNode = -1
		}
		cands, err := l.candidates(rows)
		if err != nil {
			return 0, claimed{}, err
		}
		for _, c := range cands {
			if _, err := l.waitNeeded(c.lastMs); err != nil {
				return 0, claimed{}, err
			}
			ok, row, err := try(l, ctx, c)
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, ErrLossyCommit) {
					return 0, claimed{}, fmt.Errorf("lease: claim node %d in %s: %w", c.node, l.s.Table, err)
				}
				errNode, lastErr = c.node, err
				break
			}
			if ok {
				return c.node, row, nil
			}
		}
	}
	return 0, claimed{}, fmt.Errorf("lease: the free node ids in %s went to other acquirers %d times in a row; try again", l.s.Table, claimRounds)
}

// heldLive reports whether rows show a live lease on node.
func heldLive(rows []leaseRow, node int64) bool {
	for _, r := range rows {
		if r.Node == node {
			return r.Live
		}
	}
	return false
}

// candidates lists the node ids to try, best first: free ids this holder
// held last, then the lowest free ones (ended leases and ids nobody
// leased yet), at most claimBatch of those. rows are in node order.
func (l *Lease) candidates(rows []leaseRow) ([]candidate, error) {
	maxNode := l.layout.MaxShard()
	var sticky, free []candidate
	var fenced int64
	var fencedUntil time.Time
	next := int64(0) // the lowest id not looked at yet
	for _, r := range rows {
		if r.Live && r.Fenced {
			fenced++
			if r.Until.After(fencedUntil) {
				fencedUntil = r.Until
			}
		}
		if r.Layout != l.layoutText {
			return nil, fmt.Errorf("lease: %w: node %d in %s was leased for layout %q; this generator uses %q (use another table per layout)",
				ErrLayoutMismatch, r.Node, l.s.Table, r.Layout, l.layoutText)
		}
		if r.Node < next || r.Node > maxNode {
			continue
		}
		for ; next < r.Node && len(free) < claimBatch; next++ {
			free = append(free, candidate{node: next})
		}
		next = r.Node + 1
		switch {
		case r.Live:
		case r.Holder == l.s.Holder:
			sticky = append(sticky, candidate{node: r.Node, exists: true, lastMs: r.lastMs})
		case len(free) < claimBatch:
			free = append(free, candidate{node: r.Node, exists: true, lastMs: r.lastMs})
		}
	}
	for ; next <= maxNode && len(free) < claimBatch; next++ {
		free = append(free, candidate{node: next})
	}
	if len(sticky)+len(free) == 0 && fenced > 0 {
		return nil, fmt.Errorf("lease: %w: all %d node ids of the layout's %d node bits are held by live leases in %s, %d of them fenced (shardid worker fence) until %s, so that any holder from before the fence stops first; try again then",
			ErrNoFreeNode, maxNode+1, l.layout.ShardBits, l.s.Table, fenced, fencedUntil.Format(time.RFC3339Nano))
	}
	if len(sticky)+len(free) == 0 {
		return nil, fmt.Errorf("lease: %w: all %d node ids of the layout's %d node bits are held by live leases in %s",
			ErrNoFreeNode, maxNode+1, l.layout.ShardBits, l.s.Table)
	}
	return append(sticky, free...), nil
}

// tryClaim runs one claim statement and reads the row back: the node is
// ours when the row carries our token. A statement that changed nothing
// needs no read, unless the guard may be why: then a server that may lose
// acknowledged commits is an error wrapping ErrLossyCommit.
func (l *Lease) tryClaim(ctx context.Context, c candidate) (bool, claimed, error) {
	res, err := l.claimStatement(ctx, c)
	if err != nil {
		return false, claimed{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil && !l.s.AllowLossyCommit && l.s.Dialect != dialect.TiDB {
			err = dialect.CheckCommit(ctx, l.db, l.s.Dialect, leaseLossyConsequence)
		}
		return false, claimed{}, err
	}
	return l.readBack(ctx, c.node)
}

// readBack reads node's row: it is the lease's when it carries its token.
func (l *Lease) readBack(ctx context.Context, node int64) (bool, claimed, error) {
	var token string
	var row claimed
	if err := l.db.QueryRowContext(ctx, l.q.readback, node).Scan(&token, &row.lastMs, &row.writes); err != nil {
		return false, claimed{}, err
	}
	return token == l.token, row, nil
}

// claimStatement runs the statement that claims c: an INSERT for an id
// nobody leased yet, an UPDATE of an ended lease otherwise.
func (l *Lease) claimStatement(ctx context.Context, c candidate) (sql.Result, error) {
	ttl := l.s.TTL.Microseconds() // the lease's end, and the TTL the row records for a fence
	if c.exists {
		return l.db.ExecContext(ctx, l.q.takeover, l.s.Holder, l.token, ttl, ttl, c.node, l.layoutText)
	}
	return l.db.ExecContext(ctx, l.q.insert, c.node, l.s.Holder, l.token, l.layoutText, ttl, ttl)
}
