package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	dsnpkg "github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/segment"
)

// PGSchema holds RunPG's own objects; RunPG also creates a schema per
// next_id() mode beside it, each applied by pgfunc.Migrator as `shardid pg
// up` would (PGSchemas lists them all).
const PGSchema = "shardid_bench"

// pgModes are the next_id() modes measured, each in a schema of its own.
var pgModes = []struct {
	mode   pgfunc.Mode
	schema string
}{
	{pgfunc.ModeUnique, PGSchema + "_unique"},
	{pgfunc.ModeClassic, PGSchema + "_classic"},
	{pgfunc.ModeClassicSQL, PGSchema + "_classic_sql"},
}

// PGSchemas lists the schemas RunPG creates and drops.
func PGSchemas() []string {
	s := []string{PGSchema}
	for _, m := range pgModes {
		s = append(s, m.schema)
	}
	return s
}

// PGReport is what RunPG measured.
type PGReport struct {
	Run
	// Insert holds the single-row INSERT phases, each protocol with
	// synchronous_commit off, then on; each phase's keys bigserial first.
	Insert []PGPhase `json:"insert"`
	// Planning is the time to plan a single-row INSERT into each key's
	// table, bigserial first.
	Planning []PlanRow `json:"planning"`
	// CPU says where the server's CPU time per row was read from, or why
	// it was not.
	CPU CPUSource `json:"cpu"`
	// Cost is the server-side cost of one ID per body, nextval() first.
	Cost []CostRow `json:"cost"`
	// IDs compares ways for a client to get IDs, nextval() first.
	IDs []IDRow `json:"ids"`
}

// Protocols of a PGPhase.
const (
	// ProtocolSimple sends each statement as text, with its values in it
	// (the simple query protocol, as psql, psycopg2 and many ORMs do):
	// the server parses and plans every one.
	ProtocolSimple = "simple"
	// ProtocolPrepared prepares each statement once per connection and
	// executes it with bound values: the server plans it once, or once per
	// execution while its plan is custom, without parsing it again.
	ProtocolPrepared = "prepared"
)

// PGPhase is one way of running single-row INSERTs, each its own
// transaction, measured for every key.
type PGPhase struct {
	// Name says how: "single-row, simple protocol, synchronous_commit off".
	Name string `json:"name"`
	// Protocol is ProtocolSimple or ProtocolPrepared.
	Protocol string `json:"protocol"`
	// SynchronousCommit is "on" or "off".
	SynchronousCommit string `json:"synchronous_commit"`
	// Keys holds one row per table, bigserial first.
	Keys []PGInsertRow `json:"keys"`
}

// PGInsertRow is one table's figures in one phase.
type PGInsertRow struct {
	// Key names the table's key: "bigserial", "unique", "unique-bulk",
	// "peer:NAME", ….
	Key string `json:"key"`
	// RowsPerSecond counts the rows of all clients together.
	RowsPerSecond Stat `json:"rows_per_second"`
	// VsBase is RowsPerSecond as a multiple of bigserial's in the same
	// round.
	VsBase Stat `json:"x_base"`
	// CPUPerRow is the CPU time of the clients' server processes per row,
	// in ns, and CPUVsBase that as a multiple of bigserial's in the same
	// round; nil when it could not be read (see PGReport.CPU).
	CPUPerRow *Stat `json:"cpu_ns_per_row,omitempty"`
	CPUVsBase *Stat `json:"cpu_x_base,omitempty"`
	// SlowPath is the share of rows whose draw took the generator's slow
	// path: the jumps its jump counters counted over the rows; nil for
	// keys without jump counters.
	SlowPath *Stat `json:"slow_path_share,omitempty"`
	// DuplicateKeys is the number of statements the server refused for a
	// duplicate key, over all rounds (each counted as done).
	DuplicateKeys int64 `json:"duplicate_keys"`
	// MustBeUnique is set for keys whose generator may never repeat (a
	// peer's is the user's to judge: never set).
	MustBeUnique bool `json:"must_be_unique"`
}

