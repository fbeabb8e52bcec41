package adopt

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// DefaultAdoptLockTimeout is how long the switch of Run waits
// for the transactions that drew from the old next_id() to end, unless
// Options.LockTimeout says otherwise. While it waits, new draws
// through the old body queue behind it.
const DefaultAdoptLockTimeout = 10 * time.Second

// AdoptKind names the kind of generator Run found.
const (
	// AdoptPublished is a next_id() in Instagram's published PL/pgSQL
	// form (see parsePublished): nextval() % 2^seq beside the clock, its
	// epoch and shard id as constants.
	AdoptPublished = "published"
	// AdoptSerial is a schema without next_id() whose tables' keys are
	// bigserial-like: a single-column bigint primary key whose DEFAULT is
	// nextval() of a sequence. Nothing in it says which layout to use
	// (Options.Layout must); adopting it makes every such key
	// default to the new next_id(), whose first ID lies above every key
	// stored and every value the sequences handed out, and caps the
	// sequences below that ID.
	AdoptSerial = "serial"
)

// Options say how Run reads and replaces generators that
// shardid did not make. The zero value is a dry run that infers
// everything from each schema.
type Options struct {
	// Layout, when not the zero value, is the layout (its epoch included)
	// the caller expects: a schema whose next_id() spells another is
	// refused.
	Layout shardid.Layout
	// Apply replaces each schema's next_id(); false (a dry run) only
	// reports what would be done.
	Apply bool
	// LockTimeout is how long the switch waits for transactions that drew
	// from the old body to end; zero means DefaultAdoptLockTimeout.
	LockTimeout time.Duration

	// clockOnly starts the new counter at the clock alone, not above the
	// stored IDs: the broken adoption of the negative control (tests).
	clockOnly bool
	// keepOld leaves the old body's sequence as it is: the broken switch
	// of the other negative control (tests).
	keepOld bool
}

// AdoptKey is one column whose DEFAULT calls the adopted next_id().
type AdoptKey struct {
	// Table is the table, schema-qualified, each part quoted as needed.
	Table string
	// Column is the key column's name.
	Column string
	// Empty is true when the table has no key yet; Max and Parts are then zero.
	Empty bool
	// Max is the highest key stored.
	Max int64
	// Parts is Max decoded with the inferred layout (AdoptPublished).
	Parts shardid.Parts
	// Sequence is the sequence a bigserial-like key's DEFAULT draws from,
	// and Last its last value (AdoptSerial).
	Sequence string
	Last     int64
}

// Adoption is the outcome of Run for one shard.
type Adoption struct {
	// Result is the shard (the schema and the shard id --shards names for
	// it), whether the generator was replaced (Applied), what was done
	// (Note: "dry run", "adopted", or "current" for a schema whose
	// generator is shardid\'s already), how long it took and its error.
	pgfunc.Result
	// Kind is AdoptPublished or AdoptSerial; "" when nothing was read
	// (Note "current", or an error).
	Kind string
	// Sequence is the sequence the old body draws from (AdoptPublished).
	Sequence string
	// Layout is the layout and epoch the old body's constants spell
	// (AdoptPublished), or Options.Layout (AdoptSerial).
	Layout shardid.Layout
	// Keys are the columns whose DEFAULT calls next_id(), with the
	// highest ID stored in each.
	Keys []AdoptKey
	// Clock is the server's clock when the schema was read.
	Clock time.Time
	// Start is where the new generator's counter starts, in units of
	// (ticks << SeqBits) | seq: past the clock's tick and past the tick
	// of every ID in Keys.
	Start int64
	// FirstID is the first ID the new generator hands out (as of Clock in
	// a dry run).
	FirstID int64
	// Roles are the roles granted drawing from the new generator: those
	// that could draw from the old body's sequence.
	Roles []string
}

