package main

import (
	"context"
	"time"

	"github.com/shardid/shardid/tickets"
	ticketsreport "github.com/shardid/shardid/tickets/report"
)

func runTicketsStatus(ctx context.Context, env *cliEnv, args []string) (err error) {
	fs := newFlagSet(env, "tickets status")
	var f serverFlags
	f.register(fs)
	asJSON := jsonFlag(fs)
	timeout := fs.Duration("timeout", 5*time.Second, "give up on a server that has not answered by then")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return usagef("--timeout: %s is out of range (allowed: more than 0)", *timeout)
	}
	servers, closeAll, err := f.open(fs)
	if err != nil {
		return err
	}
	defer closeAll()
	env, rep := startReport(env, *asJSON, "tickets status")
	defer func() { err = rep.finish(env, err) }()
	got, top := tickets.Survey(ctx, servers, f.name, *timeout)
	st := ticketsreport.NewStatus(f.name, got, top, ticketsreport.Options{TimedOut: timedOutText(*timeout), Line: env.line})
	for _, r := range st.Rows {
		rep.row(r)
	}
	for _, n := range st.Notes {
		rep.note(n)
	}
	rep.total("servers", len(st.Read))
	if err := st.WriteText(env.stdout); err != nil {
		return err
	}
	return st.Err()
}