// PlanRow is the time to plan a single-row INSERT into one key's table:
// EXPLAIN (SUMMARY ON)'s planning time, in each round the mean of the
// middle half of PlanRuns plans.
type PlanRow struct {
	// Key names the table's key, as in PGInsertRow.
	Key string `json:"key"`
	// Micros is the planning time in µs.
	Micros Stat `json:"us"`
	// VsBase is Micros as a multiple of bigserial's in the same round.
	VsBase Stat `json:"x_base"`
}

// PlanRuns is how many times a round plans each table's single-row INSERT.
const PlanRuns = 100

// CostRow is one body's cost per ID inside the server.
type CostRow struct {
	// Body names it: "nextval", "unique" (next_id()), "unique-bulk"
	// (next_id_bulk()), "unique-ids" (next_ids(n)), "classic",
	// "classic-sql", "published", "uuid-v4", "uuid-v7", "peer:NAME".
	Body string `json:"body"`
	// Expr is the SQL measured: an expression, or for unique-ids the
	// statement.
	Expr string `json:"expression"`
	// NsPerID is the statement's time divided by Settings.Calls.
	NsPerID Stat `json:"ns_per_id"`
	// VsNextval is NsPerID as a multiple of nextval()'s in the same round.
	VsNextval Stat `json:"x_nextval"`
	// Duplicates is, summed over the rounds, how many of Settings.Calls
	// IDs made by one statement repeated an earlier one.
	Duplicates int64 `json:"duplicates"`
	// MustBeUnique is set for every body but the classic modes and the
	// published one, whose repeats are their documented limit, and the
	// peers, whose repeats are the user's to judge.
	MustBeUnique bool `json:"must_be_unique"`
}

// pgBody is one expression measured for cost and duplicates, with its
// statements rendered.
type pgBody struct {
	name             string
	unique           bool
	expr, cost, dups string
}

// newBody renders the expression of template tmpl and the statements that
// measure it.
func newBody(name, tmpl string, data any, unique bool) (pgBody, error) {
	b := pgBody{name: name, unique: unique}
	var err error
	if b.expr, err = render(tmpl, data); err != nil {
		return b, err
	}
	if b.cost, err = render("cost", b.expr); err != nil {
		return b, err
	}
	b.dups, err = render("duplicates", b.expr)
	return b, err
}

// idsChunk is how many IDs the next_ids() body reserves at once.
const idsChunk = 100_000

// newIDsBody renders the statements that measure next_ids() in schema.
func newIDsBody(schema string) (pgBody, error) {
	b := pgBody{name: "unique-ids", unique: true}
	data := struct {
		Schema string
		Chunk  int
	}{schema, idsChunk}
	var err error
	if b.cost, err = render("cost_ids", data); err != nil {
		return b, err
	}
	b.expr = b.cost
	b.dups, err = render("duplicates_ids", data)
	return b, err
}

// pgExpr is the data of the expr_* templates: quoted schemas and the
// native sequence's name as a literal.
type pgExpr struct{ Base, Schema, Seq string }

// pgKey is one INSERT table and what measuring it needs.
type pgKey struct {
	name    string
	unique  bool
	table   string // quoted schema.table
	row     string // the single-row INSERT, $1 its value
	explain string // EXPLAIN (SUMMARY ON) of the single-row INSERT
	jumps   string // the jumps-done counter of its generator ("": none)
}

// newKey renders the statements of table schema.name.
func newKey(key, schema, table string, unique bool) (pgKey, error) {
	k := pgKey{name: key, unique: unique, table: pgx.Identifier{schema, table}.Sanitize()}
	var err error
	if k.row, err = render("insert_row", k.table); err != nil {
		return k, err
	}
	k.explain, err = render("explain_row", k.table)
	return k, err
}

// seqLiteral is the native sequence's name as a regclass literal.
func seqLiteral() string {
	return "'" + strings.ReplaceAll(pgx.Identifier{PGSchema, "seq"}.Sanitize(), "'", "''") + "'"
}