// Adopt reads, in each shard's schema, a next_id() that shardid did not
// make (Instagram's published PL/pgSQL body), infers its layout, epoch and
// shard id from the body's constants, and checks them against the IDs
// stored in every column whose DEFAULT calls it (the highest of each must
// decode to that shard id, and not lie past the clock by more than the
// lead) and against the shard id --shards gives the schema. A schema that
// cannot be inferred, or whose parts disagree, is refused with
// ErrCannotInfer naming why.
//
// With Options.Apply it replaces next_id(), in one transaction per
// schema, by shardid's generator in mode unique for the same layout,
// epoch and shard id, rendered as Up renders it (the goose history in the
// schema records its migration; status, resume and grant see it). The
// function keeps its oid, so the DEFAULTs that call it call the new body.
// The counter starts past the clock's tick and past the tick of every
// stored ID. The switch first waits for every transaction that drew from
// the old body to end and holds off new draws (a lock on the old
// sequence), then retires the old sequence (its MAXVALUE lowered to its
// last value): a draw through the old body after the switch fails rather
// than repeating an ID. Roles that could draw from the old sequence get
// what drawing from the new generator needs.
//
// A schema without next_id() whose keys are bigserial-like (AdoptSerial)
// is adopted for Options.Layout, which it requires: the first ID the
// new generator hands out must lie above every key stored and every value
// the keys' sequences handed out, compared as int64 (with a time-based
// layout it does: the time field dominates, and a tick of any recent
// instant since the epoch puts an ID above 2^(shard+seq bits)). The
// switch locks the keys' tables (waiting for transactions writing them),
// points their DEFAULTs at the new next_id(), caps the sequences' MAXVALUE
// below that first ID (an application calling nextval() itself keeps
// working below every new ID) and grants the roles that could draw from
// the sequences. Other columns defaulting to nextval() are left alone.
//
// Adopt makes Up's server-wide checks (shard id held elsewhere, other
// kinds of generator, template database, unread databases, the layout's
// end) for the inferred generator, under Up's server-wide lock when it
// applies.
func Run(ctx context.Context, mig *migrate.Migrator, shards []pgfunc.Shard, ao Options, each func(Adoption)) ([]Adoption, error) {
	srv := mig.Server()
	m := &run{mig: mig, db: srv.DB(), srv: srv, opts: mig.Options()}
	out := m.adopt(ctx, shards, ao, each)
	results := make([]pgfunc.Result, len(out))
	for i, a := range out {
		results[i] = a.Result
	}
	_, err := pgfunc.Partial(results)
	return out, err
}

// run is one Run: the Migrator's server and options.
type run struct {
	mig  *migrate.Migrator
	db   *sql.DB
	srv  *inventory.Server
	opts pgfunc.Options
}

func (m *run) adopt(ctx context.Context, shards []pgfunc.Shard, ao Options, each func(Adoption)) []Adoption {
	if ao.LockTimeout <= 0 {
		ao.LockTimeout = DefaultAdoptLockTimeout
	}
	var srv *inventory.Inventory
	var err error
	if ao.Apply {
		var unlock func()
		if unlock, err = m.srv.Lock(ctx); err == nil {
			defer unlock()
		}
	}
	if err == nil {
		srv, err = m.srv.Read(ctx)
	}
	if err == nil {
		err = srv.Refusal(m.mig.AllowUnreadDatabases())
	}
	var found inventory.Index
	if srv != nil {
		found = srv.Index()
	}
	out := make([]Adoption, 0, len(shards))
	for _, sh := range shards {
		start := time.Now()
		a := Adoption{Result: pgfunc.Result{Shard: sh}}
		if err != nil {
			a.Err = err
		} else {
			a = m.adoptShard(ctx, sh, ao, srv, found)
		}
		if a.Err != nil {
			a.Err = fmt.Errorf("schema %s: %w", sh.Schema, a.Err)
		}
		a.Duration = time.Since(start)
		out = append(out, a)
		if each != nil {
			each(a)
		}
	}
	return out
}

