package instr

// This file sets up the throwaway server's tables and runs the scripts in
// stand-alone backends under callgrind; WriteText writes the report.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
)

// gooseUp is text without a goose migration's Down part (what comes
// before its Up, a CREATE SCHEMA say, stays), or text when it has none.
func gooseUp(text string) string {
	up, _, _ := strings.Cut(text, "-- +goose Down\n")
	return up
}

// RowNames names the built-in rows, in the report's order.
var RowNames = []string{"bigserial", "floor", "next_id", "next_id_bulk", "next_ids", "next_ids_bare"}

// instrShard is the shard id of the built-in generator: the layout's
// highest, so that an extra's generator can take any other.
var instrShard = pgfunc.Shard{Schema: instrGenSchema, ID: 8191}

// setupInstr creates the bench's tables on the server dsn points at, the
// built-in rows first (bigserial, then those only names; all when it is
// empty), and reads the server's version into server.
func setupInstr(ctx context.Context, dsn string, only []string, extras []Extra, server *string) ([]instrTable, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, mustRender("instr_version", nil)).Scan(server); err != nil {
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
		{"the generator's schema", mustRender("instr_schema", gen)},
		{"next_id() of shard 8191", gooseUp(string(up))},
	} {
		if _, err := conn.Exec(ctx, step.sql); err != nil {
			return nil, fmt.Errorf("create %s: %w", step.what, err)
		}
	}
	jumps := quoteLiteral(gen + ".next_id_jumps_done")
	tables := []instrTable{
		{row: Row{Name: "bigserial", Default: "bigserial"}},
		{row: Row{Name: "floor", Default: base + ".floor_id()"}},
		{row: Row{Name: "next_id", Default: gen + ".next_id()"}, jumps: jumps},
		{row: Row{Name: "next_id_bulk", Default: gen + ".next_id_bulk()"}, jumps: jumps},
		{row: Row{Name: "next_ids", Default: gen + ".next_ids(n)"}, jumps: jumps, schema: gen, onlyPerRow: true},
		{row: Row{Name: "next_ids_bare", Default: gen + ".next_ids(n), no join"}, jumps: jumps, schema: gen, onlyPerRow: true},
	}
	for i, x := range extras {
		if _, err := conn.Exec(ctx, gooseUp(x.Setup)); err != nil {
			return nil, fmt.Errorf("extra %s: its setup: %w", x.Name, err)
		}
		typ, err := bench.PeerType(ctx, conn, bench.Peer{Name: x.Name, Expr: x.Expr})
		if err != nil {
			return nil, errors.New(strings.Replace(err.Error(), "peer", "extra", 1))
		}
		t := instrTable{row: Row{Name: "extra:" + x.Name, Default: x.Expr}}
		if schema := bench.GeneratorSchema(x.Expr); schema != "" {
			t.jumps = quoteLiteral(pgx.Identifier{schema}.Sanitize() + ".next_id_jumps_done")
		}
		kt := keyTable{Base: base, Table: fmt.Sprintf("t_extra_%d", i+1), Type: typ, Expr: x.Expr}
		if _, err := conn.Exec(ctx, mustRender("instr_table", kt)); err != nil {
			return nil, fmt.Errorf("extra %s: a table keyed by %s: %w", x.Name, x.Expr, err)
		}
		t.table = base + "." + kt.Table
		tables = append(tables, t)
	}
	var kept []instrTable
	for i := range tables[:len(RowNames)] {
		t := &tables[i]
		if i > 0 && len(only) > 0 && !slices.Contains(only, t.row.Name) {
			continue
		}
		pt := keyTable{Base: base, Table: "t_" + t.row.Name, Type: "bigint", Expr: t.row.Default}
		tmpl := "instr_table"
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
	return append(kept, tables[len(RowNames):]...), nil
}

