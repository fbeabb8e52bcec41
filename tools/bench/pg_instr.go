package bench

// This file is the load-independent mode of `shardid bench pg`
// (--instructions): instructions counted by valgrind's callgrind in a
// stand-alone backend (postgres --single) with its clock frozen by
// libfaketime, so that a busy machine, a laptop and CI print the same
// table.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	osexec "os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/dbserver"
)

// ErrNotLocal is returned by RunInstructions when a program it runs is
// not on this machine; the message names it and where it was looked for.
var ErrNotLocal = errors.New("not on this machine")

// Defaults and fixed sizes of RunInstructions.
const (
	// DefaultExecutes is InstrSettings.Executes' default: the issue's
	// method counts 401 and 201 EXECUTEs.
	DefaultExecutes = 200
	// DefaultRepeats is InstrSettings.Repeats' default.
	DefaultRepeats = 2
	// InstrBatchRows is the number of rows of one INSERT ... SELECT of the
	// per-row count, and InstrBatches the number of such statements the
	// two scripts differ by: few enough draws that a frozen clock keeps a
	// generator's counter within its window.
	InstrBatchRows = 200
	InstrBatches   = 2
	// FreshStep is how far the clock of the fresh-window count moves at
	// every reading: past any generator's window (pgfunc.ShortTick), so
	// that every draw finds its counter's window over.
	FreshStep = 100 * time.Millisecond
)

// InstrSettings says what RunInstructions measures. Every zero value means
// the default named beside it.
type InstrSettings struct {
	// Executes is N: the scripts of the single-row counts run N+1 and
	// 2N+1 INSERTs, and a count is their difference over N, so that the
	// backend's start, its first draw and its shutdown cancel out: 1–500
	// (more would take a frozen counter past its window), 0 for
	// DefaultExecutes.
	Executes int `json:"executes"`
	// Repeats is how many times every count is measured, each in a
	// backend of its own: 1–10, 0 for DefaultRepeats. The report gives the
	// spread, which shows the counts repeat.
	Repeats int `json:"repeats"`
	// Only names the built-in rows to measure beside bigserial (which is
	// always measured, the baseline): of "floor", "next_id",
	// "next_id_bulk", "next_ids", "next_ids_bare"; empty means all of them.
	Only []string `json:"only,omitempty"`
	// Extras are DEFAULT expressions measured beside the built-in rows,
	// each after its own setup (a generator body under design, say).
	Extras []InstrExtra `json:"extras,omitempty"`
	// Valgrind is the valgrind program; empty means "valgrind" on $PATH.
	Valgrind string `json:"-"`
	// FakeTime is libfaketime's library; empty means Debian's
	// (FakeTimeLibs).
	FakeTime string `json:"-"`
	// BinDir holds the PostgreSQL server binaries; empty means what
	// dbserver.FindPGBinDir finds.
	BinDir string `json:"-"`
	// Progress, when set, is called before every backend run.
	Progress func(Step) `json:"-"`
}

// InstrExtra is a DEFAULT expression measured as a row of its own: Setup
// runs on the throwaway server first, then Expr keys a table
// (`id <its type> PRIMARY KEY DEFAULT (Expr)`) like the built-in rows'.
type InstrExtra struct {
	// Name names the row: 1 to 40 letters, digits, '_', '-' or '.'.
	Name string `json:"name"`
	// Expr is the DEFAULT, the user's own SQL: the server must describe
	// SELECT (Expr) as one column. When it is schema.next_id() or
	// schema.next_id_bulk() of a generator with jump counters, the report
	// counts its slow path too.
	Expr string `json:"default"`
	// Setup is SQL run before (the objects Expr needs), as one
	// multi-statement string; a goose migration's text runs its Up part
	// only.
	Setup string `json:"-"`
}

// FakeTimeLibs is where RunInstructions looks for libfaketime.
var FakeTimeLibs = []string{
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
}

// defaultRE is the line of an --extra file that names its DEFAULT.
var defaultRE = regexp.MustCompile(`(?m)^--\s*default:\s*(\S.*?)\s*$`)

