package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shardid/shardid/tidb/spread"
)

func runTiDBSpread(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb spread")
	var cfg spread.Config
	fs.IntVar(&cfg.Rate, "rate", spread.DefaultRate, "keys inserted per simulated second, 1-1000000000 (at 1000 or less every Snowflake ID has sequence 0)")
	fs.IntVar(&cfg.Writes, "writes", spread.DefaultWrites, "keys to insert")
	fs.IntVar(&cfg.Window, "window", spread.DefaultWindow, "writes per reporting window, at most --writes")
	fs.IntVar(&cfg.SplitRows, "split-rows", spread.DefaultSplitRows, "rows past which a region splits at its median key, ≥ 2")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed for the random shard bits")
	shard := spread.Source{Kind: spread.Shard}
	fs.IntVar(&shard.ShardBits, "shard-bits", 4, "SHARD_ROW_ID_BITS / AUTO_RANDOM shard bits of the shard source, 1-15")
	fs.IntVar(&shard.Batch, "batch", 1, "rows per transaction sharing their shard bits, ≥ 1")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("tidb spread: unexpected argument %q (allowed: flags only)", fs.Arg(0))
	}
	if err := cfg.Validate(); err != nil {
		return usagef("tidb spread: %v", err)
	}
	if err := shard.Validate(); err != nil {
		return usagef("tidb spread: %v", err)
	}

	sources := spread.Standard()
	sources[len(sources)-1] = shard
	results := make([]spread.Result, 0, len(sources))
	for _, src := range sources {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := spread.Run(src, cfg)
		if err != nil {
			return err
		}
		results = append(results, res)
	}
	printSpread(env.stdout, cfg, results)
	return nil
}

// printSpread writes the steady-state table with a bar per source, then
// one row of cells per source showing each window's spread over time.
func printSpread(w io.Writer, cfg spread.Config, results []spread.Result) {
	nw := len(results[0].Windows)
	winDur := time.Duration(cfg.Window) * (time.Second / time.Duration(cfg.Rate))
	fmt.Fprintf(w, "%d writes at %d/s, regions split past %d rows, %d windows of %d writes (%s each)\n\n",
		cfg.Writes, cfg.Rate, cfg.SplitRows, nw, cfg.Window, winDur)
	fmt.Fprintf(w, "steady state, mean of the last %d windows:\n", nw-nw/2)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "source\tregions\ttaking writes\thottest\teffective\t \t")
	for _, r := range results {
		st := r.Steady()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f%%\t%.1f\t \t\n", r.Source, st.Regions, st.Written, 100*st.Hottest, st.Effective)
	}
	tw.Flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "effective regions taking writes (log scale, each █ = ×2):")
	for _, r := range results {
		e := r.Steady().Effective
		n := 1 + int(math.Round(math.Log2(max(e, 1))))
		fmt.Fprintf(w, "  %-14s %s %.0f\n", r.Source, strings.Repeat("█", n), e)
	}
	fmt.Fprintln(w)

	// Per-window chart: one cell per window, taller for more spread.
	levels := []rune("▁▂▃▄▅▆▇█")
	fmt.Fprintf(w, "over time, one cell per window (▁ = 1 region takes the writes, █ = 1000 or more):\n")
	for _, r := range results {
		var b strings.Builder
		for _, win := range r.Windows {
			l := int(math.Round(math.Log10(max(win.Effective, 1)) / 3 * float64(len(levels)-1)))
			b.WriteRune(levels[min(l, len(levels)-1)])
		}
		fmt.Fprintf(w, "  %-14s %s\n", r.Source, b.String())
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "effective = 1/Σshare² over the regions that stood when the window began; hottest = the busiest region's share of the window's writes.")
	fmt.Fprintln(w, "Rotating k digits spreads writes over 10^k ranges when the last digits take all values; at 1000 IDs/s or less Snowflake IDs are all even, so try --rate 1000.")
}
