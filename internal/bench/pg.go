package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	// Cost is the server-side cost of one ID per body, nextval() first.
	Cost []CostRow `json:"cost"`
	// Insert holds the INSERT phases, each with the bigserial table first.
	Insert []InsertPhase `json:"insert"`
	// IDs compares ways for a client to get IDs, nextval() first.
	IDs []IDRow `json:"ids"`
	// Goals are the project's targets, checked against this run.
	Goals []Goal `json:"goals"`
}

// CostRow is one body's cost per ID inside the server.
type CostRow struct {
	// Body names it: "nextval", "unique", "classic", "classic-sql",
	// "published", "uuid-v4", "uuid-v7".
	Body string `json:"body"`
	// Expr is the SQL expression measured.
	Expr string `json:"expression"`
	// NsPerID is the statement's time divided by Settings.Calls.
	NsPerID Stat `json:"ns_per_id"`
	// VsNextval is NsPerID as a multiple of nextval()'s in the same round.
	VsNextval Stat `json:"x_nextval"`
	// Duplicates is, summed over the rounds, how many of Settings.Calls
	// IDs made by one statement repeated an earlier one.
	Duplicates int64 `json:"duplicates"`
	// MustBeUnique is set for every body but the classic modes and the
	// published one, whose repeats are their documented limit.
	MustBeUnique bool `json:"must_be_unique"`
}