// ReadExtra reads an extra from a file of SQL whose line
// `-- default: EXPR` names the DEFAULT to measure; the file is its setup.
// It returns an error wrapping ErrInvalidSettings that says what is wrong.
func ReadExtra(name, path string) (InstrExtra, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return InstrExtra{}, fmt.Errorf("%w: extra %s: %v", ErrInvalidSettings, name, err)
	}
	m := defaultRE.FindSubmatch(b)
	if m == nil {
		return InstrExtra{}, fmt.Errorf("%w: extra %s: %s has no line '-- default: EXPR' naming the DEFAULT to measure", ErrInvalidSettings, name, path)
	}
	x := InstrExtra{Name: name, Expr: string(m[1]), Setup: string(b)}
	return x, checkExtras([]InstrExtra{x})
}

// ParseExtra reads an extra written NAME=FILE.sql (see ReadExtra).
func ParseExtra(s string) (InstrExtra, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(path) == "" {
		return InstrExtra{}, fmt.Errorf("%w: extra %q: want NAME=FILE.sql", ErrInvalidSettings, s)
	}
	return ReadExtra(strings.TrimSpace(name), strings.TrimSpace(path))
}

// checkExtras refuses what checkPeers refuses of a peer.
func checkExtras(xs []InstrExtra) error {
	peers := make([]Peer, len(xs))
	for i, x := range xs {
		peers[i] = Peer{Name: x.Name, Expr: x.Expr}
	}
	err := checkPeers(peers)
	if err != nil {
		return errors.New(strings.Replace(err.Error(), "peer", "extra", 1))
	}
	return nil
}

// normalize fills in the defaults and checks the ranges.
func (s InstrSettings) normalize() (InstrSettings, error) {
	if s.Executes == 0 {
		s.Executes = DefaultExecutes
	}
	if s.Repeats == 0 {
		s.Repeats = DefaultRepeats
	}
	if s.Executes < 1 || s.Executes > 500 {
		return s, fmt.Errorf("%w: executes %d (allowed 1-500, or 0 for %d)", ErrInvalidSettings, s.Executes, DefaultExecutes)
	}
	if s.Repeats < 1 || s.Repeats > 10 {
		return s, fmt.Errorf("%w: repeats %d (allowed 1-10, or 0 for %d)", ErrInvalidSettings, s.Repeats, DefaultRepeats)
	}
	for _, name := range s.Only {
		if !slices.Contains(InstrRows[1:], name) {
			return s, fmt.Errorf("%w: row %q (allowed: %s)", ErrInvalidSettings, name, strings.Join(InstrRows[1:], ", "))
		}
	}
	if err := checkExtras(s.Extras); err != nil {
		return s, fmt.Errorf("%w: %v", ErrInvalidSettings, strings.TrimPrefix(err.Error(), ErrInvalidSettings.Error()+": "))
	}
	return s, nil
}

// InstrReport is what RunInstructions counted, in the shape of the other
// reports (server, settings, machine, started, seconds).
type InstrReport struct {
	// Server is the server's version string; Valgrind valgrind's
	// (valgrind --version).
	Server   string `json:"server"`
	Valgrind string `json:"valgrind"`
	// Settings are the settings used, defaults filled in.
	Settings InstrSettings `json:"settings"`
	// Machine is where the bench ran.
	Machine Machine `json:"machine"`
	// Started is when the run began; Seconds how long it took.
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	// Rows holds one row per DEFAULT, bigserial first.
	Rows []InstrRow `json:"rows"`
}

