package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/bench/table"
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
	return true, f.run(env, "bench pg", func(s bench.Settings) (textReport, error) {
		rep, err := bench.RunCitus(ctx, f.dsn, s)
		if rep == nil {
			return nil, err
		}
		return table.Citus{Where: where, CitusReport: rep}, err
	})
}
