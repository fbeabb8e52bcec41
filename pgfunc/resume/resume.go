package resume

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/internal/batch"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// Errors returned by Run.
var (
	// ErrInRecovery is returned by Run when the server is
	// still in recovery (a standby, or a restore still replaying WAL):
	// its counters cannot move, and a standby's would be overwritten by
	// what it replays. Promote it, or let it finish recovery, first.
	ErrInRecovery = errors.New("server is in recovery")
	// ErrDatabaseNotRead is returned (in a Resumed) by Run for
	// a database of the server the role may not connect to: its
	// generators, if any, were not moved.
	ErrDatabaseNotRead = errors.New("database not read")
	// ErrAfterLayoutEnd is returned by Run, before it moves
	// anything, when Options.After lies at or past the end of the
	// time field of a generator's layout: no counter value of that layout
	// lies past it.
	ErrAfterLayoutEnd = errors.New("instant past the end of a layout")
	// ErrLayoutEnded is returned (in a Resumed) by Run for a
	// counter whose layout ends before the instant it would move past:
	// its generator hands out no ID any more (every draw raises "time
	// field exhausted").
	ErrLayoutEnded = errors.New("layout ended")
	// ErrNodeNotRead is returned (in a Resumed) by Run on a Citus
	// coordinator for a node of the cluster that could not be reached or
	// read: its counters did not move.
	ErrNodeNotRead = errors.New("citus node not read")
	// ErrJumpLocked is returned (in a Resumed's Err) by Resume when a
	// shard's jump lock stayed held for migrate.Options.LockTimeout: a jump
	// holds it for a moment, so a transaction holds it. That counter is not
	// moved; the others are.
	ErrJumpLocked = errors.New("jump lock held")
	// ErrLeadBelowRecorded is returned by Run, before it
	// moves anything, when Options.Lead is below the lead a
	// generator or kept counter of the server records: the old server ran
	// that generator with that lead, so others may have run with it too
	// (pg down, then pg up --lead, changes a generator's lead), and
	// counters moved by less hand out its IDs again. Give the largest lead
	// the old server ran with, or set Options.BelowRecordedLead.
	ErrLeadBelowRecorded = errors.New("lead below one recorded on the server")
)

// Resume moves, after a restore, a point-in-time recovery or a failover,
// the counter of every generator in mode unique past anything the old
// server could have handed out, so that the server hands out none of the
// old server's IDs again, whenever it draws: to the first value of the
// tick holding Options.After, or the server's clock plus the larger
// of Options.Lead (zero: MaxLead) and the generator's lead. Counters a down kept (next_id_retired_seq), which the
// next up carries on from, move too. It only ever moves a counter forward,
// so a rerun changes nothing, and it moves each live counter the way a
// jump of next_id() does, under the shard's jump lock, so draws running
// meanwhile stay unique. A generator in mode unique hands out IDs at most
// its lead ahead of the clock: draws right after a resume wait for the
// clock, up to one tick, and then keep the clock's pace until it has
// caught up the lead.
//
// On a Citus coordinator (docs/citus.md) it also moves, on every node of
// the cluster (the coordinator included), each node's counter of each
// shard (<schema>_node.next_id_node_seq), under that node's jump lock,
// keeping the counter's slot; a node it cannot reach is a Resumed whose
// Err wraps ErrNodeNotRead. On a Citus worker it returns citus.ErrWorker:
// the cluster is resumed through its coordinator.
//
// With no shards it moves every counter in the Migrator's database and,
// unless migrate.Options.OwnDatabaseOnly, in every other database of the
// server (through migrate.Options.Connect, or the connector derived from
// the pool), templates included; a database the role may not connect to
// (a template that takes no connections included, template0 as
// PostgreSQL ships it aside) is a Resumed whose Err wraps
// ErrDatabaseNotRead. With shards, only theirs
// in the Migrator's database. It returns ErrInRecovery, without touching
// anything, on a server still in recovery, ErrInvalidLead for a
// Options.Lead out of range, ErrAfterLayoutEnd, before it moves
// anything, for a Options.After no counter of some generator's
// layout lies past, and ErrServerLocked when Up's
// server-wide lock stays held (Resume holds it too, so that no up carries
// a kept counter on while it moves); per-counter failures (a role that
// does not own the generator may not move it) are in the results, the
// error then a *pgfunc.PartialError (see Resumed.Result).
// It returns ErrLeadBelowRecorded, before it moves anything, for a
// Options.Lead below the largest lead a generator of the server
// records, unless Options.BelowRecordedLead. With
// Options.DryRun it moves nothing and reports what it would do. A
// counter whose metadata cannot be read (Installed.Unreadable) is a
// failure (ErrUnreadableGenerator in its Resumed), never passed over.
// A live counter it moves records the move on the jump lock's table,
// which the error of a draw waiting for the clock names in its hint.
// each, if not nil, is called as counters finish, one call at a time.
func Run(ctx context.Context, mig *migrate.Migrator, shards []pgfunc.Shard, ro Options, each func(Resumed)) ([]Resumed, error) {
	srv := mig.Server()
	m := &run{db: srv.DB(), srv: srv, opts: mig.Options(), parallel: mig.Parallel(), lockWait: srv.LockTimeout()}
	out, err := m.resume(ctx, shards, ro, each)
	if err != nil {
		return out, err
	}
	results := make([]pgfunc.Result, len(out))
	for i, r := range out {
		results[i] = r.Result()
	}
	_, err = pgfunc.Partial(results)
	return out, err
}

