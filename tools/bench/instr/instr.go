package instr

// This file holds what Run takes and returns.

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
)

// ErrNotLocal is returned by Run when a program it runs is
// not on this machine; the message names it and where it was looked for.
var ErrNotLocal = errors.New("not on this machine")

// Defaults and fixed sizes of Run.
const (
	// DefaultExecutes is Settings.Executes' default: the issue's
	// method counts 401 and 201 EXECUTEs.
	DefaultExecutes = 200
	// DefaultRepeats is Settings.Repeats' default.
	DefaultRepeats = 2
	// BatchRows is the number of rows of one INSERT ... SELECT of the
	// per-row count, and Batches the number of such statements the
	// two scripts differ by: few enough draws that a frozen clock keeps a
	// generator's counter within its window.
	BatchRows = 200
	Batches   = 2
	// JumpStep is how far the clock of the every-draw-jumps count moves at
	// every reading: past any generator's window (pgfunc.ShortTick), so
	// that every draw finds its counter's window over.
	JumpStep = 100 * time.Millisecond
)

// Settings says what Run measures. Every zero value means
// the default named beside it.
type Settings struct {
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
	Extras []Extra `json:"extras,omitempty"`
	// Valgrind is the valgrind program; empty means "valgrind" on $PATH.
	Valgrind string `json:"-"`
	// FakeTime is libfaketime's library; empty means Debian's
	// (FakeTimeLibs).
	FakeTime string `json:"-"`
	// BinDir holds the PostgreSQL server binaries; empty means what
	// dbserver.FindPGBinDir finds.
	BinDir string `json:"-"`
	// Progress, when set, is called before every backend run.
	Progress func(bench.Step) `json:"-"`
}

// Extra is a DEFAULT expression measured as a row of its own: Setup
// runs on the throwaway server first, then Expr keys a table
// (`id <its type> PRIMARY KEY DEFAULT (Expr)`) like the built-in rows'.
type Extra struct {
	// Name names the row: 1 to 40 letters, digits, '_', '-' or '.'.
	Name string `json:"name"`
	// Expr is the DEFAULT, the user's own SQL: the server must describe
	// SELECT (Expr) as one column. When it is schema.next_id() or
	// schema.next_id_bulk() of a generator with jump counters, the report
	// counts its slow path too.
	Expr string `json:"default"`
	// Setup is SQL run before (the objects Expr needs), as one
	// multi-statement string; of a goose migration's text, all but its
	// Down part.
	Setup string `json:"-"`
}

// FakeTimeLibs is where Run looks for libfaketime.
var FakeTimeLibs = []string{
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
}

// defaultRE is the line of an --extra file that names its DEFAULT.
var defaultRE = regexp.MustCompile(`(?m)^--\s*default:\s*(\S.*?)\s*$`)

// ReadExtra reads an extra from a file of SQL whose line
// `-- default: EXPR` names the DEFAULT to measure; the file is its setup.
// It returns an error wrapping bench.ErrInvalidSettings that says what is wrong.
func ReadExtra(name, path string) (Extra, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Extra{}, fmt.Errorf("%w: extra %s: %v", bench.ErrInvalidSettings, name, err)
	}
	m := defaultRE.FindSubmatch(b)
	if m == nil {
		return Extra{}, fmt.Errorf("%w: extra %s: %s has no line '-- default: EXPR' naming the DEFAULT to measure", bench.ErrInvalidSettings, name, path)
	}
	x := Extra{Name: name, Expr: string(m[1]), Setup: string(b)}
	return x, checkExtras([]Extra{x})
}

// ParseExtra reads an extra written NAME=FILE.sql (see ReadExtra).
func ParseExtra(s string) (Extra, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(path) == "" {
		return Extra{}, fmt.Errorf("%w: extra %q: want NAME=FILE.sql", bench.ErrInvalidSettings, s)
	}
	return ReadExtra(strings.TrimSpace(name), strings.TrimSpace(path))
}

// checkExtras refuses what bench.ParsePeer refuses of a peer, and a name
// given twice.
func checkExtras(xs []Extra) error {
	seen := map[string]bool{}
	for _, x := range xs {
		if _, err := bench.ParsePeer(x.Name + "=" + x.Expr); err != nil {
			return errors.New(strings.Replace(err.Error(), "peer", "extra", 1))
		}
		if seen[x.Name] {
			return fmt.Errorf("%w: extra %s given twice", bench.ErrInvalidSettings, x.Name)
		}
		seen[x.Name] = true
	}
	return nil
}

