package spread

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tidb/rotate"
)

// Kind selects how a Source makes keys.
type Kind int

// The key sources.
const (
	// Raw is Snowflake IDs from shardid.Generator, in the order they are made.
	Raw Kind = iota
	// Rotated is the same IDs with their last Digits digits rotated to
	// just after the leading digit (rotate.Rotate).
	Rotated
	// Shard is an increasing row id with ShardBits random bits on top, as
	// TiDB's SHARD_ROW_ID_BITS and AUTO_RANDOM place them: bit 63 is the
	// sign, bits 62..63-ShardBits the shard.
	Shard
)

// Source describes a stream of keys.
type Source struct {
	// Kind is where the keys come from.
	Kind Kind
	// Digits is the rotation width for Rotated: 1, 2 or 3.
	Digits int
	// ShardBits is S for Shard: 1 to 15.
	ShardBits int
	// Batch is the number of consecutive rows that share their shard
	// bits for Shard (TiDB picks them once per transaction, so the rows
	// of one multi-row INSERT share them). Zero means 1.
	Batch int
}

// String names the source for tables: "snowflake", "rotate k=2", "shard S=4".
func (s Source) String() string {
	switch s.Kind {
	case Raw:
		return "snowflake"
	case Rotated:
		return fmt.Sprintf("rotate k=%d", s.Digits)
	case Shard:
		if s.Batch > 1 {
			return fmt.Sprintf("shard S=%d x%d", s.ShardBits, s.Batch)
		}
		return fmt.Sprintf("shard S=%d", s.ShardBits)
	}
	return fmt.Sprintf("kind %d", int(s.Kind))
}

// Validate returns an error wrapping ErrConfig naming the first field of s
// out of range (by its shardid tidb spread flag) and what is allowed. A
// zero Batch means 1.
func (s Source) Validate() error {
	switch {
	case s.Kind == Rotated && (s.Digits < 1 || s.Digits > 3):
		return fmt.Errorf("%w: digits %d (allowed 1-3)", ErrConfig, s.Digits)
	case s.Kind == Shard && (s.ShardBits < 1 || s.ShardBits > 15):
		return fmt.Errorf("%w: shard-bits %d (allowed 1-15)", ErrConfig, s.ShardBits)
	case s.Kind == Shard && s.Batch < 0:
		return fmt.Errorf("%w: batch %d (allowed ≥ 1, or 0 for 1)", ErrConfig, s.Batch)
	case s.Kind != Raw && s.Kind != Rotated && s.Kind != Shard:
		return fmt.Errorf("%w: source kind %d (allowed Raw, Rotated, Shard)", ErrConfig, int(s.Kind))
	}
	return nil
}

// Standard returns the sources the digit-rotation article compares: raw
// Snowflake IDs, rotation by 1, 2 and 3 digits, and 4 shard bits.
func Standard() []Source {
	return []Source{{Kind: Raw}, {Kind: Rotated, Digits: 1}, {Kind: Rotated, Digits: 2}, {Kind: Rotated, Digits: 3}, {Kind: Shard, ShardBits: 4}}
}

// The defaults of Config's fields.
const (
	DefaultRate      = 20000
	DefaultWrites    = 1000000
	DefaultWindow    = 50000
	DefaultSplitRows = 256
)

// Config sets the size of a run. The zero value of each field means its
// documented default.
type Config struct {
	// Rate is the number of keys made per simulated second, 1 to 10^9;
	// 0 means DefaultRate. It sets the Snowflake clock: at 1,000/s or
	// less every ID has sequence number 0.
	Rate int
	// Writes is the number of keys fed; 0 means DefaultWrites.
	Writes int
	// Window is the number of writes per reporting window, at most
	// Writes; 0 means DefaultWindow (or Writes, when fewer).
	Window int
	// SplitRows is the row count past which a region splits at its median
	// key (TiKV's 96 MiB scaled down), at least 2; 0 means
	// DefaultSplitRows.
	SplitRows int
	// Seed seeds the random shard bits; 0 means 1.
	Seed uint64
	// Start is the simulated clock's first reading; the zero time means
	// 2026-03-01T00:00:00Z.
	Start time.Time
}

// ErrConfig is returned by Run and Measure when a Config or Source field is
// out of range.
var ErrConfig = errors.New("invalid spread config")

// Normalize returns c with its zero fields set to their defaults, or an
// error wrapping ErrConfig that names the first field out of range (by the
// name of its shardid tidb spread flag) and what is allowed. Run and
// Measure call it; callers that check input early may too.
func (c Config) Normalize() (Config, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Rate, DefaultRate)
	def(&c.Writes, DefaultWrites)
	def(&c.Window, min(DefaultWindow, c.Writes))
	def(&c.SplitRows, DefaultSplitRows)
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Start.IsZero() {
		c.Start = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	}
	return c, c.Validate()
}

// Validate returns an error wrapping ErrConfig that names the first field
// out of range (by the name of its shardid tidb spread flag) and what is
// allowed. Unlike Normalize it takes zero literally, as out of range.
func (c Config) Validate() error {
	switch {
	case c.Rate < 1 || c.Rate > 1e9:
		return fmt.Errorf("%w: rate %d (allowed 1-1000000000 keys per second)", ErrConfig, c.Rate)
	case c.Writes < 1:
		return fmt.Errorf("%w: writes %d (allowed ≥ 1)", ErrConfig, c.Writes)
	case c.Window < 1 || c.Window > c.Writes:
		return fmt.Errorf("%w: window %d (allowed 1 to writes, %d)", ErrConfig, c.Window, c.Writes)
	case c.SplitRows < 2:
		return fmt.Errorf("%w: split-rows %d (allowed ≥ 2)", ErrConfig, c.SplitRows)
	}
	return nil
}

