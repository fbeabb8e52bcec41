package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	dsnpkg "github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc"
)

// PGSchema holds RunPG's own objects; RunPG also creates a schema per
// next_id() mode beside it, each applied by migrate.Migrator as `shardid pg
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
