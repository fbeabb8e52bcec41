package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	dsnpkg "github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/rotate"
)

// TiDBDatabase is the database RunTiDB creates, works in and drops.
const TiDBDatabase = "shardid_bench"

// evenRegions is how many equal ranges of the key space the tables whose
// strategy does not split them are split into before the first write.
const evenRegions = 16

// UnistoreNote says what a run on one unistore server can and cannot show
// about hotspots; RunTiDB reports whether it applies.
const UnistoreNote = "One unistore server keeps every region in one process and one store, and never splits a region " +
	"as it grows: each table keeps the regions it was created or split with (its strategy's PRE_SPLIT_REGIONS or " +
	"SPLIT TABLE, else 16 even ranges), standing in for the splits a cluster makes. The regions column shows where " +
	"each strategy's writes land; the rates show TiDB's own cost per row, not the throughput a cluster gains by " +
	"spreading writes over TiKV stores, which only a cluster can show."

// TiDBReport is what RunTiDB measured.
type TiDBReport struct {
	Run
	// Unistore is set when the server keeps its data in TiDB's embedded
	// unistore engine (UnistoreNote applies).
	Unistore bool `json:"unistore"`
	// Insert holds the INSERT phases, each with the AUTO_INCREMENT table
	// first.
	Insert []InsertPhase `json:"insert"`
	// Regions says, per table, where its writes landed.
	Regions []TableRegions `json:"regions"`
	// IDs compares ways for a client to get IDs, an AUTO_INCREMENT insert
	// first.
	IDs []IDRow `json:"ids"`
}

// TableRegions is where one table's writes landed over the whole run.
type TableRegions struct {
	// Key names the table's key: "auto_increment", "auto_random",
	// "shard_row_id", "snowflake" (app-side IDs as they come),
	// "rotated" (the same, rotated by one digit).
	Key string `json:"key"`
	// DDL is the statements that made the table, as the tidb package
	// renders them for the strategy.
	DDL []string `json:"ddl"`
	// Rows is the number of rows in the table after the run.
	Rows int `json:"rows"`
	// Before and After count the table's regions before the first write
	// and after the last.
	Before int `json:"regions_before"`
	After  int `json:"regions_after"`
	// Written counts the regions that took at least one key write: a row,
	// or (NONCLUSTERED key) its PRIMARY index entry.
	Written int `json:"regions_written"`
	// Hottest is the busiest region's share of the key writes.
	Hottest float64 `json:"hottest_share"`
}

// tidbTable is one INSERT table.
type tidbTable struct {
	name  string // bare table name
	key   string
	ddl   []string
	rowID bool                                    // NONCLUSTERED key: rows keyed by _tidb_rowid
	id    func(*shardid.Generator) (int64, error) // the key's value per row; nil: the server's
}