// adoptShard infers sh's generator and, with ao.Apply, replaces it.
func (m *run) adoptShard(ctx context.Context, sh pgfunc.Shard, ao Options, srv *inventory.Inventory, found inventory.Index) Adoption {
	a := Adoption{Result: pgfunc.Result{Shard: sh}}
	if in, ok := found.Generator(sh.Schema); ok {
		if in.Meta.Shard != sh.ID {
			a.Err = fmt.Errorf("%w: %s holds shardid's generator of shard %d, not %d", pgfunc.ErrGeneratorMismatch, sh.Schema, in.Meta.Shard, sh.ID)
			return a
		}
		a.Note, a.Layout = "current", in.Meta.LayoutOf()
		return a
	}
	a, _, o, err := m.inspect(ctx, m.db, sh, ao)
	if err == nil {
		err = m.adoptChecks(sh, o, srv, found, a.Clock)
	}
	if err != nil {
		a.Err = err
		return a
	}
	if !ao.Apply {
		a.Note = "dry run"
		return a
	}
	applied, err := m.switchGenerator(ctx, sh, ao, a)
	if err != nil {
		a.Err = err
		return a
	}
	applied.Applied, applied.Note = true, "adopted"
	return applied
}

// adoptChecks are Up's checks for the generator o renders in sh.
func (m *run) adoptChecks(sh pgfunc.Shard, o pgfunc.Options, srv *inventory.Inventory, found inventory.Index, now time.Time) error {
	if err := pgfunc.CheckEnd(o.Normalized().Layout, m.mig.EndMargin(), now); err != nil {
		return err
	}
	if err := found.Check(sh, o); err != nil {
		return err
	}
	want, err := pgfunc.MetaFor(sh, o)
	if err != nil {
		return err
	}
	if err := srv.CheckMixed(sh, want, m.mig.AllowMixed(), MixedHint); err != nil {
		return err
	}
	kept, err := migrate.KeptCounters(sh, want, srv)
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		return fmt.Errorf("%w: %s kept a counter of shard %d (pg down): adopt does not carry it on; drop it once none of its IDs is in use, or pg up the shard elsewhere",
			pgfunc.ErrGeneratorMismatch, kept[0].Where(), sh.ID)
	}
	return nil
}

// MixedHint is what adopt's refusal of another kind of generator on the
// server (ErrMixedGenerators) says the user may do: adopt takes no
// --allow-mixed.
const MixedHint = "pg adopt replaces a generator only by one of the kind already on the server, and takes no --allow-mixed: adopt with that layout and epoch (--layout, --epoch), or give the shard a generator with pg up --allow-mixed, which applies it when it can show their IDs never meet"

// querier is a pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// adoptNames are the functions shardid's generator of shard id creates
// beside next_id(): adopt refuses a schema that holds one already.
func adoptNames(id int64) []string {
	return []string{"next_id_bulk", "next_ids", "id_timestamp", "id_shard", "id_seq", "min_id", sqlt.JumpName(id), sqlt.ReserveName(id)}
}