// RunPG measures on the PostgreSQL server dsn points at (pgx URL or
// key=value words) and returns the report. It returns ErrInvalidSettings
// (a peer's expression the server cannot take as one column included),
// ErrExists (a schema of PGSchemas is there already), ErrDuplicates (with
// the complete report), or the server's error; the schemas it created are
// dropped in every case.
func RunPG(ctx context.Context, dsn string, s Settings) (*PGReport, error) {
	s, err := s.normalize()
	if err != nil {
		return nil, err
	}
	if err := checkPeers(s.Peers); err != nil {
		return nil, err
	}
	cfg, err := dsnpkg.PGConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("dsn: %w", err)
	}
	db, ctr := openPG(cfg)
	defer db.Close()
	db.SetMaxIdleConns(2*s.Clients + 4)
	rep := &PGReport{Run: Run{Settings: s, Machine: machine(), Started: time.Now()}}
	if err := queryRow(ctx, db, "version", nil, &rep.Server); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	conns := make([]*pgx.Conn, s.Clients)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close(context.WithoutCancel(ctx))
			}
		}
	}()
	for i := range conns {
		if conns[i], err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return nil, fmt.Errorf("connect: %w", err)
		}
	}
	peers, err := describePeers(ctx, conns[0], s.Peers)
	if err != nil {
		return nil, err
	}
	created, err := createPGSchemas(ctx, db)
	defer dropPGSchemas(ctx, db, created)
	if err != nil {
		return nil, err
	}
	bodies, keys, err := setupPG(ctx, db, peers)
	if err != nil {
		return nil, err
	}
	if s.afterSetup != nil {
		if err := s.afterSetup(ctx); err != nil {
			return nil, err
		}
	}
	methods, err := pgMethods(ctx, db, s, bodies)
	if err != nil {
		return nil, err
	}
	cost, err := db.Conn(ctx) // every body runs in the same backend
	if err != nil {
		return nil, err
	}
	defer cost.Close()
	cpu, source := readCPU(ctx, conns, s.proc)
	rep.CPU = source

	phases := pgPhases()
	p := &progress{s: s, total: s.Rounds * (2*len(bodies) + len(keys) + len(phases)*len(keys) + len(methods))}
	var samples Samples
	dups := map[string]int64{}
	if err := warmPG(ctx, cost, bodies, conns, keys); err != nil {
		return nil, err
	}
	for p.round = 1; p.round <= s.Rounds; p.round++ {
		if err := costRound(ctx, p, cost, bodies, &samples, dups); err != nil {
			return nil, cause(ctx, err)
		}
		if err := planRound(ctx, p, cost, keys, &samples); err != nil {
			return nil, cause(ctx, err)
		}
		for _, ph := range phases {
			if err := pgInsertRound(ctx, p, db, conns, cpu, ph, keys, &samples, dups); err != nil {
				return nil, cause(ctx, err)
			}
		}
		if err := idRound(ctx, p, methods, ctr, &samples, dups); err != nil {
			return nil, cause(ctx, err)
		}
	}
	for _, b := range bodies {
		rep.Cost = append(rep.Cost, CostRow{Body: b.name, Expr: b.expr, NsPerID: statOf(&samples, "cost/"+b.name),
			VsNextval: statOf(&samples, "costx/"+b.name), Duplicates: dups["cost/"+b.name], MustBeUnique: b.unique})
	}
	for _, k := range keys {
		rep.Planning = append(rep.Planning, PlanRow{Key: k.name, Micros: statOf(&samples, "plan/"+k.name), VsBase: statOf(&samples, "planx/"+k.name)})
	}
	for _, ph := range phases {
		for _, k := range keys {
			ph.Keys = append(ph.Keys, pgInsertRowOf(&samples, dups, ph.Name, k, cpu != nil))
		}
		rep.Insert = append(rep.Insert, ph)
	}
	rep.IDs = idRows(methods, &samples, dups)
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Machine.LoadEnd = loadAvg()
	var bad []string
	for _, c := range rep.Cost {
		if c.MustBeUnique && c.Duplicates > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d repeated IDs among %d from one statement", c.Body, c.Duplicates, s.Calls*s.Rounds))
		}
	}
	for _, ph := range rep.Insert {
		for _, k := range ph.Keys {
			if k.MustBeUnique && k.DuplicateKeys > 0 {
				bad = append(bad, fmt.Sprintf("INSERT into %s (%s): %d statements refused for a duplicate key", k.Key, ph.Name, k.DuplicateKeys))
			}
		}
	}
	return rep, duplicatesError(append(bad, repeats(nil, rep.IDs)...))
}