// Window is what one window of writes did.
type Window struct {
	// Start is the simulated time the window began, since the run's start.
	Start time.Duration
	// Regions is the number of regions when the window began.
	Regions int
	// Written is how many of them took at least one write in the window.
	Written int
	// Hottest is the share of the window's writes the busiest region took.
	Hottest float64
	// Effective is 1/Σshare², the number of equally loaded regions that
	// would give the same concentration: 1 for a single hot region, N for
	// writes spread evenly over N.
	Effective float64
}

// Result is a run's measurements.
type Result struct {
	// Source and Config are what was run.
	Source Source
	Config Config
	// Windows holds one measurement per time window, in order.
	Windows []Window
	// Regions is the number of regions at the end of the run.
	Regions int
}

// Steady averages the second half of the windows, after the first splits
// have shaped the key space.
func (r Result) Steady() Window {
	ws := r.Windows[len(r.Windows)/2:]
	var s Window
	if len(ws) == 0 {
		return s
	}
	s.Start = ws[0].Start
	for _, w := range ws {
		s.Regions += w.Regions
		s.Written += w.Written
		s.Hottest += w.Hottest
		s.Effective += w.Effective
	}
	n := len(ws)
	s.Regions = (s.Regions + n/2) / n
	s.Written = (s.Written + n/2) / n
	s.Hottest /= float64(n)
	s.Effective /= float64(n)
	return s
}

// Run measures src under cfg. It returns an error wrapping ErrConfig for
// an out-of-range field, or the key source's error.
func Run(src Source, cfg Config) (Result, error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return Result{}, err
	}
	next, err := keys(src, cfg)
	if err != nil {
		return Result{}, err
	}
	res, err := Measure(next, cfg)
	res.Source = src
	return res, err
}

// keys returns the key stream of src.
func keys(src Source, cfg Config) (func() (int64, error), error) {
	if err := src.Validate(); err != nil {
		return nil, err
	}
	switch src.Kind {
	case Raw, Rotated:
		digits := 0
		if src.Kind == Rotated {
			digits = src.Digits
		}
		now := cfg.Start
		interval := time.Second / time.Duration(cfg.Rate)
		g, err := shardid.NewGenerator(shardid.Settings{
			Clock: func() time.Time { return now },
			Sleep: func(d time.Duration) { now = now.Add(d) },
		})
		if err != nil {
			return nil, err
		}
		first := true
		return func() (int64, error) {
			if !first {
				now = now.Add(interval)
			}
			first = false
			id, err := g.Next()
			if err != nil || digits == 0 {
				return id, err
			}
			return rotate.Rotate(id, digits)
		}, nil
	case Shard:
		batch := max(src.Batch, 1)
		rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
		shift := 63 - src.ShardBits
		var row, shard int64
		return func() (int64, error) {
			if row%int64(batch) == 0 {
				shard = int64(rng.IntN(1 << src.ShardBits))
			}
			row++
			return shard<<shift | row, nil
		}, nil
	}
	panic("unreachable: Validate accepted kind " + src.String())
}

// Measure feeds cfg.Writes keys from next into a key space that starts as
// one region and splits the way TiKV does, and reports each window. Keys
// must be unique. It returns an error wrapping ErrConfig for an
// out-of-range field, or the first error from next.
func Measure(next func() (int64, error), cfg Config) (Result, error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return Result{}, err
	}
	res := Result{Config: cfg}
	var sp splitter
	sp.init(cfg.SplitRows)
	perKey := time.Second / time.Duration(cfg.Rate)
	for done := 0; done < cfg.Writes; {
		// Attribute this window's writes to the regions as they stand now.
		frozen := slices.Clone(sp.starts)
		counts := make([]int, len(frozen))
		w := Window{Start: time.Duration(done) * perKey, Regions: len(frozen)}
		n := min(cfg.Window, cfg.Writes-done)
		for range n {
			key, err := next()
			if err != nil {
				return res, fmt.Errorf("spread: key %d: %w", done, err)
			}
			counts[regionOf(frozen, key)]++
			sp.insert(key)
		}
		done += n
		best, sumSq := 0, 0.0
		for _, c := range counts {
			if c > 0 {
				w.Written++
			}
			best = max(best, c)
			share := float64(c) / float64(n)
			sumSq += share * share
		}
		w.Hottest = float64(best) / float64(n)
		w.Effective = 1 / sumSq
		res.Windows = append(res.Windows, w)
	}
	res.Regions = len(sp.starts)
	return res, nil
}

// regionOf returns the index of the region holding key: the last start ≤ key.
func regionOf(starts []int64, key int64) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > key }) - 1
}

// splitter is the key space: regions sorted by start key, each holding its
// keys until it passes maxRows and splits at its median.
type splitter struct {
	maxRows int
	starts  []int64   // starts[0] is the smallest int64
	keys    [][]int64 // keys of each region, unsorted until it splits
}

func (s *splitter) init(maxRows int) {
	s.maxRows = maxRows
	s.starts = []int64{-1 << 63}
	s.keys = [][]int64{make([]int64, 0, maxRows+1)}
}

func (s *splitter) insert(key int64) {
	i := regionOf(s.starts, key)
	s.keys[i] = append(s.keys[i], key)
	if len(s.keys[i]) <= s.maxRows {
		return
	}
	ks := s.keys[i]
	slices.Sort(ks)
	mid := len(ks) / 2
	right := make([]int64, len(ks)-mid, s.maxRows+1)
	copy(right, ks[mid:])
	s.keys[i] = ks[:mid:mid] // the left half no longer shares its array
	s.starts = slices.Insert(s.starts, i+1, ks[mid])
	s.keys = slices.Insert(s.keys, i+1, right)
}