// inspect reads sh's next_id() and the keys that default to it, and
// infers the generator: the Adoption (Note and Applied unset), the body,
// and the Options that render its replacement.
func (m *run) inspect(ctx context.Context, q querier, sh pgfunc.Shard, ao Options) (Adoption, publishedBody, pgfunc.Options, error) {
	a := Adoption{Result: pgfunc.Result{Shard: sh}}
	fail := func(err error) (Adoption, publishedBody, pgfunc.Options, error) {
		return a, publishedBody{}, pgfunc.Options{}, err
	}
	sqlText, err := templates.Query("adopt_function", nil)
	if err != nil {
		return fail(err)
	}
	var oid int64
	var src, lang string
	var bigint bool
	switch err := q.QueryRowContext(ctx, sqlText, sh.Schema).Scan(&oid, &src, &lang, &bigint); {
	case errors.Is(err, sql.ErrNoRows):
		return m.inspectSerial(ctx, q, sh, ao)
	case err != nil:
		return fail(fmt.Errorf("read next_id(): %w", err))
	case lang != "plpgsql" || !bigint:
		return fail(fmt.Errorf("%w: %s.next_id() is a %s function %s: want Instagram's published PL/pgSQL body returning one bigint",
			ErrCannotInfer, sh.Schema, lang, map[bool]string{true: "returning one bigint", false: "not returning one bigint"}[bigint]))
	}
	body, err := parsePublished(src)
	if err != nil {
		return fail(err)
	}
	l, err := body.layout()
	if err != nil {
		return fail(err)
	}
	a.Kind, a.Layout, a.Sequence = AdoptPublished, l, body.Sequence
	if ao.Layout != (shardid.Layout{}) && !sameLayout(ao.Layout, l) {
		return fail(fmt.Errorf("%w: %s.next_id()'s constants spell layout %s with epoch %s; requested %s with epoch %s",
			ErrCannotInfer, sh.Schema, l, l.Epoch.Format(time.RFC3339Nano), ao.Layout, ao.Layout.Epoch.UTC().Format(time.RFC3339Nano)))
	}
	if body.Shard != sh.ID {
		return fail(fmt.Errorf("%w: %s.next_id() stamps shard id %d, but --shards and the schema format make %s shard %d",
			ErrCannotInfer, sh.Schema, body.Shard, sh.Schema, sh.ID))
	}
	if sqlText, err = templates.Query("adopt_sequence", nil); err != nil {
		return fail(err)
	}
	var seqSchema, seqName string
	var cache int64
	var qualified bool
	switch err := q.QueryRowContext(ctx, sqlText, body.Sequence).Scan(&seqSchema, &seqName, &cache, &qualified); {
	case errors.Is(err, sql.ErrNoRows):
		return fail(fmt.Errorf("%w: %s.next_id() draws from %s, which is not a sequence of this database", ErrCannotInfer, sh.Schema, sqlt.Literal(body.Sequence)))
	case err != nil:
		return fail(fmt.Errorf("%w: %s.next_id() draws from %s: %v", ErrCannotInfer, sh.Schema, sqlt.Literal(body.Sequence), err))
	case !qualified:
		return fail(fmt.Errorf("%w: %s.next_id() names its sequence %s without a schema: which sequence it draws from depends on the caller's search_path", ErrCannotInfer, sh.Schema, sqlt.Literal(body.Sequence)))
	case seqSchema != sh.Schema:
		return fail(fmt.Errorf("%w: %s.next_id() draws from %s.%s, outside its schema: another shard may draw from it too, and adopt retires it", ErrCannotInfer, sh.Schema, seqSchema, seqName))
	case seqName == "next_id_seq":
		return fail(fmt.Errorf("%w: %s.next_id() draws from %s.next_id_seq, the name shardid's counter takes: rename the sequence and the name in the body first", ErrCannotInfer, sh.Schema, sh.Schema))
	case cache != 1:
		return fail(fmt.Errorf("%w: %s.%s has CACHE %d: sessions may hold values the switch cannot stop; ALTER SEQUENCE ... CACHE 1 and reconnect the application first", ErrCannotInfer, seqSchema, seqName, cache))
	}
	a.Sequence = sqlt.Ident(seqSchema) + "." + sqlt.Ident(seqName)
	if taken, err := adoptTaken(ctx, q, sh); err != nil {
		return fail(err)
	} else if len(taken) > 0 {
		return fail(fmt.Errorf("%w: schema %s holds %s, a name shardid's generator takes: adopt replaces only next_id()", ErrCannotInfer, sh.Schema, strings.Join(taken, ", ")))
	}
	o := m.opts
	o.Layout, o.Mode = l, pgfunc.ModeUnique
	o = o.Checked()
	if a.Keys, err = adoptKeys(ctx, q, oid, l); err != nil {
		return fail(err)
	}
	if a.Clock, err = serverClock(ctx, q, o.Clock()); err != nil {
		return fail(err)
	}
	nowTicks, err := l.Ticks(a.Clock)
	if err != nil {
		return fail(fmt.Errorf("%w: the server's clock %s: %v", ErrCannotInfer, a.Clock.Format(time.RFC3339Nano), err))
	}
	a.Start = (nowTicks + 1) << l.SeqBits
	for _, k := range a.Keys {
		switch {
		case k.Empty:
		case k.Parts.Shard != sh.ID:
			return fail(fmt.Errorf("%w: the highest key of %s.%s, %d, decodes to shard %d, but next_id() stamps %d: the layout or the shard id differs from what made it",
				ErrCannotInfer, k.Table, k.Column, k.Max, k.Parts.Shard, sh.ID))
		case k.Parts.Time.After(a.Clock.Add(o.Lead)):
			return fail(fmt.Errorf("%w: the highest key of %s.%s, %d, decodes to %s, %s past the server's clock: further than the lead (%s); the epoch or the layout differs from what made it, or the clock stepped back (adopt once the clock has passed it)",
				ErrCannotInfer, k.Table, k.Column, k.Max, k.Parts.Time.Format(time.RFC3339Nano), k.Parts.Time.Sub(a.Clock).Round(time.Millisecond), o.Lead))
		case !ao.clockOnly:
			a.Start = max(a.Start, (k.Parts.Ticks+1)<<l.SeqBits)
		}
	}
	a.FirstID, err = l.ComposeTicks(a.Start>>l.SeqBits, sh.ID, a.Start&l.MaxSeq())
	if err != nil {
		return fail(fmt.Errorf("%w: the new counter would start past the layout's end: %v", ErrCannotInfer, err))
	}
	return a, body, o, nil
}

