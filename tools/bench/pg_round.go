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
)

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
