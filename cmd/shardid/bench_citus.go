package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
)

// benchCitus runs bench pg on a Citus cluster when --citus asks for a
// throwaway one or --dsn names a coordinator; false otherwise, and bench
// pg measures a single server.
func benchCitus(ctx context.Context, env *cliEnv, f *benchFlags, throwaway bool) (bool, error) {
	where := dsn.Redact(f.dsn)
	if throwaway {
		if f.dsn != "" {
			return true, usagef("bench pg: --citus starts a throwaway cluster: give it or --dsn, not both")
		}
		fmt.Fprintln(env.stderr, "starting a throwaway Citus cluster (a coordinator and two workers, fsync on) ...")
		c, err := dbserver.StartCitus(ctx, dbserver.CitusOptions{Settings: map[string]string{"fsync": "on", "full_page_writes": "on"}})
		if err != nil {
			return true, fmt.Errorf("bench pg: %w", err)
		}
		defer c.Stop()
		f.dsn = c.DSN("postgres")
		where = fmt.Sprintf("a throwaway Citus cluster, coordinator on 127.0.0.1:%d (fsync on)", c.Port())
	} else if f.dsn != "" {
		db, err := sql.Open("pgx", f.dsn)
		if err != nil {
			return false, nil // bench pg reports it
		}
		citus, coordinator, err := citus.Detect(ctx, db)
		db.Close()
		if err != nil || !citus || !coordinator {
			return false, nil
		}
	} else {
		return false, nil
	}
	return true, f.run(env, "bench pg", func(s bench.Settings) (any, func(io.Writer), error) {
		rep, err := bench.RunCitus(ctx, f.dsn, s)
		if rep == nil {
			return nil, nil, err
		}
		return struct {
			Where string `json:"where"`
			*bench.CitusReport
		}{where, rep}, func(w io.Writer) { printCitusReport(w, where, rep) }, err
	})
}

// printCitusReport prints a Citus run: one line per entry node and
// protocol.
func printCitusReport(w io.Writer, where string, rep *bench.CitusReport) {
	s := rep.Settings
	fmt.Fprintf(w, "shardid bench pg on Citus: %s\n%d clients × %d single-row INSERTs per table and round, %d rounds (medians)\n\n", where, s.Clients, s.Rows, s.Rounds)
	fmt.Fprintf(w, "%-12s %-9s %14s %14s %12s\n", "ENTRY", "PROTOCOL", "NEXT_ID ROWS/S", "BIGSERIAL R/S", "× BIGSERIAL")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "%-12s %-9s %14.0f %14.0f %11.2fx\n", r.Entry, r.Protocol, r.NextID, r.Bigserial, r.Latency)
	}
	fmt.Fprintf(w, "\n× bigserial: time per INSERT keyed by DEFAULT next_id() as a multiple of bigserial's in the same round. Repeated IDs: %d\n", rep.Repeats)
}
