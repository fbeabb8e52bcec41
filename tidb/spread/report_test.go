package spread

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReportWriteText: the steady-state table has a row per source with
// the regions taking writes (1 for raw IDs, 10 for one rotated digit, 16
// for 4 shard bits), the raw source's chart is flat, and the zero report
// writes the headings with no row.
func TestReportWriteText(t *testing.T) {
	rep, err := Compare(context.Background(), []Source{{Kind: Raw}, {Kind: Rotated, Digits: 1}, {Kind: Shard, ShardBits: 4}},
		Config{Writes: 200000, Window: 20000, SplitRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "200000 writes at 20000/s, regions split past 64 rows, 10 windows of 20000 writes (1s each)\n") {
		t.Errorf("header:\n%s", out)
	}
	// A row per source: its name, then the regions taking writes in
	// the steady state (1 for raw IDs, 10 for one rotated digit, 16 for 4
	// shard bits).
	for i, written := range []int{1, 10, 16} {
		src := rep.Results[i].Source.String()
		if got := rep.Results[i].Steady().Written; got != written {
			t.Errorf("%s: %d regions take writes, want %d", src, got, written)
		}
		if !regexp.MustCompile(`(?m)^ *` + regexp.QuoteMeta(src) + `  +\d+  +` + strconv.Itoa(written) + `  `).MatchString(out) {
			t.Errorf("no row %q taking writes in %d regions:\n%s", src, written, out)
		}
	}
	if !strings.Contains(out, "  snowflake      ▁▁▁▁▁▁▁▁▁▁\n") {
		t.Errorf("raw chart not flat:\n%s", out)
	}
	b.Reset()
	if err := (Report{}).WriteText(&b); err != nil || !strings.Contains(b.String(), "0 windows") || strings.Contains(b.String(), "snowflake") {
		t.Errorf("zero report: %v\n%s", err, b.String())
	}
}

// TestCompareStops: an out-of-range config is ErrConfig before anything
// runs, and a done context stops the comparison.
func TestCompareStops(t *testing.T) {
	if _, err := Compare(context.Background(), Standard(), Config{Rate: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("rate -1: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := Compare(ctx, Standard(), Config{}); !errors.Is(err, context.Canceled) || len(rep.Results) != 0 {
		t.Errorf("cancelled: %d results, %v", len(rep.Results), err)
	}
}
