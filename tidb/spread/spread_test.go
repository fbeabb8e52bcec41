package spread

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// small keeps the runs quick while leaving every range several regions.
var small = Config{Writes: 300000, Window: 20000, SplitRows: 64}

func run(t *testing.T, src Source, cfg Config) Result {
	t.Helper()
	res, err := Run(src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Windows) != (cfg.Writes+cfg.Window-1)/cfg.Window {
		t.Fatalf("%s: %d windows", src, len(res.Windows))
	}
	return res
}

func TestRawIsOneHotRegion(t *testing.T) {
	res := run(t, Source{Kind: Raw}, small)
	for i, w := range res.Windows {
		if w.Written != 1 || w.Hottest != 1 {
			t.Errorf("window %d: %d regions written, hottest %.3f; want 1 region with all writes", i, w.Written, w.Hottest)
		}
	}
	if res.Regions < small.Writes/small.SplitRows {
		t.Errorf("%d regions after %d writes; want the table to keep splitting", res.Regions, small.Writes)
	}
}

// Rotating k digits spreads a window's writes over 10^k regions, evenly,
// once the key space has split; at ≤ 1 ID per millisecond every Snowflake
// ID is even (sequence 0, and 2^22 and 2^12 are even), so only half the
// last digits occur: 5, 25 and 125 ranges.
func TestRotatedSpreadsOverTenToTheK(t *testing.T) {
	for _, tt := range []struct {
		k, rate int
		want    float64
	}{
		{1, 20000, 10}, {2, 20000, 100}, {3, 20000, 1000},
		{1, 1000, 5}, {2, 1000, 25}, {3, 1000, 125},
	} {
		cfg := small
		cfg.Rate = tt.rate
		if tt.k == 3 {
			cfg.Writes = 600000
		}
		st := run(t, Source{Kind: Rotated, Digits: tt.k}, cfg).Steady()
		if math.Abs(float64(st.Written)-tt.want) > 0.02*tt.want+0.5 || st.Effective < 0.9*tt.want || st.Hottest > 1.5/tt.want {
			t.Errorf("k=%d at %d/s: %d regions written, effective %.1f, hottest %.4f; want about %v", tt.k, tt.rate, st.Written, st.Effective, st.Hottest, tt.want)
		}
		raw := run(t, Source{Kind: Raw}, cfg).Steady()
		if raw.Written != 1 {
			t.Errorf("raw at %d/s: %d regions written", tt.rate, raw.Written)
		}
	}
}

func TestShardBitsSpreadOverTwoToTheS(t *testing.T) {
	for _, s := range []int{2, 4, 6} {
		st := run(t, Source{Kind: Shard, ShardBits: s}, small).Steady()
		want := float64(int(1) << s)
		if float64(st.Written) != want || st.Effective < 0.9*want {
			t.Errorf("S=%d: %d regions written, effective %.1f; want %v", s, st.Written, st.Effective, want)
		}
	}
	// Rows of one transaction share their shard: bigger batches, same spread
	// over a window.
	st := run(t, Source{Kind: Shard, ShardBits: 4, Batch: 100}, small).Steady()
	if st.Written != 16 {
		t.Errorf("S=4 batch 100: %d regions written; want 16", st.Written)
	}
}

func TestDeterministic(t *testing.T) {
	for _, src := range Standard() {
		a, b := run(t, src, small), run(t, src, small)
		if a.Regions != b.Regions || a.Steady() != b.Steady() {
			t.Errorf("%s: two runs differ: %+v vs %+v", src, a.Steady(), b.Steady())
		}
	}
	c := small
	c.Seed = 2
	a, b := run(t, Source{Kind: Shard, ShardBits: 4}, small), run(t, Source{Kind: Shard, ShardBits: 4}, c)
	if slices.Equal(a.Windows, b.Windows) {
		t.Errorf("seeds 1 and 2 gave the same windows")
	}
}

// The splitter keeps its invariants: starts sorted, every key inside its
// region, no region above the split size.
func TestSplitterInvariants(t *testing.T) {
	var sp splitter
	sp.init(16)
	cfg, err := Config{Rate: 5000}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	next, err := keys(Source{Kind: Rotated, Digits: 2}, cfg)
	if err == nil {
		for range 20000 {
			k, err := next()
			if err != nil {
				t.Fatal(err)
			}
			sp.insert(k)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, ks := range sp.keys {
		if i > 0 && sp.starts[i] <= sp.starts[i-1] {
			t.Fatalf("starts out of order at %d", i)
		}
		if len(ks) > 16 {
			t.Fatalf("region %d holds %d rows", i, len(ks))
		}
		for _, k := range ks {
			if k < sp.starts[i] || (i+1 < len(sp.starts) && k >= sp.starts[i+1]) {
				t.Fatalf("key %d outside region %d", k, i)
			}
		}
		total += len(ks)
	}
	if total != 20000 {
		t.Errorf("%d keys stored; want 20000", total)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		src Source
		cfg Config
	}{
		{Source{Kind: Rotated, Digits: 4}, Config{}},
		{Source{Kind: Shard, ShardBits: 0}, Config{}},
		{Source{Kind: Shard, ShardBits: 16}, Config{}},
		{Source{Kind: 9}, Config{}},
		{Source{}, Config{Rate: -1}},
		{Source{}, Config{Writes: 10, Window: 11}},
		{Source{}, Config{SplitRows: 1}},
	} {
		if _, err := Run(tt.src, tt.cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("Run(%+v, %+v) = %v; want ErrConfig", tt.src, tt.cfg, err)
		}
	}
}