// keyTable is a table the instr_* templates create: schema Base (quoted),
// name Table, its key of type Type with DEFAULT (Expr).
type keyTable struct{ Base, Table, Type, Expr string }

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
			counted: func(r *Row) **Count { return &r.Prepared }},
		{name: "every draw jumps", lines: prepared, k1: n + 1, k2: 2*n + 1, per: float64(n), jumping: true,
			counted: func(r *Row) **Count { return &r.Jumping }},
		{name: "simple", lines: func(t instrTable, k int) ([]string, error) { return inserts(t, k, false), nil },
			k1: n + 1, k2: 2*n + 1, per: float64(n), counted: func(r *Row) **Count { return &r.Simple }},
		{name: "per row", perRow: true, k1: Batches + 1, k2: 2*Batches + 1, per: Batches * BatchRows,
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
				}{t.table, t.schema, BatchRows})
				lines := make([]string, k)
				for i := range lines {
					lines[i] = line
				}
				return lines, err
			}, counted: func(r *Row) **Count { return &r.PerRow }},
	}
}

// instrRunner runs the stand-alone backends.
type instrRunner struct {
	srv     *dbserver.PG
	vg, lib string
	clock   time.Time // every backend's clock (where it starts)
}

// Timeout bounds one backend run under callgrind.
const Timeout = 10 * time.Minute

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
		if ir[i], jumps[i], err = r.run(ctx, lines, f.jumping); err != nil {
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
func (r *instrRunner) run(ctx context.Context, lines []string, jumping bool) (int64, int64, error) {
	if err := r.srv.RestoreData(); err != nil {
		return 0, 0, err
	}
	clock := r.clock.Format("2006-01-02 15:04:05") // absolute: frozen
	if jumping {
		clock = "@" + clock + " i" + strconv.FormatFloat(JumpStep.Seconds(), 'f', -1, 64)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := r.srv.SingleUser(ctx, "postgres", []string{r.vg, "--tool=callgrind", "--callgrind-out-file=callgrind.out"},
		"TZ=UTC", "FAKETIME="+clock, "LD_PRELOAD="+r.lib)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		removeFakeTimeShm(cmd.Process.Pid)
	}
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

// WriteText writes the report as bench pg --instructions prints it:
// command (the command line that counted), the server and valgrind, how
// a count is taken, and one row per DEFAULT of instructions per INSERT
// (prepared, every draw jumping, simple, per row of an INSERT ... SELECT),
// each beside its multiple of bigserial's, with the largest spread over
// the repeats. A report without rows writes the table's head alone. It
// returns the write error.
func (rep *Report) WriteText(w io.Writer, command string) error {
	var b bytes.Buffer
	s := rep.Settings
	fmt.Fprintf(&b, "%s\n%s; %s (callgrind); %s\n", command, rep.Server, rep.Valgrind, rep.Started.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "Instructions per INSERT in a stand-alone backend (postgres --single) on a throwaway server's data, its clock\n")
	fmt.Fprintf(&b, "frozen by libfaketime: (Ir(%d statements) - Ir(%d)) / %d, so the backend's start and its first draw cancel out;\n", 2*s.Executes+1, s.Executes+1, s.Executes)
	fmt.Fprintf(&b, "per row: %d-row INSERT ... SELECT, (Ir(%d) - Ir(%d)) / %d rows. Every draw jumps: the clock moves %s at every\n",
		BatchRows, 2*Batches+1, Batches+1, Batches*BatchRows, JumpStep)
	fmt.Fprintf(&b, "reading, so every draw takes the jump (the slow path). Median of %d repeats; SPREAD is the largest (max-min)/median.\n\n", s.Repeats)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEFAULT\tPREPARED\t× BIGSERIAL\tEVERY DRAW JUMPS\t× BIGSERIAL\tSIMPLE\t× BIGSERIAL\tPER ROW (INSERT ... SELECT)\t× BIGSERIAL\tSPREAD")
	for _, r := range rep.Rows {
		fmt.Fprint(tw, r.Default)
		spread := 0.0
		for _, c := range []*Count{r.Prepared, r.Jumping, r.Simple, r.PerRow} {
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
	_, err := w.Write(b.Bytes())
	return err
}

// removeFakeTimeShm removes the shared memory and semaphore libfaketime
// leaves in /dev/shm for process pid (valgrind's launcher makes them and
// execs the tool, so nobody removes them): a later backend that gets the
// same process id would read the clock state of this one.
func removeFakeTimeShm(pid int) {
	for _, name := range []string{"faketime_shm_%d", "sem.faketime_sem_%d"} {
		_ = os.Remove(filepath.Join("/dev/shm", fmt.Sprintf(name, pid)))
	}
}