// pgPhases are the INSERT phases, in the order every round runs them: the
// two protocols with synchronous_commit off (the generator's own cost),
// then on (what a durable commit adds).
func pgPhases() []PGPhase {
	var out []PGPhase
	for _, sync := range []string{"off", "on"} {
		for _, protocol := range []string{ProtocolSimple, ProtocolPrepared} {
			out = append(out, PGPhase{Name: fmt.Sprintf("single-row, %s protocol, synchronous_commit %s", protocol, sync), Protocol: protocol, SynchronousCommit: sync})
		}
	}
	return out
}

// createPGSchemas creates PGSchemas with plain CREATE SCHEMA and returns
// those it created. When some exist already it goes on to the end, so
// that the error (ErrExists) names every one and gives one statement
// that drops them all; it stops at any other failure.
func createPGSchemas(ctx context.Context, db *sql.DB) ([]string, error) {
	var created, existing []string
	for _, name := range PGSchemas() {
		if err := exec(ctx, db, "create_schema", pgx.Identifier{name}.Sanitize()); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42P06" { // duplicate_schema
				existing = append(existing, name)
				continue
			}
			return created, fmt.Errorf("create schema %s: %w", name, err)
		}
		created = append(created, name)
	}
	if len(existing) > 0 {
		them := strings.Join(existing, ", ")
		return created, fmt.Errorf("%w: schemas %s; shardid bench works only in schemas it creates and drops; if an interrupted run left them, drop them all (DROP SCHEMA %s CASCADE)", ErrExists, them, them)
	}
	return created, nil
}

// dropPGSchemas drops the schemas the run created, even when ctx is
// cancelled.
func dropPGSchemas(ctx context.Context, db *sql.DB, created []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for i := len(created) - 1; i >= 0; i-- {
		_ = exec(ctx, db, "drop_schema", pgx.Identifier{created[i]}.Sanitize())
	}
}