// Goal is one of the project's targets and whether this run's median met
// it.
type Goal struct {
	Goal  string `json:"goal"`
	Value Stat   `json:"value"`
	Met   bool   `json:"met"`
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
func newBody(name, tmpl string, data pgExpr, unique bool) (pgBody, error) {
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

// pgExpr is the data of the expr_* templates: quoted schemas and the
// native sequence's name as a literal.
type pgExpr struct{ Base, Schema, Seq string }

// pgKey is one INSERT table and its statements.
type pgKey struct {
	name       string
	unique     bool
	row, batch string // single-row and BatchRows-row INSERT
}

// newKey renders the INSERT statements into table schema.name.
func newKey(key, schema, table string, unique bool) (pgKey, error) {
	k := pgKey{name: key, unique: unique}
	t := pgx.Identifier{schema, table}.Sanitize()
	var err error
	if k.row, err = render("insert_row", t); err != nil {
		return k, err
	}
	k.batch, err = render("insert_batch", t)
	return k, err
}

// seqLiteral is the native sequence's name as a regclass literal.
func seqLiteral() string {
	return "'" + strings.ReplaceAll(pgx.Identifier{PGSchema, "seq"}.Sanitize(), "'", "''") + "'"
}

// RunPG measures on the PostgreSQL server dsn points at (pgx URL or
// key=value words) and returns the report. It returns ErrInvalidSettings,
// ErrExists (a schema of PGSchemas is there already), ErrDuplicates (with
// the complete report), or the server's error; the schemas it created are
// dropped in every case.
func RunPG(ctx context.Context, dsn string, s Settings) (*PGReport, error) {
	s, err := s.normalize()
	if err != nil {
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
	created, err := createPGSchemas(ctx, db)
	defer dropPGSchemas(ctx, db, created)
	if err != nil {
		return nil, err
	}
	bodies, keys, err := setupPG(ctx, db)
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
	cost, err := db.Conn(ctx) // every body runs in the same backend
	if err != nil {
		return nil, err
	}
	defer cost.Close()

	phases := pgPhases()
	p := &progress{s: s, total: s.Rounds * (2*len(bodies) + len(phases)*len(keys) + len(methods))}
	var samples Samples
	dups := map[string]int64{}
	if err := warmPG(ctx, cost, bodies, conns, keys); err != nil {
		return nil, err
	}
	for p.round = 1; p.round <= s.Rounds; p.round++ {
		if err := costRound(ctx, p, cost, bodies, &samples, dups); err != nil {
			return nil, cause(ctx, err)
		}
		for _, ph := range phases {
			if err := pgInsertRound(ctx, p, conns, ph, keys, &samples, dups); err != nil {
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
	for _, ph := range phases {
		for _, k := range keys {
			ph.Keys = append(ph.Keys, insertRowOf(&samples, dups, ph.Name, k.name, k.unique))
		}
		rep.Insert = append(rep.Insert, ph)
	}
	rep.IDs = idRows(methods, &samples, dups)
	rep.Goals = pgGoals(rep)
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Machine.LoadEnd = loadAvg()
	var bad []string
	for _, c := range rep.Cost {
		if c.MustBeUnique && c.Duplicates > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d repeated IDs among %d from one statement", c.Body, c.Duplicates, s.Calls*s.Rounds))
		}
	}
	return rep, duplicatesError(append(bad, repeats(rep.Insert, rep.IDs)...))
}

// pgPhases are the INSERT phases, in the order every round runs them.
func pgPhases() []InsertPhase {
	var out []InsertPhase
	for _, rows := range []int{1, BatchRows} {
		for _, sync := range []string{"on", "off"} {
			name := "single-row"
			if rows > 1 {
				name = fmt.Sprintf("%d-row statements", rows)
			}
			out = append(out, InsertPhase{Name: name + ", synchronous_commit " + sync, RowsPerStatement: rows, SynchronousCommit: sync})
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

// setupPG creates the bench's tables and functions and applies a
// generator per mode with pgfunc.Migrator, on the highest shard ids no
// generator in the database holds, and returns what to measure, the
// baselines first.
func setupPG(ctx context.Context, db *sql.DB) ([]pgBody, []pgKey, error) {
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
		if err := exec(ctx, db, "mode_table", pgx.Identifier{m.schema}.Sanitize()); err != nil {
			return nil, nil, fmt.Errorf("create %s.k: %w", m.schema, err)
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
		data       pgExpr
		unique     bool
	}{
		{"nextval", "expr_nextval", pgExpr{Seq: seqLiteral()}, true},
		{"unique", "expr_next_id", mode(0), true},
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
	}
	var keys []pgKey
	for _, k := range []struct {
		name, schema, table string
		unique              bool
	}{
		{"bigserial", PGSchema, "k_bigserial", true},
		{"unique", pgModes[0].schema, "k", true},
		{"classic", pgModes[1].schema, "k", false},
		{"classic-sql", pgModes[2].schema, "k", false},
		{"uuid-v4", PGSchema, "k_uuid_v4", true},
		{"uuid-v7", PGSchema, "k_uuid_v7", true},
	} {
		key, err := newKey(k.name, k.schema, k.table, k.unique)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, key)
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
		for _, c := range conns {
			if _, err := c.Exec(ctx, k.row, 0); err != nil && !isPGDup(err) {
				return fmt.Errorf("INSERT into %s: %w", k.name, err)
			}
			if _, err := c.Exec(ctx, k.batch, []int32{0}); err != nil && !isPGDup(err) {
				return fmt.Errorf("INSERT into %s: %w", k.name, err)
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

// pgInsertRound sets synchronous_commit on every client connection as the
// phase says and runs the phase for every key.
func pgInsertRound(ctx context.Context, p *progress, conns []*pgx.Conn, ph InsertPhase, keys []pgKey, s *Samples, dups map[string]int64) error {
	set, err := render("synchronous_commit", ph.SynchronousCommit == "on")
	if err != nil {
		return err
	}
	for _, c := range conns {
		if _, err := c.Exec(ctx, set); err != nil {
			return fmt.Errorf("set synchronous_commit: %w", err)
		}
	}
	byName := map[string]pgKey{}
	names := make([]string, len(keys))
	for i, k := range keys {
		byName[k.name], names[i] = k, k.name
	}
	return insertRound(ctx, p, ph, names, func(key string) ([]inserter, error) {
		k := byName[key]
		ins := make([]inserter, len(conns))
		for i, c := range conns {
			if ph.RowsPerStatement == 1 {
				ins[i] = func(ctx context.Context) error {
					_, err := c.Exec(ctx, k.row, int32(i))
					return err
				}
				continue
			}
			vals := make([]int32, ph.RowsPerStatement)
			ins[i] = func(ctx context.Context) error {
				_, err := c.Exec(ctx, k.batch, vals)
				return err
			}
		}
		return ins, nil
	}, isPGDup, s, dups)
}

// isPGDup reports a unique_violation.
func isPGDup(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// pgGoals checks the project's targets against the report.
func pgGoals(r *PGReport) []Goal {
	cost := func(body string) Stat {
		for _, c := range r.Cost {
			if c.Body == body {
				return c.VsNextval
			}
		}
		return Stat{}
	}
	insert := func(rows int, key string) Stat {
		for _, ph := range r.Insert {
			if ph.RowsPerStatement == rows && ph.SynchronousCommit == "off" {
				for _, k := range ph.Keys {
					if k.Key == key {
						return k.VsBase
					}
				}
			}
		}
		return Stat{}
	}
	goal := func(what string, v Stat, limit float64, atMost bool) Goal {
		met := v.Median >= limit
		if atMost {
			met = v.Median <= limit
		}
		return Goal{Goal: what, Value: v, Met: met}
	}
	return []Goal{
		goal("next_id() unique (the default) costs at most 2× nextval() in the server", cost("unique"), 2, true),
		goal("next_id() classic-sql costs at most 1.5× nextval() in the server", cost("classic-sql"), 1.5, true),
		goal("single-row INSERT with DEFAULT next_id() unique reaches 0.95× bigserial's rows/s, synchronous_commit off", insert(1, "unique"), 0.95, false),
		goal(fmt.Sprintf("%d-row INSERT with DEFAULT next_id() unique reaches 0.95× bigserial's rows/s, synchronous_commit off", BatchRows), insert(BatchRows, "unique"), 0.95, false),
	}
}