// InstrRow is one DEFAULT's counts; a count it does not have is nil.
type InstrRow struct {
	// Name is "bigserial", "floor" (a PL/pgSQL RETURN nextval()),
	// "next_id", "next_id_bulk", "next_ids" (the INSERT ... SELECT that
	// pgfunc's next_ids(n) comment recommends, its IDs joined to the rows
	// WITH ORDINALITY; per row only), "next_ids_bare" (the IDs of
	// next_ids(n) inserted as they come, no join: what the function costs
	// alone) or "extra:NAME".
	Name string `json:"name"`
	// Default is the key's DEFAULT expression (for next_ids, the
	// function).
	Default string `json:"default"`
	// Prepared counts instructions per `EXECUTE p` of `PREPARE p AS
	// INSERT INTO t (v) VALUES (1)`, clock frozen: every draw but a
	// script's first on the fast path.
	Prepared *InstrCount `json:"prepared,omitempty"`
	// Fresh is the same with a clock that moves FreshStep at every
	// reading: every draw is the first of a fresh window (a generator
	// with a window takes its jump every time).
	Fresh *InstrCount `json:"fresh_window,omitempty"`
	// Simple counts per `INSERT INTO t (v) VALUES (1)` sent as text
	// (parsed and planned each time), clock frozen.
	Simple *InstrCount `json:"simple,omitempty"`
	// PerRow counts per row of `INSERT INTO t (v) SELECT g FROM
	// generate_series(1, InstrBatchRows) g`, clock frozen.
	PerRow *InstrCount `json:"per_row,omitempty"`
}

// InstrCount is one count over the repeats.
type InstrCount struct {
	// Instructions is per INSERT (per row for PerRow): the median and the
	// range over the repeats.
	Instructions Stat `json:"instructions"`
	// Spread is (max - min) / median.
	Spread float64 `json:"spread"`
	// VsBase is the median over bigserial's in the same count.
	VsBase float64 `json:"x_bigserial"`
	// SlowPath is how many of the counted draws (of the larger script,
	// over its smaller one, in the first repeat) took the generator's
	// jump; -1 when the DEFAULT has no jump counters to read.
	SlowPath int64 `json:"slow_path"`
}

// instrTable is one row's table and what its scripts need.
type instrTable struct {
	row        InstrRow
	table      string // quoted schema.table
	schema     string // quoted schema of the generator (next_ids)
	jumps      string // literal of the jumps-done counter's name, "" for none
	onlyPerRow bool
}

// instrForm is one count: its scripts' statements and clock.
type instrForm struct {
	name    string
	lines   func(t instrTable, k int) ([]string, error)
	k1, k2  int     // statements of the two scripts
	per     float64 // draws the scripts differ by
	fresh   bool    // the stepped clock
	perRow  bool    // the INSERT ... SELECT scripts
	counted func(r *InstrRow) **InstrCount
}

// The schemas RunInstructions creates on its throwaway server.
const (
	instrSchema    = "shardid_bench_instr"
	instrGenSchema = "shardid_bench_instr_gen"
)