// RunTiDB measures on the TiDB server dsn points at (a go-sql-driver/mysql
// DSN; its database is not used) and returns the report. It returns
// ErrInvalidSettings, ErrExists (TiDBDatabase is there already),
// ErrDuplicates (with the complete report), an error for a server that is
// not TiDB, or the server's error; the database is dropped in every case if
// the run created it.
func RunTiDB(ctx context.Context, dsn string, s Settings) (*TiDBReport, error) {
	s, err := s.normalize()
	if err != nil {
		return nil, err
	}
	full, err := apply.DSN(dsn)
	if err != nil {
		return nil, err
	}
	admin, err := apply.Open(full)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	rep := &TiDBReport{Run: Run{Settings: s, Machine: machine(), Started: time.Now()}}
	if err := queryRow(ctx, admin, "version", nil, &rep.Server); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if !strings.Contains(rep.Server, "TiDB") {
		return nil, fmt.Errorf("the server is not TiDB (VERSION() = %s): shardid bench tidb measures TiDB's strategies; use shardid bench pg for PostgreSQL", rep.Server)
	}
	var version string
	if err := queryRow(ctx, admin, "tidb_version", nil, &version); err != nil {
		return nil, err
	}
	rep.Unistore = strings.Contains(version, "Store: unistore")
	if err := exec(ctx, admin, "create_database", "`"+TiDBDatabase+"`"); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1007 { // ER_DB_CREATE_EXISTS
			return nil, fmt.Errorf("database %s %w: shardid bench works only in a database it creates and drops; drop it (DROP DATABASE %s) if an interrupted run left it", TiDBDatabase, ErrExists, TiDBDatabase)
		}
		return nil, fmt.Errorf("create database %s: %w", TiDBDatabase, err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = exec(ctx, admin, "drop_database", "`"+TiDBDatabase+"`")
	}()
	cfg, err := dsnpkg.MySQLConfig(full)
	if err != nil {
		return nil, err
	}
	cfg.DBName = TiDBDatabase
	db, ctr, err := openMySQL(cfg)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxIdleConns(2*s.Clients + 4)

	gens := make([]*shardid.Generator, s.Clients) // one node per client, as separate processes
	for i := range gens {
		if gens[i], err = shardid.NewGenerator(shardid.Settings{Node: int64(i + 1)}); err != nil {
			return nil, err
		}
	}
	tables, err := setupTiDB(ctx, db, gens[0])
	if err != nil {
		return nil, err
	}
	before := map[string]int{}
	for _, t := range tables {
		rs, err := regionsOf(ctx, db, "`"+t.name+"`")
		if err != nil {
			return nil, err
		}
		before[t.key] = len(rs)
	}
	if s.afterSetup != nil {
		if err := s.afterSetup(ctx); err != nil {
			return nil, err
		}
	}
	methods, err := tidbMethods(ctx, db, s)
	if err != nil {
		return nil, err
	}
	conns := make([]*sql.Conn, s.Clients)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			return nil, err
		}
	}

	phases := []InsertPhase{{Name: "single-row", RowsPerStatement: 1}, {Name: fmt.Sprintf("%d-row statements", BatchRows), RowsPerStatement: BatchRows}}
	p := &progress{s: s, total: s.Rounds*(len(phases)*len(tables)+len(methods)) + len(tables)}
	var samples Samples
	dups := map[string]int64{}
	names := make([]string, len(tables))
	byName := map[string]tidbTable{}
	for i, t := range tables {
		names[i], byName[t.key] = t.key, t
	}
	for p.round = 1; p.round <= s.Rounds; p.round++ {
		for _, ph := range phases {
			err := insertRound(ctx, p, ph, names, func(key string) ([]inserter, error) {
				return tidbInserters(byName[key], ph.RowsPerStatement, conns, gens)
			}, isMySQLDup, &samples, dups)
			if err != nil {
				return nil, cause(ctx, err)
			}
		}
		if err := idRound(ctx, p, methods, ctr, &samples, dups); err != nil {
			return nil, cause(ctx, err)
		}
	}
	for _, ph := range phases {
		for _, t := range tables {
			ph.Keys = append(ph.Keys, insertRowOf(&samples, dups, ph.Name, t.key, true))
		}
		rep.Insert = append(rep.Insert, ph)
	}
	p.round = s.Rounds // the regions are read after the last round
	for _, t := range tables {
		p.next("regions of " + t.key)
		r, err := tableRegions(ctx, db, t)
		if err != nil {
			return nil, err
		}
		r.Before = before[t.key]
		rep.Regions = append(rep.Regions, r)
	}
	rep.IDs = idRows(methods, &samples, dups)
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Machine.LoadEnd = loadAvg()
	return rep, duplicatesError(repeats(rep.Insert, rep.IDs))
}