// setupPG creates the bench's tables and functions, applies a generator
// per mode with pgfunc.Migrator, on the highest shard ids no generator in
// the database holds, and the peers' tables, and returns what to measure,
// the baselines first.
func setupPG(ctx context.Context, db *sql.DB, peers []peerTable) ([]pgBody, []pgKey, error) {
	base := pgx.Identifier{PGSchema}.Sanitize()
	if err := exec(ctx, db, "base", pgExpr{Base: base}); err != nil {
		return nil, nil, fmt.Errorf("create the bench's tables: %w", err)
	}
	ids, err := freeShards(ctx, db, len(pgModes))
	if err != nil {
		return nil, nil, err
	}
	for i, m := range pgModes {
		sh := pgfunc.Shard{Schema: m.schema, ID: ids[i]}
		// Three modes of one layout on distinct shard ids: their IDs never
		// meet, which AllowMixed has Up show before it applies each. The
		// bench's generators feed its own tables only and are dropped at
		// its end: no ID of theirs leaves this database, so its database
		// is all they need to look after.
		mig, err := pgfunc.NewMigrator(db, pgfunc.Options{Mode: m.mode}, pgfunc.MigrateOptions{Parallel: 1, AllowMixed: true, OwnDatabaseOnly: true})
		if err != nil {
			return nil, nil, err
		}
		if r := mig.Up(ctx, []pgfunc.Shard{sh}, nil); r[0].Err != nil {
			return nil, nil, fmt.Errorf("apply next_id() %s to %s: %w", m.mode, m.schema, r[0].Err)
		}
		q := pgx.Identifier{m.schema}.Sanitize()
		if err := exec(ctx, db, "mode_table", q); err != nil {
			return nil, nil, fmt.Errorf("create %s.k: %w", m.schema, err)
		}
		if m.mode == pgfunc.ModeUnique {
			if err := exec(ctx, db, "bulk_table", q); err != nil {
				return nil, nil, fmt.Errorf("create %s.k_bulk: %w", m.schema, err)
			}
		}
		if m.mode == pgfunc.ModeClassic {
			// Instagram's body draws from the classic generator's sequence.
			text, err := pgfunc.RenderPublished(sh, pgfunc.Options{Mode: m.mode})
			if err != nil {
				return nil, nil, err
			}
			if _, err := db.ExecContext(ctx, string(text)); err != nil {
				return nil, nil, fmt.Errorf("create %s.next_id_published(): %w", m.schema, err)
			}
		}
	}
	mode := func(i int) pgExpr { return pgExpr{Schema: pgx.Identifier{pgModes[i].schema}.Sanitize()} }
	var bodies []pgBody
	for _, b := range []struct {
		name, tmpl string
		data       any
		unique     bool
	}{
		{"nextval", "expr_nextval", pgExpr{Seq: seqLiteral()}, true},
		{"unique", "expr_next_id", mode(0), true},
		{"unique-bulk", "expr_next_id_bulk", mode(0), true},
		{"classic", "expr_next_id", mode(1), false},
		{"classic-sql", "expr_next_id", mode(2), false},
		{"published", "expr_published", mode(1), false},
		{"uuid-v4", "expr_uuid_v4", pgExpr{}, true},
		{"uuid-v7", "expr_uuid_v7", pgExpr{Base: base}, true},
	} {
		body, err := newBody(b.name, b.tmpl, b.data, b.unique)
		if err != nil {
			return nil, nil, err
		}
		bodies = append(bodies, body)
		if b.name == "unique-bulk" {
			ids, err := newIDsBody(mode(0).Schema)
			if err != nil {
				return nil, nil, err
			}
			bodies = append(bodies, ids)
		}
	}
	var keys []pgKey
	for _, k := range []struct {
		name, schema, table string
		unique              bool
	}{
		{"bigserial", PGSchema, "k_bigserial", true},
		{"unique", pgModes[0].schema, "k", true},
		{"unique-bulk", pgModes[0].schema, "k_bulk", true},
		{"classic", pgModes[1].schema, "k", false},
		{"classic-sql", pgModes[2].schema, "k", false},
		{"uuid-v4", PGSchema, "k_uuid_v4", true},
		{"uuid-v7", PGSchema, "k_uuid_v7", true},
	} {
		key, err := newKey(k.name, k.schema, k.table, k.unique)
		if err != nil {
			return nil, nil, err
		}
		if k.schema == pgModes[0].schema {
			key.jumps = pgx.Identifier{k.schema, "next_id_jumps_done"}.Sanitize()
		}
		keys = append(keys, key)
	}
	for i, pt := range peers {
		pt.Base, pt.Table = base, fmt.Sprintf("k_peer_%d", i+1)
		if err := exec(ctx, db, "peer_table", pt); err != nil {
			return nil, nil, fmt.Errorf("--peer %s: a table keyed by %s %s: %w", pt.peer.Name, pt.Type, pt.peer.Expr, err)
		}
		key, err := newKey(peerKey(pt.peer), PGSchema, pt.Table, false)
		if err != nil {
			return nil, nil, err
		}
		if key.jumps, err = peerJumps(ctx, db, pt.peer); err != nil {
			return nil, nil, err
		}
		keys = append(keys, key)
		body, err := newBody(peerKey(pt.peer), "expr_peer", pt.peer.Expr, false)
		if err != nil {
			return nil, nil, err
		}
		bodies = append(bodies, body)
	}
	return bodies, keys, nil
}