// RunInstructions starts a throwaway server from the local PostgreSQL
// binaries, creates a table per DEFAULT (bigserial, a PL/pgSQL floor,
// next_id() and next_id_bulk() of a generator rendered by pgfunc.Render,
// the extras), stops the server and counts, with callgrind in a
// stand-alone backend on its data, the instructions each INSERT costs. It
// returns ErrNotLocal (valgrind, libfaketime or the server binaries are
// missing), ErrInvalidSettings (an extra's expression included), or the
// error of a setup or backend run.
func RunInstructions(ctx context.Context, s InstrSettings) (*InstrReport, error) {
	s, err := s.normalize()
	if err != nil {
		return nil, err
	}
	vg, lib, err := instrTools(s)
	if err != nil {
		return nil, err
	}
	if _, err := dbserver.FindPGBinDir(s.BinDir); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotLocal, err)
	}
	rep := &InstrReport{Settings: s, Machine: machine(), Started: time.Now()}
	out, err := osexec.CommandContext(ctx, vg, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s --version: %v", ErrNotLocal, vg, err)
	}
	rep.Valgrind = strings.TrimSpace(string(out))
	srv, err := dbserver.StartPG(ctx, dbserver.PGOptions{BinDir: s.BinDir})
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	tables, err := setupInstr(ctx, srv.DSN("postgres"), s.Only, s.Extras, &rep.Server)
	if err != nil {
		return nil, err
	}
	if err := srv.Halt(); err != nil {
		return nil, err
	}
	if err := srv.SaveData(); err != nil {
		return nil, err
	}
	r := &instrRunner{srv: srv, vg: vg, lib: lib, clock: time.Now().UTC().Truncate(time.Second).Add(time.Minute)}
	forms := instrForms(s.Executes)
	runs := 0
	for _, t := range tables {
		for _, f := range forms {
			if f.perRow || !t.onlyPerRow {
				runs += 2
			}
		}
	}
	p := &progress{total: s.Repeats * runs}
	p.s.Rounds, p.s.Progress = s.Repeats, s.Progress
	samples := map[string][]float64{}
	slow := map[string]int64{}
	for p.round = 1; p.round <= s.Repeats; p.round++ {
		for _, t := range tables {
			for _, f := range forms {
				if t.onlyPerRow && !f.perRow {
					continue
				}
				v, jumps, err := r.count(ctx, p, t, f)
				if err != nil {
					return nil, fmt.Errorf("%s, %s: %w", t.row.Name, f.name, err)
				}
				key := t.row.Name + "/" + f.name
				samples[key] = append(samples[key], v)
				if p.round == 1 {
					slow[key] = jumps
				}
			}
		}
	}
	for _, t := range tables {
		row := t.row
		for _, f := range forms {
			key := t.row.Name + "/" + f.name
			if samples[key] == nil {
				continue
			}
			c := &InstrCount{Instructions: statOfValues(samples[key]), SlowPath: slow[key]}
			if c.Instructions.Median > 0 {
				c.Spread = (c.Instructions.Max - c.Instructions.Min) / c.Instructions.Median
			}
			if base := statOfValues(samples[tables[0].row.Name+"/"+f.name]).Median; base > 0 {
				c.VsBase = c.Instructions.Median / base
			}
			*f.counted(&row) = c
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Machine.LoadEnd = loadAvg()
	return rep, nil
}

// statOfValues is the median and range of vs.
func statOfValues(vs []float64) Stat {
	var s Samples
	for _, v := range vs {
		s.Add("v", v)
	}
	return statOf(&s, "v")
}

// instrTools finds valgrind and libfaketime, or says which is missing.
func instrTools(s InstrSettings) (valgrind, lib string, err error) {
	valgrind = s.Valgrind
	if valgrind == "" {
		valgrind = "valgrind"
	}
	name := valgrind
	if valgrind, err = osexec.LookPath(name); err != nil {
		return "", "", fmt.Errorf("%w: valgrind (%s not found or not executable; install Debian's valgrind)", ErrNotLocal, name)
	}
	libs := FakeTimeLibs
	if s.FakeTime != "" {
		libs = []string{s.FakeTime}
	}
	for _, l := range libs {
		if st, err := os.Stat(l); err == nil && !st.IsDir() {
			return valgrind, l, nil
		}
	}
	return "", "", fmt.Errorf("%w: libfaketime (looked for %s; install Debian's faketime)", ErrNotLocal, strings.Join(libs, ", "))
}

// gooseUp is the Up part of a goose migration's text, or text when it is
// not one.
func gooseUp(text string) string {
	_, up, ok := strings.Cut(text, "-- +goose Up\n")
	if !ok {
		return text
	}
	up, _, _ = strings.Cut(up, "-- +goose Down\n")
	return up
}

// InstrRows names the built-in rows, in the report's order.
var InstrRows = []string{"bigserial", "floor", "next_id", "next_id_bulk", "next_ids", "next_ids_bare"}

// instrShard is the shard id of the built-in generator: the layout's
// highest, so that an extra's generator can take any other.
var instrShard = pgfunc.Shard{Schema: instrGenSchema, ID: 8191}

// setupInstr creates the bench's tables on the server dsn points at, the
// built-in rows first (bigserial, then those only names; all when it is
// empty), and reads the server's version into server.
func setupInstr(ctx context.Context, dsn string, only []string, extras []InstrExtra, server *string) ([]instrTable, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, mustRender("version", nil)).Scan(server); err != nil {
		return nil, err
	}
	base := pgx.Identifier{instrSchema}.Sanitize()
	gen := pgx.Identifier{instrGenSchema}.Sanitize()
	up, err := pgfunc.Render(instrShard, pgfunc.Options{})
	if err != nil {
		return nil, err
	}
	for _, step := range []struct{ what, sql string }{
		{"the bench's schema", mustRender("instr_base", base)},
		{"the generator's schema", mustRender("create_schema", gen)},
		{"next_id() of shard 8191", gooseUp(string(up))},
	} {
		if _, err := conn.Exec(ctx, step.sql); err != nil {
			return nil, fmt.Errorf("create %s: %w", step.what, err)
		}
	}
	jumps := quoteLiteral(gen + ".next_id_jumps_done")
	tables := []instrTable{
		{row: InstrRow{Name: "bigserial", Default: "bigserial"}},
		{row: InstrRow{Name: "floor", Default: base + ".floor_id()"}},
		{row: InstrRow{Name: "next_id", Default: gen + ".next_id()"}, jumps: jumps},
		{row: InstrRow{Name: "next_id_bulk", Default: gen + ".next_id_bulk()"}, jumps: jumps},
		{row: InstrRow{Name: "next_ids", Default: gen + ".next_ids(n)"}, jumps: jumps, schema: gen, onlyPerRow: true},
		{row: InstrRow{Name: "next_ids_bare", Default: gen + ".next_ids(n), no join"}, jumps: jumps, schema: gen, onlyPerRow: true},
	}
	peers := make([]Peer, len(extras))
	for i, x := range extras {
		if _, err := conn.Exec(ctx, gooseUp(x.Setup)); err != nil {
			return nil, fmt.Errorf("extra %s: its setup: %w", x.Name, err)
		}
		peers[i] = Peer{Name: x.Name, Expr: x.Expr}
	}
	described, err := describePeers(ctx, conn, peers)
	if err != nil {
		return nil, errors.New(strings.Replace(err.Error(), "peer", "extra", 1))
	}
	for i, x := range extras {
		t := instrTable{row: InstrRow{Name: "extra:" + x.Name, Default: x.Expr}}
		if m := generatorRE.FindStringSubmatch(strings.TrimSpace(x.Expr)); m != nil && m[1] == m[3] {
			t.jumps = quoteLiteral(pgx.Identifier{m[2]}.Sanitize() + ".next_id_jumps_done")
		}
		described[i].Base, described[i].Table = base, fmt.Sprintf("t_extra_%d", i+1)
		if _, err := conn.Exec(ctx, mustRender("peer_table", described[i])); err != nil {
			return nil, fmt.Errorf("extra %s: a table keyed by %s: %w", x.Name, x.Expr, err)
		}
		t.table = base + "." + described[i].Table
		tables = append(tables, t)
	}
	var kept []instrTable
	for i := range tables[:len(InstrRows)] {
		t := &tables[i]
		if i > 0 && len(only) > 0 && !slices.Contains(only, t.row.Name) {
			continue
		}
		pt := peerTable{Base: base, Table: "t_" + t.row.Name, Type: "bigint", Expr: t.row.Default}
		tmpl := "peer_table"
		switch t.row.Name {
		case "bigserial":
			tmpl = "instr_bigserial"
		case "next_ids", "next_ids_bare":
			tmpl = "instr_ids_table"
		}
		if _, err := conn.Exec(ctx, mustRender(tmpl, pt)); err != nil {
			return nil, fmt.Errorf("create the table of %s: %w", t.row.Name, err)
		}
		t.table = base + "." + pt.Table
		kept = append(kept, *t)
	}
	return append(kept, tables[len(InstrRows):]...), nil
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// mustRender renders a template of the bench's own, whose data cannot
// make it fail.
func mustRender(name string, data any) string {
	s, err := render(name, data)
	if err != nil {
		panic(err)
	}
	return s
}

// instrForms are the counts, in the order of the report's columns.
func instrForms(n int) []instrForm {
	inserts := func(t instrTable, k int, prepared bool) []string {
		var lines []string
		if prepared {
			lines = append(lines, mustRender("instr_prepare", t.table))
		}
		for range k {
			if prepared {
				lines = append(lines, mustRender("instr_execute", nil))
			} else {
				lines = append(lines, mustRender("instr_simple", t.table))
			}
		}
		return lines
	}
	prepared := func(t instrTable, k int) ([]string, error) { return inserts(t, k, true), nil }
	return []instrForm{
		{name: "prepared", lines: prepared, k1: n + 1, k2: 2*n + 1, per: float64(n),
			counted: func(r *InstrRow) **InstrCount { return &r.Prepared }},
		{name: "fresh window", lines: prepared, k1: n + 1, k2: 2*n + 1, per: float64(n), fresh: true,
			counted: func(r *InstrRow) **InstrCount { return &r.Fresh }},
		{name: "simple", lines: func(t instrTable, k int) ([]string, error) { return inserts(t, k, false), nil },
			k1: n + 1, k2: 2*n + 1, per: float64(n), counted: func(r *InstrRow) **InstrCount { return &r.Simple }},
		{name: "per row", perRow: true, k1: InstrBatches + 1, k2: 2*InstrBatches + 1, per: InstrBatches * InstrBatchRows,
			lines: func(t instrTable, k int) ([]string, error) {
				tmpl := "instr_select"
				switch t.row.Name {
				case "next_ids":
					tmpl = "instr_ids"
				case "next_ids_bare":
					tmpl = "instr_ids_bare"
				}
				line, err := render(tmpl, struct {
					Table, Schema string
					Rows          int
				}{t.table, t.schema, InstrBatchRows})
				lines := make([]string, k)
				for i := range lines {
					lines[i] = line
				}
				return lines, err
			}, counted: func(r *InstrRow) **InstrCount { return &r.PerRow }},
	}
}

// instrRunner runs the stand-alone backends.
type instrRunner struct {
	srv     *dbserver.PG
	vg, lib string
	clock   time.Time // every backend's clock (where it starts)
}

// InstrTimeout bounds one backend run under callgrind.
const InstrTimeout = 10 * time.Minute

// count runs form f's two scripts for t and returns the instructions per
// draw and the jumps between them (-1: none to read).
func (r *instrRunner) count(ctx context.Context, p *progress, t instrTable, f instrForm) (float64, int64, error) {
	var ir, jumps [2]int64
	for i, k := range []int{f.k1, f.k2} {
		lines, err := f.lines(t, k)
		if err != nil {
			return 0, 0, err
		}
		if t.jumps != "" {
			// Before and after: the jumps of this script alone (another
			// script ran in between).
			probe := mustRender("instr_jumps", t.jumps)
			lines = append(append([]string{probe}, lines...), probe)
		}
		p.next(fmt.Sprintf("%s, %s, %d statements", t.row.Name, f.name, k))
		if ir[i], jumps[i], err = r.run(ctx, lines, f.fresh); err != nil {
			return 0, 0, err
		}
	}
	j := int64(-1)
	if t.jumps != "" {
		j = jumps[1] - jumps[0]
	}
	return float64(ir[1]-ir[0]) / f.per, j, nil
}

var (
	collectedRE = regexp.MustCompile(`Collected : (\d+)`)
	jumpsRE     = regexp.MustCompile(`shardid_jumps = "(-?\d+)"`)
	errorRE     = regexp.MustCompile(`(?m)^.*(ERROR|FATAL|PANIC):.*$`)
)

// run runs one script in a stand-alone backend under callgrind and
// returns the instructions counted and the jumps its generator made
// between the script's first and last lines (0 when they read none).
// Every backend starts from the data as the setup left it (the tables
// empty, the counters idle since, behind its clock) and at the same
// clock: the same script does the same work.
func (r *instrRunner) run(ctx context.Context, lines []string, fresh bool) (int64, int64, error) {
	if err := r.srv.RestoreData(); err != nil {
		return 0, 0, err
	}
	clock := r.clock.Format("2006-01-02 15:04:05") // absolute: frozen
	if fresh {
		clock = "@" + clock + " i" + strconv.FormatFloat(FreshStep.Seconds(), 'f', -1, 64)
	}
	ctx, cancel := context.WithTimeout(ctx, InstrTimeout)
	defer cancel()
	cmd := r.srv.SingleUser(ctx, "postgres", []string{r.vg, "--tool=callgrind", "--callgrind-out-file=callgrind.out"},
		"TZ=UTC", "FAKETIME="+clock, "LD_PRELOAD="+r.lib)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if m := errorRE.Find(stdout.Bytes()); m != nil {
		return 0, 0, fmt.Errorf("the backend: %s", strings.TrimSpace(string(m)))
	}
	if m := errorRE.Find(stderr.Bytes()); m != nil && !bytes.Contains(m, []byte("==")) {
		return 0, 0, fmt.Errorf("the backend: %s", strings.TrimSpace(string(m)))
	}
	if err != nil {
		return 0, 0, fmt.Errorf("callgrind: %w: %s", err, dbserver.LastLines(stderr.String(), 3))
	}
	m := collectedRE.FindSubmatch(stderr.Bytes())
	if m == nil {
		return 0, 0, fmt.Errorf("callgrind printed no count: %s", dbserver.LastLines(stderr.String(), 3))
	}
	ir, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil || ir <= 0 || ir == math.MaxInt64 {
		return 0, 0, fmt.Errorf("callgrind's count %q: %v", m[1], err)
	}
	var jumps int64
	if m := jumpsRE.FindAllSubmatch(stdout.Bytes(), -1); len(m) == 2 {
		before, _ := strconv.ParseInt(string(m[0][1]), 10, 64)
		after, _ := strconv.ParseInt(string(m[1][1]), 10, 64)
		jumps = after - before
	}
	return ir, jumps, nil
}

// WriteInstructions prints rep as a table: command is the command line
// that measured it, where the server it ran on.
func WriteInstructions(w io.Writer, rep *InstrReport, command string) {
	s := rep.Settings
	fmt.Fprintf(w, "%s\n%s; %s (callgrind); %s\n", command, rep.Server, rep.Valgrind, rep.Started.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "Instructions per INSERT in a stand-alone backend (postgres --single) on a throwaway server's data, its clock\n")
	fmt.Fprintf(w, "frozen by libfaketime: (Ir(%d statements) - Ir(%d)) / %d, so the backend's start and its first draw cancel out;\n", 2*s.Executes+1, s.Executes+1, s.Executes)
	fmt.Fprintf(w, "per row: %d-row INSERT ... SELECT, (Ir(%d) - Ir(%d)) / %d rows. Fresh window: the clock moves %s at every\n",
		InstrBatchRows, 2*InstrBatches+1, InstrBatches+1, InstrBatches*InstrBatchRows, FreshStep)
	fmt.Fprintf(w, "reading, so every draw is the first of a fresh window. Median of %d repeats; SPREAD is the largest (max-min)/median.\n\n", s.Repeats)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEFAULT\tPREPARED\t× BIGSERIAL\tFRESH WINDOW\t× BIGSERIAL\tSIMPLE\t× BIGSERIAL\tPER ROW (INSERT ... SELECT)\t× BIGSERIAL\tSPREAD")
	for _, r := range rep.Rows {
		fmt.Fprint(tw, r.Default)
		spread := 0.0
		for _, c := range []*InstrCount{r.Prepared, r.Fresh, r.Simple, r.PerRow} {
			if c == nil {
				fmt.Fprint(tw, "\t-\t-")
				continue
			}
			spread = max(spread, c.Spread)
			n := fmt.Sprintf("%.0f", c.Instructions.Median)
			if c.SlowPath > 0 {
				n += fmt.Sprintf(" (%d jumps)", c.SlowPath)
			}
			fmt.Fprintf(tw, "\t%s\t%.2f", n, c.VsBase)
		}
		fmt.Fprintf(tw, "\t%.2f%%\n", 100*spread)
	}
	tw.Flush()
}