// setupTiDB creates one table per strategy, rendered by package tidb from
// the bench's CREATE TABLE, and splits those whose strategy does not into
// evenRegions ranges. The rotated-int split points are for IDs of the
// length and leading digit g makes now.
func setupTiDB(ctx context.Context, db *sql.DB, g *shardid.Generator) ([]tidbTable, error) {
	first, err := g.Next()
	if err != nil {
		return nil, err
	}
	digits := strconv.FormatInt(first, 10)
	lead := int(digits[0] - '0')
	raw := func(g *shardid.Generator) (int64, error) { return g.Next() }
	rotated := func(g *shardid.Generator) (int64, error) {
		id, err := g.Next()
		if err != nil {
			return 0, err
		}
		return rotate.Rotate(id, tidb.DefaultRotateDigits)
	}
	specs := []struct {
		key, tmpl string
		o         *tidb.Options // nil: the input as it is
		even      bool
		id        func(*shardid.Generator) (int64, error)
	}{
		{"auto_increment", "table_auto_increment", nil, true, nil},
		{"auto_random", "table_auto_increment", &tidb.Options{Strategy: tidb.StrategyAutoRandom}, true, nil},
		{"shard_row_id", "table_auto_increment", &tidb.Options{Strategy: tidb.StrategyShardRowID}, false, nil},
		{"snowflake", "table_app_key", &tidb.Options{Strategy: tidb.StrategyRotatedInt, IDDigits: len(digits), Lead: lead}, false, raw},
		{"rotated", "table_app_key", &tidb.Options{Strategy: tidb.StrategyRotatedInt, IDDigits: len(digits), Lead: lead}, false, rotated},
	}
	var tables []tidbTable
	for _, sp := range specs {
		t := tidbTable{name: "k_" + sp.key, key: sp.key, id: sp.id}
		input, err := render(sp.tmpl, "`"+t.name+"`")
		if err != nil {
			return nil, err
		}
		if sp.o == nil {
			t.ddl = []string{input}
		} else {
			parsed, err := tidb.Parse(input)
			if err != nil {
				return nil, err
			}
			d, err := tidb.Render(parsed, *sp.o)
			if err != nil {
				return nil, err
			}
			for _, st := range d.Statements {
				t.ddl = append(t.ddl, st.SQL)
			}
			t.rowID = d.Options.Strategy == tidb.StrategyShardRowID
		}
		if sp.even {
			split, err := render("split_even", struct {
				Table   string
				Regions int
			}{"`" + t.name + "`", evenRegions})
			if err != nil {
				return nil, err
			}
			t.ddl = append(t.ddl, split)
		}
		for _, q := range t.ddl {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return nil, fmt.Errorf("create %s: %w", t.name, err)
			}
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// tidbInserters returns one inserter per client for table t, rows rows per
// statement; a key the application fills comes from the client's own
// generator.
func tidbInserters(t tidbTable, rows int, conns []*sql.Conn, gens []*shardid.Generator) ([]inserter, error) {
	q, err := render("insert", struct {
		Table  string
		WithID bool
		Rows   []struct{}
	}{"`" + t.name + "`", t.id != nil, make([]struct{}, rows)})
	if err != nil {
		return nil, err
	}
	ins := make([]inserter, len(conns))
	for i, c := range conns {
		args := make([]any, 0, 2*rows)
		ins[i] = func(ctx context.Context) error {
			args = args[:0]
			for r := range rows {
				if t.id != nil {
					id, err := t.id(gens[i])
					if err != nil {
						return err
					}
					args = append(args, id)
				}
				args = append(args, r)
			}
			_, err := c.ExecContext(ctx, q, args...)
			return err
		}
	}
	return ins, nil
}

// isMySQLDup reports ER_DUP_ENTRY.
func isMySQLDup(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1062
}

// tableRegions reads where t's rows landed: its regions now, its table id
// and every row's key.
func tableRegions(ctx context.Context, db *sql.DB, t tidbTable) (TableRegions, error) {
	out := TableRegions{Key: t.key, DDL: t.ddl}
	regions, err := regionsOf(ctx, db, "`"+t.name+"`")
	if err != nil {
		return out, err
	}
	out.After = len(regions)
	q, err := render("table_id", nil)
	if err != nil {
		return out, err
	}
	var tid int64
	if err := db.QueryRowContext(ctx, q, t.name).Scan(&tid); err != nil {
		return out, fmt.Errorf("table id of %s: %w", t.name, err)
	}
	q, err = render("handles", struct {
		Table string
		RowID bool
	}{"`" + t.name + "`", t.rowID})
	if err != nil {
		return out, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return out, fmt.Errorf("row keys of %s: %w", t.name, err)
	}
	defer rows.Close()
	var handles []int64
	for rows.Next() {
		var h int64
		if err := rows.Scan(&h); err != nil {
			return out, err
		}
		handles = append(handles, h)
	}
	if err := rows.Err(); err != nil {
		return out, err
	}
	out.Rows = len(handles)
	out.Written, out.Hottest, err = spread(regions, tid, handles, t.rowID)
	if err != nil {
		return out, fmt.Errorf("%s: %w", t.name, err)
	}
	return out, nil
}

// tidbMethods sets up an AUTO_INCREMENT table, two ticket names (a table
// and a SEQUENCE), the segment allocation table and the lease table, and
// returns the ways a client gets IDs, the AUTO_INCREMENT insert first.
func tidbMethods(ctx context.Context, db *sql.DB, s Settings) ([]Method, error) {
	if err := exec(ctx, db, "ai_table", "`ai`"); err != nil {
		return nil, fmt.Errorf("create ai: %w", err)
	}
	draw, err := render("ai_draw", "`ai`")
	if err != nil {
		return nil, err
	}
	for _, t := range []tickets.Counter{{Name: "tickets64"}, {Name: "tickets64_seq", Kind: tickets.KindSequence}} {
		if _, _, err := tickets.Up(ctx, db, t); err != nil {
			return nil, fmt.Errorf("ticket name %s: %w", t.Name, err)
		}
	}
	if err := SegmentTag(ctx, db, dialect.TiDB, "", "bench"); err != nil {
		return nil, fmt.Errorf("segment allocation table: %w", err)
	}
	if _, err := lease.Up(ctx, db, dialect.TiDB, ""); err != nil {
		return nil, fmt.Errorf("lease table: %w", err)
	}
	return []Method{
		{Name: "auto_increment", IDs: s.IDs, New: ExecLastID(db, draw)},
		{Name: "tickets", IDs: s.IDs, New: TicketDraws(db, "tickets64")},
		{Name: "tickets-sequence", IDs: s.IDs, New: TicketDraws(db, "tickets64_seq")},
		// The bench's IDs are thrown away: a server that may lose
		// acknowledged commits is no reason to refuse them.
		{Name: "segments", IDs: s.IDs * InMemoryFactor, New: SegmentDraws(db, segment.Settings{
			Tag: "bench", Dialect: dialect.TiDB, AllowLossyCommit: true})},
		{Name: "leased", IDs: s.IDs * InMemoryFactor, New: LeasedDraws(db, lease.Settings{
			Dialect: dialect.TiDB}, "shardid-bench")},
	}, nil
}
