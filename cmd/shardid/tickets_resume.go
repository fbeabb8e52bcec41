package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shardid/shardid/tickets"
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
	who := fmt.Sprintf("%s on %s (offset %d)", f.name, res.Server, *offset)
	if res.Already > 0 {
		fmt.Fprintf(env.stdout, "%s: resumed to %d before and not gone back since: left as it is (--again moves it anyway)", who, res.Already)
		if len(res.Recorded) > 0 {
			fmt.Fprintf(env.stdout, "; resume now recorded on %s too", strings.Join(res.Recorded, ", "))
		}
		fmt.Fprintln(env.stdout)
		return err
	}
	var from []string
	for _, e := range []struct {
		what string
		v    int64
	}{{"recorded from it", res.Seen}, {"in the rewind report", res.Reported}, {"the furthest other server, " + res.Peer, res.PeerLast}, {"--after", *after}} {
		if e.v > 0 {
			from = append(from, fmt.Sprintf("%s %d", e.what, e.v))
		}
	}
	why := fmt.Sprintf("%d tickets past the highest of: %s", *skip, strings.Join(from, ", "))
	switch {
	case res.Kind == tickets.KindSequence && res.Moved:
		fmt.Fprintf(env.stdout, "%s: sequence moved to %d (%s)", who, res.Target, why)
	case res.Kind == tickets.KindSequence:
		fmt.Fprintf(env.stdout, "%s: sequence already past %d (%s): left as it is", who, res.Target, why)
	case res.Moved:
		fmt.Fprintf(env.stdout, "%s: counter moved from %d to %d (%s)", who, res.From, res.To, why)
	default:
		fmt.Fprintf(env.stdout, "%s: counter at %d, already past %d (%s): left as it is", who, res.From, res.Target, why)
	}
	if len(res.Recorded) > 0 {
		fmt.Fprintf(env.stdout, "; resume recorded on %s", strings.Join(res.Recorded, ", "))
	}
	fmt.Fprintln(env.stdout)
	return err
}