// freeShards returns the n highest shard ids of the default layout that no
// generator in the database holds (nor a counter a down kept), so
// pgfunc.Migrator accepts them.
func freeShards(ctx context.Context, db *sql.DB, n int) ([]int64, error) {
	m, err := pgfunc.NewMigrator(db, pgfunc.Options{}, pgfunc.MigrateOptions{Parallel: 1, OwnDatabaseOnly: true})
	if err != nil {
		return nil, err
	}
	c, err := m.Census(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the generators in the database: %w", err)
	}
	used := map[int64]bool{}
	for _, in := range append(c.Generators, c.Retired...) {
		used[in.Meta.Shard] = true
	}
	var ids []int64
	for id := shardid.Instagram().MaxShard(); id >= 0 && len(ids) < n; id-- {
		if !used[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) < n {
		return nil, fmt.Errorf("every shard id of the %s layout is held by a generator in this database", shardid.Instagram().Name)
	}
	return ids, nil
}

// pgMethods sets up the segment allocation table and the lease table in
// the bench's schema and returns the ways a client gets IDs: nextval()
// first, then next_id() in mode unique (bodies[0] and [1]), segments and
// leased generators.
func pgMethods(ctx context.Context, db *sql.DB, s Settings, bodies []pgBody) ([]Method, error) {
	segTable, leaseTable := PGSchema+".segments", PGSchema+".worker_lease"
	if err := SegmentTag(ctx, db, dialect.Postgres, segTable, "bench"); err != nil {
		return nil, fmt.Errorf("segment allocation table: %w", err)
	}
	if _, err := lease.Up(ctx, db, dialect.Postgres, leaseTable); err != nil {
		return nil, fmt.Errorf("lease table: %w", err)
	}
	nextval, err := render("draw", bodies[0].expr)
	if err != nil {
		return nil, err
	}
	nextID, err := render("draw", bodies[1].expr)
	if err != nil {
		return nil, err
	}
	return []Method{
		{Name: "nextval", IDs: s.IDs, New: QueryID(db, nextval)},
		{Name: "next_id", IDs: s.IDs, New: QueryID(db, nextID)},
		// The bench's IDs are thrown away, so a server that may lose
		// acknowledged commits (synchronous_commit = off) is no reason to
		// refuse them.
		{Name: "segments", IDs: s.IDs * InMemoryFactor, New: SegmentDraws(db, segment.Settings{
			Tag: "bench", Table: segTable, Dialect: dialect.Postgres, AllowLossyCommit: true})},
		{Name: "leased", IDs: s.IDs * InMemoryFactor, New: LeasedDraws(db, lease.Settings{
			Table: leaseTable, Dialect: dialect.Postgres}, "shardid-bench")},
	}, nil
}

// warmPG runs every statement once, untimed, so plans and pgx's statement
// caches are ready before the first round.
func warmPG(ctx context.Context, cost *sql.Conn, bodies []pgBody, conns []*pgx.Conn, keys []pgKey) error {
	for _, b := range bodies {
		var n int64
		if err := cost.QueryRowContext(ctx, b.cost, 1000).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
	}
	for _, k := range keys {
		if _, err := planTime(ctx, cost, k); err != nil {
			return fmt.Errorf("plan INSERT into %s: %w", k.name, err)
		}
		for _, c := range conns {
			for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
				if _, err := c.Exec(ctx, k.row, mode, int32(0)); err != nil && !isPGDup(err) {
					return fmt.Errorf("INSERT into %s: %w", k.name, err)
				}
			}
		}
	}
	return nil
}