// normalize fills in the defaults and checks the ranges.
func (s Settings) normalize() (Settings, error) {
	if s.Executes == 0 {
		s.Executes = DefaultExecutes
	}
	if s.Repeats == 0 {
		s.Repeats = DefaultRepeats
	}
	if s.Executes < 1 || s.Executes > 500 {
		return s, fmt.Errorf("%w: executes %d (allowed 1-500, or 0 for %d)", bench.ErrInvalidSettings, s.Executes, DefaultExecutes)
	}
	if s.Repeats < 1 || s.Repeats > 10 {
		return s, fmt.Errorf("%w: repeats %d (allowed 1-10, or 0 for %d)", bench.ErrInvalidSettings, s.Repeats, DefaultRepeats)
	}
	for _, name := range s.Only {
		if !slices.Contains(RowNames[1:], name) {
			return s, fmt.Errorf("%w: row %q (allowed: %s)", bench.ErrInvalidSettings, name, strings.Join(RowNames[1:], ", "))
		}
	}
	if err := checkExtras(s.Extras); err != nil {
		return s, fmt.Errorf("%w: %v", bench.ErrInvalidSettings, strings.TrimPrefix(err.Error(), bench.ErrInvalidSettings.Error()+": "))
	}
	return s, nil
}

// Report is what Run counted, in the shape of the other
// reports (server, settings, machine, started, seconds).
type Report struct {
	// Server is the server's version string; Valgrind valgrind's
	// (valgrind --version).
	Server   string `json:"server"`
	Valgrind string `json:"valgrind"`
	// Settings are the settings used, defaults filled in.
	Settings Settings `json:"settings"`
	// Machine is where the bench ran.
	Machine bench.Machine `json:"machine"`
	// Started is when the run began; Seconds how long it took.
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	// Rows holds one row per DEFAULT, bigserial first.
	Rows []Row `json:"rows"`
}

// Row is one DEFAULT's counts; a count it does not have is nil.
type Row struct {
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
	Prepared *Count `json:"prepared,omitempty"`
	// Jumping is the same with a clock that moves JumpStep at every
	// reading: every draw finds its counter's window over and takes the
	// generator's jump (the cost of its slow path).
	Jumping *Count `json:"every_draw_jumps,omitempty"`
	// Simple counts per `INSERT INTO t (v) VALUES (1)` sent as text
	// (parsed and planned each time), clock frozen.
	Simple *Count `json:"simple,omitempty"`
	// PerRow counts per row of `INSERT INTO t (v) SELECT g FROM
	// generate_series(1, BatchRows) g`, clock frozen.
	PerRow *Count `json:"per_row,omitempty"`
}

// Count is one count over the repeats.
type Count struct {
	// Instructions is per INSERT (per row for PerRow): the median and the
	// range over the repeats.
	Instructions bench.Stat `json:"instructions"`
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
	row        Row
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
	jumping bool    // the stepped clock
	perRow  bool    // the INSERT ... SELECT scripts
	counted func(r *Row) **Count
}

// The schemas Run creates on its throwaway server.
const (
	instrSchema    = "shardid_bench_instr"
	instrGenSchema = "shardid_bench_instr_gen"
)

// Run starts a throwaway server from the local PostgreSQL
// binaries, creates a table per DEFAULT (bigserial, a PL/pgSQL floor,
// next_id() and next_id_bulk() of a generator rendered by pgfunc.Render,
// the extras), stops the server and counts, with callgrind in a
// stand-alone backend on its data, the instructions each INSERT costs. It
// returns ErrNotLocal (valgrind, libfaketime or the server binaries are
// missing), bench.ErrInvalidSettings (an extra's expression included), or the
// error of a setup or backend run.
func Run(ctx context.Context, s Settings) (*Report, error) {
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
	rep := &Report{Settings: s, Machine: bench.ThisMachine(), Started: time.Now()}
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
	p := &progress{report: s.Progress, total: s.Repeats * runs, rounds: s.Repeats}
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
			c := &Count{Instructions: statOfValues(samples[key]), SlowPath: slow[key]}
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
	rep.Machine.LoadEnd = bench.LoadAvg()
	return rep, nil
}

// statOfValues is the median and range of vs.
func statOfValues(vs []float64) bench.Stat {
	var s bench.Samples
	for _, v := range vs {
		s.Add("v", v)
	}
	lo, hi := s.Range("v")
	return bench.Stat{Median: s.Median("v"), Min: lo, Max: hi}
}

// progress counts a run's backends and reports each before it starts.
type progress struct {
	report             func(bench.Step)
	done, total, round int
	rounds             int
}

// next reports the backend about to start.
func (p *progress) next(what string) {
	if p.report != nil {
		p.report(bench.Step{Done: p.done, Total: p.total, Round: p.round, Rounds: p.rounds, What: what})
	}
	p.done++
}

// instrTools finds valgrind and libfaketime, or says which is missing.
func instrTools(s Settings) (valgrind, lib string, err error) {
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
