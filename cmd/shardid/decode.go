package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// decoded is one line of decode's --json output. Route is there for a
// layout with a route field only.
type decoded struct {
	ID    int64  `json:"id"`
	Time  string `json:"time"`
	Shard int64  `json:"shard"`
	Seq   int64  `json:"seq"`
	Route *int64 `json:"route,omitempty"`
	// Warning says why the decoding is likely wrong (futureWarning).
	Warning string `json:"warning,omitempty"`
}

// futureSlack is how far past the clock an ID's time may lie before
// decode warns: pgfunc.MaxLead, the furthest any generator's lead lets an
// ID run ahead, so a warned ID cannot have been made by a generator of
// this layout and epoch yet.
const futureSlack = pgfunc.MaxLead

// futureWarning is decode's warning for an ID whose time lies further
// ahead of now than any generator of the layout and epoch can have made
// it: most often a rotated ID or another layout's or epoch's.
func futureWarning(at, now time.Time) string {
	if ahead := at.Sub(now); ahead > futureSlack {
		return fmt.Sprintf("its time is %s after now, which no generator of this layout and epoch can have made yet: a rotated ID (shardid rotate --reverse), or another --layout or --epoch?", roughly(ahead))
	}
	return ""
}

// roughly words a long duration to the unit that matters: 12 days, 5
// hours, 70 minutes.
func roughly(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", d/time.Hour)
	}
	return fmt.Sprintf("%d minutes", d/time.Minute)
}

func runDecode(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "decode")
	var lf layoutFlags
	lf.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object per ID")
	// A negative number is an ID to refuse as one, not a flag: kept out of
	// flag parsing, decoded (and refused) in its place among the others.
	var flags, negative []string
	for i, a := range args {
		if a == "--" {
			flags = append(flags, args[i:]...)
			break
		}
		if _, err := strconv.ParseInt(a, 10, 64); err == nil && strings.HasPrefix(a, "-") {
			negative = append(negative, a)
			continue
		}
		flags = append(flags, a)
	}
	if err := parseFlags(env, fs, flags); err != nil {
		return err
	}
	l, err := lf.resolve()
	if err != nil {
		return err
	}
	field := shardField(lf.layout)
	enc := json.NewEncoder(env.stdout)
	decodeOne := func(text string, where string) error {
		id, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return usagef("%sbad ID %q: want a decimal integer from 0 to %d", where, text, l.MaxID())
		}
		p, err := l.Decompose(id)
		if err != nil {
			return usagef("%sID %d: %v", where, id, err)
		}
		d := decoded{ID: id, Time: p.Time.Format("2006-01-02T15:04:05.000Z07:00"), Shard: p.Shard, Seq: p.Seq, Warning: futureWarning(p.Time, time.Now())}
		if d.Warning != "" && !*asJSON {
			fmt.Fprintf(env.stderr, "shardid: decode: %sID %d: %s\n", where, id, d.Warning)
		}
		route := ""
		if l.RouteBits > 0 {
			d.Route, route = &p.Route, fmt.Sprintf("\troute %d", p.Route)
		}
		if *asJSON {
			return enc.Encode(d)
		}
		_, err = fmt.Fprintf(env.stdout, "%d\t%s\t%s %d\tseq %d%s\n", d.ID, d.Time, field, d.Shard, d.Seq, route)
		return err
	}
	if fs.NArg() > 0 || len(negative) > 0 {
		for _, a := range append(negative, fs.Args()...) {
			if err := decodeOne(a, ""); err != nil {
				return err
			}
		}
		return nil
	}
	stdinHint(env, "decode")
	sc := bufio.NewScanner(env.stdin)
	for line := 1; sc.Scan(); line++ {
		if t := strings.TrimSpace(sc.Text()); t == "" || (line == 1 && isHeader(t)) {
			continue // blank lines and a header line carry no ID
		}
		if err := decodeOne(sc.Text(), fmt.Sprintf("stdin line %d: ", line)); err != nil {
			return err
		}
	}
	return sc.Err()
}

// shardField is the word decode's text output gives the shard field: node
// when the layout spec names it so (time:41,node:6,seq:12), shard
// otherwise. The JSON key stays "shard" whatever the spec says.
func shardField(spec string) string {
	for _, part := range strings.Split(spec, ",") {
		if name, _, ok := strings.Cut(strings.TrimSpace(part), ":"); ok && strings.TrimSpace(name) == "node" {
			return "node"
		}
	}
	return "shard"
}
