package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tidb/rotate"
)

// decoded is one line of decode's --json output.
type decoded = shardid.Decoded

// futureSlack is how far past the clock an ID's time may lie before
// decode warns: pgfunc.MaxLead, the furthest any generator's lead lets an
// ID run ahead, so a warned ID cannot have been made by a generator of
// this layout and epoch yet.
const futureSlack = pgfunc.MaxLead

func runDecode(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "decode")
	var lf layoutFlags
	lf.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object per ID")
	// A negative number is an ID to refuse as one, not a flag: kept out of
	// flag parsing, decoded (and refused) in its place among the others.
	flags, negative := splitNegative(args)
	if err := parseFlags(env, fs, flags); err != nil {
		return err
	}
	l, err := lf.resolve()
	if err != nil {
		return err
	}
	field := shardid.ShardField(lf.layout)
	enc := json.NewEncoder(env.stdout)
	decodeOne := func(text string, where string) error {
		d, err := l.Explain(text, time.Now(), futureSlack)
		if err != nil {
			return usagef("%s%v", where, err)
		}
		if *asJSON {
			return enc.Encode(d)
		}
		if d.Warning != "" {
			fmt.Fprintf(env.stderr, "shardid: decode: %sID %d: %s\n", where, d.ID, d.Warning)
		}
		d.Field = field
		return d.WriteText(env.stdout)
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
		if t := strings.TrimSpace(sc.Text()); t == "" || (line == 1 && rotate.IsHeader(t)) {
			continue // blank lines and a header line carry no ID
		}
		if err := decodeOne(sc.Text(), fmt.Sprintf("stdin line %d: ", line)); err != nil {
			return err
		}
	}
	return sc.Err()
}

// splitNegative takes the negative numbers (-5) before a "--" out of
// args: IDs to refuse as such, which the flag package would take for
// unknown flags.
func splitNegative(args []string) (flags, negative []string) {
	for i, a := range args {
		if a == "--" {
			return append(flags, args[i:]...), negative
		}
		if negativeNumber.MatchString(a) {
			negative = append(negative, a)
			continue
		}
		flags = append(flags, a)
	}
	return flags, negative
}

// negativeNumber matches an argument like -5, which the flag package would
// take for an unknown flag.
var negativeNumber = regexp.MustCompile(`^-[0-9]+$`)