// costRound times every body's cost statement once, then counts every
// body's duplicates once (each in rotated order), and adds to s
// "cost/<body>" (ns per ID) and "costx/<body>" (against nextval(), the
// first body); duplicates go to dups["cost/<body>"].
func costRound(ctx context.Context, p *progress, conn *sql.Conn, bodies []pgBody, s *Samples, dups map[string]int64) error {
	calls := p.s.Calls
	ns := map[string]float64{}
	for _, b := range rotated(bodies, p.round) {
		p.next("server-side cost of " + b.name)
		var n int64
		start := time.Now()
		if err := conn.QueryRowContext(ctx, b.cost, calls).Scan(&n); err != nil {
			return fmt.Errorf("server-side cost of %s: %w", b.name, err)
		}
		ns[b.name] = float64(time.Since(start).Nanoseconds()) / float64(calls)
		if n != int64(calls) {
			return fmt.Errorf("server-side cost of %s: %d rows, want %d", b.name, n, calls)
		}
	}
	for _, b := range rotated(bodies, p.round) {
		p.next("duplicates from " + b.name)
		var d int64
		if err := conn.QueryRowContext(ctx, b.dups, calls).Scan(&d); err != nil {
			return fmt.Errorf("duplicates from %s: %w", b.name, err)
		}
		dups["cost/"+b.name] += d
	}
	for _, b := range bodies {
		s.Add("cost/"+b.name, ns[b.name])
		s.Add("costx/"+b.name, ns[b.name]/ns[bodies[0].name])
	}
	return nil
}

// planRound plans every key's single-row INSERT PlanRuns times (keys in
// rotated order) and adds to s "plan/<key>" (the mean of the round's
// middle half, in µs) and "planx/<key>" (against bigserial, the first
// key).
func planRound(ctx context.Context, p *progress, conn *sql.Conn, keys []pgKey, s *Samples) error {
	us := map[string]float64{}
	for _, k := range rotated(keys, p.round) {
		p.next("planning an INSERT into " + k.name)
		runs := make([]float64, 0, PlanRuns)
		for range PlanRuns {
			d, err := planTime(ctx, conn, k)
			if err != nil {
				return fmt.Errorf("plan INSERT into %s: %w", k.name, err)
			}
			runs = append(runs, d)
		}
		us[k.name] = middleMean(runs)
	}
	for _, k := range keys {
		s.Add("plan/"+k.name, us[k.name])
		s.Add("planx/"+k.name, us[k.name]/us[keys[0].name])
	}
	return nil
}

// middleMean is the mean of the middle half of xs: as steady as a median
// against outliers, and finer than EXPLAIN's whole microseconds.
func middleMean(xs []float64) float64 {
	slices.Sort(xs)
	mid := xs[len(xs)/4 : len(xs)-len(xs)/4]
	sum := 0.0
	for _, x := range mid {
		sum += x
	}
	return sum / float64(len(mid))
}

// planTime plans k's single-row INSERT once and returns the planning
// time EXPLAIN (SUMMARY ON) reports, in µs.
func planTime(ctx context.Context, conn *sql.Conn, k pgKey) (float64, error) {
	rows, err := conn.QueryContext(ctx, k.explain)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	us := -1.0
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return 0, err
		}
		if ms, ok := strings.CutPrefix(strings.TrimSpace(line), "Planning Time: "); ok {
			v, err := strconv.ParseFloat(strings.TrimSuffix(ms, " ms"), 64)
			if err != nil {
				return 0, fmt.Errorf("EXPLAIN's %q: %w", line, err)
			}
			us = v * 1000
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if us < 0 {
		return 0, errors.New("EXPLAIN (SUMMARY ON) gave no planning time")
	}
	return us, nil
}