// sameLayout reports whether two layouts make the same IDs (names aside;
// time bits above the sign, which no ID uses, aside).
func sameLayout(a, b shardid.Layout) bool {
	a.Name, b.Name = "", ""
	return a.TimeUnit == b.TimeUnit && a.UsableTimeBits() == b.UsableTimeBits() && a.ShardBits == b.ShardBits && a.SeqBits == b.SeqBits &&
		a.RouteBits == b.RouteBits && a.EpochMillis() == b.EpochMillis()
}

// adoptTaken lists the names of shardid's generator that sh's schema
// already holds.
func adoptTaken(ctx context.Context, q querier, sh pgfunc.Shard) ([]string, error) {
	out, err := texts(ctx, q, "adopt_names", sh.Schema, adoptNames(sh.ID))
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", sh.Schema, err)
	}
	return out, nil
}

// texts runs the named query, which returns one text column.
func texts(ctx context.Context, q querier, name string, args ...any) ([]string, error) {
	sqlText, err := templates.Query(name, nil)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// highestKey is the highest value of column in table (both quoted); false
// when the table is empty.
func highestKey(ctx context.Context, q querier, table, column string) (int64, bool, error) {
	sqlText, err := templates.Query("adopt_max", struct{ Table, Column string }{table, column})
	if err != nil {
		return 0, false, err
	}
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, sqlText).Scan(&v); err != nil {
		return 0, false, fmt.Errorf("highest key of %s.%s: %w", table, column, err)
	}
	return v.Int64, v.Valid, nil
}

// adoptKeys lists the columns whose DEFAULT calls function oid, with the
// highest key of each, decoded with l.
func adoptKeys(ctx context.Context, q querier, oid int64, l shardid.Layout) ([]AdoptKey, error) {
	sqlText, err := templates.Query("adopt_keys", nil)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, sqlText, oid)
	if err != nil {
		return nil, fmt.Errorf("read the keys defaulting to next_id(): %w", err)
	}
	type col struct {
		schema, table, column string
		bigint                bool
	}
	var cols []col
	for rows.Next() {
		var c col
		if err := rows.Scan(&c.schema, &c.table, &c.column, &c.bigint); err != nil {
			rows.Close()
			return nil, err
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []AdoptKey
	for _, c := range cols {
		table := sqlt.Ident(c.schema) + "." + sqlt.Ident(c.table)
		if !c.bigint {
			return nil, fmt.Errorf("%w: %s.%s defaults to next_id() but is not a bigint", ErrCannotInfer, table, sqlt.Ident(c.column))
		}
		k := AdoptKey{Table: table, Column: c.column}
		v, ok, err := highestKey(ctx, q, table, sqlt.Ident(c.column))
		if err != nil {
			return nil, err
		}
		if k.Empty, k.Max = !ok, v; ok {
			if k.Parts, err = l.Decompose(v); err != nil {
				return nil, fmt.Errorf("%w: the highest key of %s.%s: %v", ErrCannotInfer, table, sqlt.Ident(c.column), err)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

// serverClock reads the clock the generator reads (clock, an expression).
func serverClock(ctx context.Context, q querier, clock string) (time.Time, error) {
	sqlText, err := templates.Query("adopt_clock", clock)
	if err != nil {
		return time.Time{}, err
	}
	var t time.Time
	if err := q.QueryRowContext(ctx, sqlText).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("read the server's clock: %w", err)
	}
	return t.UTC(), nil
}
