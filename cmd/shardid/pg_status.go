package main

import (
	"context"
	"io"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for goose
)

func runPGStatus(ctx context.Context, env *cliEnv, args []string) (err error) {
	t, err := migrateCommand(ctx, env, "status", args, false)
	if err != nil {
		return err
	}
	defer t.close()
	env, rep := startReport(env, t.json, "pg status")
	defer func() { err = rep.finish(env, err) }()
	if t.fleet != nil {
		return runMapStatus(ctx, env, t.fleet)
	}
	r, err := t.m.Report(ctx, t.shards)
	if err != nil {
		return err
	}
	for _, s := range r.Statuses {
		rep.row(s.Row(t.asked))
	}
	rep.totals(r.Totals())
	var b strings.Builder // the table, the census, the dangers, and on Citus every node's counters
	_ = r.WriteText(&b, t.asked)
	// A failed write is reported after the verdict (outputWriter.check).
	_, _ = io.WriteString(env.stdout, env.secrets.Scrub(b.String()))
	return r.Err(t.asked)
}