// Result is r as the pgfunc.Result of a batch: its schema (with its
// database, when not the Migrator's, as database.schema) and shard id,
// Applied when the counter moved (or would, in a dry run), its Note and
// its Err.
func (r Resumed) Result() pgfunc.Result {
	schema := r.Schema
	if r.Database != "" {
		schema = r.Database + "." + schema
	}
	if r.Node != "" {
		schema += " on " + r.Node
	}
	return pgfunc.Result{Shard: pgfunc.Shard{Schema: schema, ID: r.Shard}, Applied: r.Moved, Note: r.Note, Err: r.Err}
}

// run is one Run: the Migrator's server and options.
type run struct {
	db       *sql.DB
	srv      *inventory.Server
	opts     pgfunc.Options
	parallel int
	lockWait time.Duration
}

func (m *run) resume(ctx context.Context, shards []pgfunc.Shard, ro Options, each func(Resumed)) ([]Resumed, error) {
	q, err := sqlt.Query("in_recovery", nil)
	if err != nil {
		return nil, err
	}
	var recovering bool
	if err := m.db.QueryRowContext(ctx, q).Scan(&recovering); err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if recovering {
		return nil, fmt.Errorf("%w (pg_is_in_recovery()): promote it, or let it finish recovery, then resume", ErrInRecovery)
	}
	// Up's server-wide lock: an up carries a kept counter on (reads it and
	// drops it) in a transaction a move of that counter must not overlap.
	unlock, err := m.srv.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var mu sync.Mutex
	report := func(r Resumed) {
		if each != nil {
			mu.Lock()
			each(r)
			mu.Unlock()
		}
	}
	if ro.Lead < 0 || ro.Lead > pgfunc.MaxLead {
		return nil, fmt.Errorf("%w: %s (Options.Lead: allowed 0, meaning MaxLead, to %s)", pgfunc.ErrInvalidLead, ro.Lead, pgfunc.MaxLead)
	}
	var schemas []string
	if shards != nil {
		schemas = batch.Schemas(shards)
	}
	refs, err := inventory.Counters(ctx, m.db, schemas)
	if err != nil {
		return nil, err
	}
	for i, r := range refs {
		if !r.Known { // the shard asked for under that schema, if nothing else says
			if j := slices.IndexFunc(shards, func(sh pgfunc.Shard) bool { return sh.Schema == r.Schema }); j >= 0 && r.Meta.Shard < 0 {
				refs[i].Meta.Shard = shards[j].ID
			}
		}
	}
	// Every database's counters are listed before any moves, so that an
	// After no layout can reach refuses the run before anything moved.
	type database struct {
		name string
		db   *sql.DB
		pin  *sql.Conn // held open: see openListed
		refs []inventory.Counter
		err  error
		// cluster, for the Migrator's database on a Citus coordinator:
		// every node's counters (refs lists them too, for the checks
		// below), moved on their nodes.
		cluster *citus.Cluster
	}
	dbs := []database{{db: m.db, refs: refs}}
	cluster, err := citus.Open(ctx, m.db, shards)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if cluster != nil {
		defer cluster.Close()
		dbs = append(dbs, database{cluster: cluster, refs: citusRefs(cluster)})
	}
	defer func() {
		for _, d := range dbs[1:] {
			if d.pin != nil {
				d.pin.Close()
			}
			if d.db != nil {
				d.db.Close()
			}
		}
	}()
	var connect func(context.Context, string) (*sql.DB, error) // nil: OwnDatabaseOnly, or shards named
	if shards == nil {
		if connect, err = m.srv.Connector(ctx); err != nil {
			return nil, err
		}
	}
	if connect != nil {
		err = inventory.EachDatabase(ctx, m.srv.Databases, func(d inventory.Database) error {
			if d.Invalid { // nobody can draw from it again: no counter to move
				return nil
			}
			if d.Closed {
				dbs = append(dbs, database{name: d.Name, err: fmt.Errorf("%w: %s: this role may not connect to it (no CONNECT privilege, or connections not allowed); a generator there keeps its counter (grant CONNECT or allow connections, or resume as a role that may)", ErrDatabaseNotRead, d.Name)})
				return nil
			}
			other, pin, err := inventory.OpenListed(ctx, connect, d.Name, d.OID)
			if errors.Is(err, inventory.ErrGone) {
				return err
			}
			if err != nil {
				dbs = append(dbs, database{name: d.Name, err: fmt.Errorf("%w: %s: %v", ErrDatabaseNotRead, d.Name, err)})
				return nil
			}
			refs, err := inventory.Counters(ctx, other, nil)
			if err != nil {
				pin.Close()
				other.Close()
				dbs = append(dbs, database{name: d.Name, err: fmt.Errorf("%w: %s: %v", ErrDatabaseNotRead, d.Name, err)})
				return nil
			}
			// The pinned connection stays open until the counters moved,
			// so that the database keeps its name meanwhile.
			dbs = append(dbs, database{name: d.Name, db: other, pin: pin, refs: refs})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if !ro.After.IsZero() {
		for _, d := range dbs {
			for _, r := range d.refs {
				if !r.Known || r.Meta.Mode != pgfunc.ModeUnique {
					continue
				}
				if end := r.Meta.LayoutOf().End(); !ro.After.Before(end) {
					where := "schema " + r.Schema
					if d.name != "" {
						where += " of database " + d.name
					}
					return nil, fmt.Errorf("%w: %s is at or past %s, where the layout of %s (shard %d) ends: no counter value lies past it (give the instant the old server's last ID's tick ended, or its last draw plus its lead)",
						ErrAfterLayoutEnd, ro.After.UTC().Format(time.RFC3339Nano), end.Format(time.RFC3339Nano), where, r.Meta.Shard)
				}
			}
		}
	}
	if ro.After.IsZero() && ro.Lead > 0 {
		var top inventory.Counter
		var topDB string
		for _, d := range dbs {
			for _, r := range d.refs {
				if r.Known && r.Meta.Mode == pgfunc.ModeUnique && r.Meta.Lead() > top.Meta.Lead() {
					top, topDB = r, d.name
				}
			}
		}
		if recorded := top.Meta.Lead(); ro.Lead < recorded {
			where := top.Schema
			if topDB != "" {
				where = topDB + "." + where
			}
			if !ro.BelowRecordedLead {
				return nil, fmt.Errorf("%w: a lead of %s is below the %s that %s (shard %d) records: the old server ran that generator %s ahead of its clock, and any other it ran so (pg down, then pg up --lead, changes a lead; a restored backup remembers the leads of its day) hands its IDs out again if moved by less; give the largest lead the old server ran with, or insist (Options.BelowRecordedLead, pg resume --below-recorded-lead)",
					ErrLeadBelowRecorded, ro.Lead, recorded, where, top.Meta.Shard, recorded)
			}
			ro.belowNote = fmt.Sprintf("moved by %s, below the %s %s records (told to: --below-recorded-lead)", ro.Lead, recorded, where)
			ro.recorded = recorded
		}
	}
	var out []Resumed
	for _, d := range dbs {
		if d.err != nil {
			r := Resumed{Database: d.name, From: -1, To: -1, Err: d.err}
			report(r)
			out = append(out, r)
			continue
		}
		if d.cluster != nil {
			out = append(out, m.resumeCluster(ctx, d.cluster, ro, report)...)
			continue
		}
		out = append(out, m.resumeAll(ctx, d.db, d.name, d.refs, ro, report)...)
	}
	if shards != nil {
		have := map[string]bool{}
		for _, r := range refs {
			have[r.Schema] = true
		}
		if cluster != nil {
			for _, n := range cluster.Nodes {
				for _, c := range n.Counters {
					have[c.ShardSchema()] = true
				}
			}
		}
		for _, sh := range shards {
			if !have[sh.Schema] {
				r := Resumed{Schema: sh.Schema, Shard: sh.ID, From: -1, To: -1, Missing: true, Note: "no counter"}
				report(r)
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// resumeAll moves the counters of one database, m.parallel at a time, and
// returns their results in the order of refs.
func (m *run) resumeAll(ctx context.Context, db *sql.DB, database string, refs []inventory.Counter, ro Options, report func(Resumed)) []Resumed {
	return m.moveAll(ctx, db, len(refs), func(i int) (Resumed, inventory.Counter, counter) {
		ref := refs[i]
		r := Resumed{Database: database, Schema: ref.Schema, Shard: ref.Meta.Shard, Meta: ref.Meta, Retired: ref.Retired, Mode: ref.Meta.Mode, From: -1, To: -1}
		return r, ref, serverCounter(ref)
	}, ro, report)
}

// moveAll moves n counters of one database, m.parallel at a time, each
// described by at(i), and returns their results in order.
func (m *run) moveAll(ctx context.Context, db *sql.DB, n int, at func(int) (Resumed, inventory.Counter, counter), ro Options, report func(Resumed)) []Resumed {
	out := make([]Resumed, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(m.parallel, n) {
		wg.Go(func() {
			for i := range next {
				r, ref, c := at(i)
				out[i] = m.resumeOne(ctx, db, r, ref, c, ro)
				report(out[i])
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// resumeOne moves one counter, r as it stands before, in a transaction of
// its own.
func (m *run) resumeOne(ctx context.Context, db *sql.DB, r Resumed, ref inventory.Counter, c counter, ro Options) Resumed {
	fail := func(err error) Resumed {
		r.Err = fmt.Errorf("schema %s: %w", ref.Schema, err)
		r.Note = "" // what the move would have meant
		return r
	}
	switch {
	case ref.Unreadable != "":
		return fail(fmt.Errorf("%w: %s: it looks like a generator's counter and hands out IDs, but nobody can tell how far to move it: %s, then resume again", pgfunc.ErrUnreadableGenerator, ref.Unreadable, c.fix))
	case !ref.Known:
		r.Note = "not moved: a sequence named like a generator's counter, with no generator beside it and no metadata (not shardid's)"
		return r
	case ref.Meta.Mode != pgfunc.ModeUnique:
		r.Note = "not moved: mode " + string(ref.Meta.Mode) + " repeats IDs by design"
		return r
	case !ref.Retired && !ref.HasLock:
		return fail(errors.New("no jump lock table (next_id_jump_lock) beside the counter: not a generator this release can move safely"))
	}
	if err := pgfunc.CheckSchema(ref.Schema); err != nil {
		return fail(err)
	}
	seq := c.seq
	var after any
	own := ref.Meta.Lead()
	lead := ro.Lead
	if lead == 0 {
		lead = pgfunc.MaxLead
	}
	l := ref.Meta.LayoutOf()
	switch {
	case !ro.After.IsZero():
		after, lead = ro.After, 0
	case own == 0:
		r.Note = fmt.Sprintf("no lead recorded (an older shardid, whose counter could run ahead without bound): moved by %s; give the old server's last ID time as --after to be sure", lead)
	case own >= lead:
		lead = own
	}
	r.Lead = lead
	if ro.belowNote != "" && after == nil && lead < ro.recorded {
		r.Note = ro.belowNote
	}
	if after == nil {
		now, err := m.clockNow(ctx, db)
		if err != nil {
			return fail(err)
		}
		if end := l.End(); !now.Add(lead).Before(end) {
			return fail(fmt.Errorf("%w: the clock plus the lead of %s is past %s, where the layout ends: its generator hands out no ID any more (every draw raises \"time field exhausted\"); pg down it, and bring the shard up with a layout of a later epoch", ErrLayoutEnded, lead, end.Format(time.RFC3339Nano)))
		}
		if own > 0 && lead > own && r.Note == "" {
			r.Note = fmt.Sprintf("moved by a lead of %s, the largest the old server may have run with, past this generator's own %s: draws wait, then fail (SQLSTATE %s), until the clock reaches %s; give --lead the largest lead the old server ran with to move less",
				lead, own, pgfunc.LeadExceededState, now.Add(lead-own).UTC().Format(time.RFC3339))
		}
	}
	if ro.DryRun {
		return m.planOne(ctx, db, r, c, after, lead, own, l)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	exec := func(name string, data any, args ...any) (*sql.Row, error) {
		text, err := sqlt.Query(name, data)
		if err != nil {
			return nil, err
		}
		return tx.QueryRowContext(ctx, text, args...), nil
	}
	var begun int64
	if !ref.Retired { // a kept counter: nobody draws from it, and Resume holds off up (lockServer)
		// A jump holds the lock for a moment; one held longer is a
		// transaction that took it (anybody with USAGE on a schema of
		// theirs can make one look like a generator's): wait for it up to
		// the Migrator's lock timeout, then report this counter unmoved
		// and go on with the others.
		text, err := sqlt.Query("resume_lock_timeout", nil)
		if err != nil {
			return fail(err)
		}
		if _, err := tx.ExecContext(ctx, text, fmt.Sprintf("%dms", max(1, m.lockWait.Milliseconds()))); err != nil {
			return fail(err)
		}
		text, err = sqlt.Query(c.lock, sqlt.Ident(ref.Schema))
		if err != nil {
			return fail(err)
		}
		if _, err := tx.ExecContext(ctx, text); err != nil {
			if dialect.ErrorCode(err) == "55P03" { // lock_not_available
				return fail(fmt.Errorf("%w: the jump lock %s stayed held for %s (a transaction holding it: see pg_locks); this counter was not moved, rerun pg resume once it is released", ErrJumpLocked, c.lockOf, m.lockWait))
			}
			return fail(ownerHint(err))
		}
		row, err := exec("resume_begin_jump", nil, c.begun, c.done)
		if err != nil {
			return fail(err)
		}
		if err := row.Scan(&begun); err != nil {
			return fail(ownerHint(err))
		}
	}
	row, err := exec("resume_move", m.opts.Clock(), seq, after, float64(lead.Milliseconds()),
		float64(l.EpochMillis()), float64(l.UnitMillis()), int32(l.SeqBits), c.slot, c.slots)
	if err != nil {
		return fail(err)
	}
	var from, to sql.NullInt64
	var past float64
	if err := row.Scan(&from, &to, &past); err != nil {
		return fail(ownerHint(err))
	}
	r.Past = time.UnixMicro(int64(past * 1000)).UTC()
	if from.Valid {
		r.From = from.Int64
	}
	if to.Valid {
		r.To = to.Int64
	}
	r.Moved = r.To != r.From
	r.Until = until(r.Past, own)
	if !ref.Retired {
		row, err := exec("resume_end_jump", nil, c.done, begun)
		if err != nil {
			return fail(err)
		}
		if err := row.Scan(&begun); err != nil {
			return fail(ownerHint(err))
		}
		if r.Moved {
			// What the lead's error names when draws wait for this move
			// (the hint of SHR10: see shard.sql.tmpl's "leadExceeded").
			note, err := json.Marshal(resumeRecord{Tool: "shardid pg resume", At: time.Now().UTC(), Past: r.Past, Until: r.Until, Lead: r.Lead.String()})
			if err != nil {
				return fail(err)
			}
			text, err := sqlt.Query("resume_record", struct{ Table, Note string }{c.record, sqlt.Literal(string(note))})
			if err != nil {
				return fail(err)
			}
			if _, err := tx.ExecContext(ctx, text); err != nil {
				return fail(ownerHint(err))
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return r
}

// resumeRecord is what a resume that moved a live counter records on its
// jump lock's table, for the hint of the error draws meet while they wait
// for the clock.
type resumeRecord struct {
	Tool  string    `json:"shardid_resume"`
	At    time.Time `json:"at"`
	Past  time.Time `json:"past"`
	Until time.Time `json:"until"`
	Lead  string    `json:"lead"`
}

// until is when draws go on after a counter moved past instant past, for
// a generator whose lead is own: zero when they need not wait (own zero:
// no lead recorded, an older body that never waits).
func until(past time.Time, own time.Duration) time.Time {
	if own <= 0 {
		return time.Time{}
	}
	return past.Add(-own)
}

// planOne is resumeOne in a dry run: where the counter would move, read
// without a lock and without moving it.
func (m *run) planOne(ctx context.Context, db *sql.DB, r Resumed, c counter, after any, lead, own time.Duration, l shardid.Layout) Resumed {
	r.DryRun = true
	text, err := sqlt.Query("resume_plan", m.opts.Clock())
	if err != nil {
		r.Err = err
		return r
	}
	var from, to sql.NullInt64
	var past float64
	if err := db.QueryRowContext(ctx, text, c.seq, after, float64(lead.Milliseconds()),
		float64(l.EpochMillis()), float64(l.UnitMillis()), int32(l.SeqBits), c.slot, c.slots).Scan(&from, &to, &past); err != nil {
		r.Err = fmt.Errorf("schema %s: %w", r.Schema, err)
		r.Note = ""
		return r
	}
	if from.Valid {
		r.From = from.Int64
	}
	if to.Valid {
		r.To = to.Int64
	}
	r.Past = time.UnixMicro(int64(past * 1000)).UTC()
	r.Moved = r.To != r.From
	r.Until = until(r.Past, own)
	r.Note = strings.ReplaceAll(r.Note, "moved by", "would move by")
	return r
}