// pgInsertRound sets synchronous_commit on every client connection as the
// phase says and runs the phase for every key (in rotated order), each
// client's statements in the phase's protocol. It adds to s, per key k,
// "ins/<phase>/k" (rows per second) and, once all ran, "insx/<phase>/k"
// against the first key; with cpu, "cpu/<phase>/k" (ns of the clients'
// server processes per row) and "cpux/<phase>/k"; for a key with jump
// counters, "slow/<phase>/k" (jumps per row). Statements refused as
// duplicate keys are added to dups under the rate's name.
func pgInsertRound(ctx context.Context, p *progress, db *sql.DB, conns []*pgx.Conn, cpu *cpuReader, ph PGPhase, keys []pgKey, s *Samples, dups map[string]int64) error {
	set, err := render("synchronous_commit", ph.SynchronousCommit == "on")
	if err != nil {
		return err
	}
	for _, c := range conns {
		if _, err := c.Exec(ctx, set); err != nil {
			return fmt.Errorf("set synchronous_commit: %w", err)
		}
	}
	mode := pgx.QueryExecModeCacheStatement
	if ph.Protocol == ProtocolSimple {
		mode = pgx.QueryExecModeSimpleProtocol
	}
	jumps, err := render("jumps", nil)
	if err != nil {
		return err
	}
	rate, cpuNs := map[string]float64{}, map[string]float64{}
	for _, k := range rotated(keys, p.round) {
		p.next("INSERT into " + k.name + ", " + ph.Name)
		ins := make([]inserter, len(conns))
		for i, c := range conns {
			ins[i] = func(ctx context.Context) error {
				_, err := c.Exec(ctx, k.row, mode, int32(i))
				return err
			}
		}
		var jumpsBefore, jumpsAfter int64
		if k.jumps != "" {
			if err := db.QueryRowContext(ctx, jumps, k.jumps).Scan(&jumpsBefore); err != nil {
				return fmt.Errorf("read the jump counter of %s: %w", k.name, err)
			}
		}
		var cpuBefore time.Duration
		if cpu != nil {
			if cpuBefore, err = cpu.total(); err != nil {
				return err
			}
		}
		r, d, err := insertRun(ctx, ins, p.s.Rows, isPGDup)
		if err != nil {
			return fmt.Errorf("INSERT into %s, %s: %w", k.name, ph.Name, err)
		}
		rows := float64(p.s.Rows * len(conns))
		name := ph.Name + "/" + k.name
		if cpu != nil {
			after, err := cpu.total()
			if err != nil {
				return err
			}
			cpuNs[k.name] = float64((after - cpuBefore).Nanoseconds()) / rows
			s.Add("cpu/"+name, cpuNs[k.name])
		}
		if k.jumps != "" {
			if err := db.QueryRowContext(ctx, jumps, k.jumps).Scan(&jumpsAfter); err != nil {
				return fmt.Errorf("read the jump counter of %s: %w", k.name, err)
			}
			s.Add("slow/"+name, float64(jumpsAfter-jumpsBefore)/rows)
		}
		rate[k.name] = r
		s.Add("ins/"+name, r)
		dups["ins/"+name] += d
	}
	for _, k := range keys {
		name := ph.Name + "/" + k.name
		s.Add("insx/"+name, rate[k.name]/rate[keys[0].name])
		if cpu != nil {
			s.Add("cpux/"+name, cpuNs[k.name]/cpuNs[keys[0].name])
		}
	}
	return nil
}

// pgInsertRowOf returns the figures pgInsertRound collected for key k in
// phase.
func pgInsertRowOf(s *Samples, dups map[string]int64, phase string, k pgKey, cpu bool) PGInsertRow {
	name := phase + "/" + k.name
	row := PGInsertRow{Key: k.name, RowsPerSecond: statOf(s, "ins/"+name), VsBase: statOf(s, "insx/"+name),
		DuplicateKeys: dups["ins/"+name], MustBeUnique: k.unique}
	if cpu {
		c, x := statOf(s, "cpu/"+name), statOf(s, "cpux/"+name)
		row.CPUPerRow, row.CPUVsBase = &c, &x
	}
	if k.jumps != "" {
		j := statOf(s, "slow/"+name)
		row.SlowPath = &j
	}
	return row
}

// isPGDup reports a unique_violation.
func isPGDup(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
