package spread

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is a comparison of sources run under one Config (Compare).
type Report struct {
	// Config is the run's size, its defaults filled in.
	Config Config
	// Results are the sources' runs, in the order given.
	Results []Result
}

// Compare runs every source under cfg (Run) and returns their results
// in order. It stops at the first error (ErrConfig for a field out of
// range) or when ctx is done.
func Compare(ctx context.Context, sources []Source, cfg Config) (Report, error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return Report{}, err
	}
	rep := Report{Config: cfg, Results: make([]Result, 0, len(sources))}
	for _, src := range sources {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		res, err := Run(src, cfg)
		if err != nil {
			return rep, err
		}
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

// WriteText writes r as shardid tidb spread prints it: the steady-state
// table, a bar per source of the regions taking writes, one row of cells
// per source showing each window's spread over time, and how to read
// them. It returns the first write error.
func (r Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	cfg, nw := r.Config, 0
	if len(r.Results) > 0 {
		nw = len(r.Results[0].Windows)
	}
	var winDur time.Duration
	if cfg.Rate > 0 {
		winDur = time.Duration(cfg.Window) * (time.Second / time.Duration(cfg.Rate))
	}
	fmt.Fprintf(&b, "%d writes at %d/s, regions split past %d rows, %d windows of %d writes (%s each)\n\n",
		cfg.Writes, cfg.Rate, cfg.SplitRows, nw, cfg.Window, winDur)
	fmt.Fprintf(&b, "steady state, mean of the last %d windows:\n", nw-nw/2)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "source\tregions\ttaking writes\thottest\teffective\t \t")
	for _, res := range r.Results {
		st := res.Steady()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f%%\t%.1f\t \t\n", res.Source, st.Regions, st.Written, 100*st.Hottest, st.Effective)
	}
	tw.Flush()
	fmt.Fprintln(&b)

	fmt.Fprintln(&b, "effective regions taking writes (log scale, each █ = ×2):")
	for _, res := range r.Results {
		e := res.Steady().Effective
		n := 1 + int(math.Round(math.Log2(max(e, 1))))
		fmt.Fprintf(&b, "  %-14s %s %.0f\n", res.Source, strings.Repeat("█", n), e)
	}
	fmt.Fprintln(&b)

	// Per-window chart: one cell per window, taller for more spread.
	levels := []rune("▁▂▃▄▅▆▇█")
	fmt.Fprintf(&b, "over time, one cell per window (▁ = 1 region takes the writes, █ = 1000 or more):\n")
	for _, res := range r.Results {
		var cells strings.Builder
		for _, win := range res.Windows {
			l := int(math.Round(math.Log10(max(win.Effective, 1)) / 3 * float64(len(levels)-1)))
			cells.WriteRune(levels[min(l, len(levels)-1)])
		}
		fmt.Fprintf(&b, "  %-14s %s\n", res.Source, cells.String())
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "effective = 1/Σshare² over the regions that stood when the window began; hottest = the busiest region's share of the window's writes.")
	fmt.Fprintln(&b, "Rotating k digits spreads writes over 10^k ranges when the last digits take all values; at 1000 IDs/s or less Snowflake IDs are all even, so try --rate 1000.")
	_, err := w.Write(b.Bytes())
	return err
}
