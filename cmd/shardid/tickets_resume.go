package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/shardid/shardid/tickets"
	ticketsreport "github.com/shardid/shardid/tickets/report"
)

func runTicketsResume(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tickets resume")
	var f serverFlags
	f.register(fs)
	offset := fs.Int64("offset", 0, "the offset of the server to move (required; shardid tickets status lists them)")
	skip := fs.Int64("skip", tickets.DefaultSkip, fmt.Sprintf("tickets of its class to move past the highest it could have handed out, 1-%d", int64(tickets.MaxSkip)))
	after := fs.Int64("after", 0, "a ticket it handed out, e.g. the highest your data holds: the counter moves past it too")
	again := fs.Bool("again", false, "move a server that was resumed before and has not gone back since")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	switch {
	case !fs.set("offset"):
		return usagef("--offset is required: the offset of the server whose data went back (shardid tickets status lists them)")
	}
	servers, closeAll, err := f.open(fs) // checks --dsn and --name; connects to nothing yet
	if err != nil {
		return err
	}
	defer closeAll()
	s := tickets.ResumeSettings{Name: f.name, Offset: *offset, Skip: *skip, After: *after, Again: *again}
	if *skip == 0 {
		return usagef("--skip: 0 is out of range (allowed 1-%d tickets)", int64(tickets.MaxSkip))
	}
	if err := s.Validate(); err != nil {
		return settingUsage(err)
	}
	res, err := tickets.Resume(ctx, servers, s)
	switch {
	case errors.Is(err, tickets.ErrNoEvidence) && len(servers) == 1:
		return usagef("--after is required here: nothing says how far %s handed out (the only server given, and a restore takes its own records back with its counter); give the highest ticket your data holds", res.Server)
	case errors.Is(err, tickets.ErrNoEvidence):
		return usagef("--after is required here: nothing says how far %s handed out (no ticket recorded from it, no other server of %s has a counter); give the highest ticket your data holds", res.Server, f.name)
	case errors.Is(err, tickets.ErrInvalidSettings):
		return settingUsage(err)
	case err != nil && res.Target == 0:
		return err
	}
	if werr := (ticketsreport.Resumed{Name: f.name, Offset: *offset, Skip: *skip, After: *after, Result: res}).WriteText(env.stdout); werr != nil {
		return werr
	}
	return err
}
