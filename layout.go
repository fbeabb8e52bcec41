package shardid

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultEpochMillis is the custom epoch of every preset, in Unix
// milliseconds: 2025-01-01T00:00:00Z. A recent epoch gives the time field
// its whole range ahead of us (41 bits of milliseconds last 69 years). It is
// a constant, so no code can change what the presets mean; set
// Layout.Epoch for another epoch.
const DefaultEpochMillis = 1735689600000

// DefaultEpoch returns DefaultEpochMillis as a time in UTC.
func DefaultEpoch() time.Time { return time.UnixMilli(DefaultEpochMillis).UTC() }

// Layout describes how a 63-bit ID is split into a time field, a shard field
// and a sequence field, from the most significant bit down:
//
//	sign (always 0) | time: TimeBits | shard: ShardBits | sequence: SeqBits
//
// The three widths total at most 64. IDs are signed 64-bit integers and are
// never negative, so a 64-bit layout such as Instagram's 41/13/10 gives up
// the top bit of its time field to the sign: its time field counts up to
// 2^(TimeBits-1)-1 ticks (UsableTimeBits), and generators report the time
// field exhausted rather than produce a negative ID.
//
// The time field counts TimeUnit ticks since Epoch. One Layout value drives
// every generator and decoder in this module: the PostgreSQL functions
// rendered by package pgfunc and their SQL decode helpers, Compose and
// Decompose here, and the application-side Generator.
//
// A Layout is a plain value; copy it freely. Use a preset (Instagram,
// Snowflake, JS53, or LayoutByName) or fill the fields and call Validate.
type Layout struct {
	// Name is informational: the preset this layout came from, or empty.
	Name string
	// Epoch is the instant the time field counts from. It must not be in
	// the future and is truncated to whole milliseconds.
	Epoch time.Time
	// TimeUnit is the length of one tick of the time field: a whole number
	// of milliseconds from 1ms to 1s.
	TimeUnit time.Duration
	// TimeBits, ShardBits and SeqBits are the field widths. Each is at
	// least 1 and together they are at most 64 (see UsableTimeBits).
	TimeBits, ShardBits, SeqBits uint
}

// Sentinel errors returned by Layout.Validate, Compose, Decompose and the
// parsing helpers. Check them with errors.Is; the wrapped message names the
// offending value and what is allowed.
var (
	// ErrInvalidLayout is returned by Validate when a field width, the time
	// unit or the epoch is out of range.
	ErrInvalidLayout = errors.New("invalid layout")
	// ErrUnknownLayout is returned by LayoutByName for a name that is not a preset.
	ErrUnknownLayout = errors.New("unknown layout")
	// ErrShardRange is returned when a shard id does not fit the layout's shard field.
	ErrShardRange = errors.New("shard id out of range")
	// ErrSeqRange is returned by Compose when a sequence number does not fit the sequence field.
	ErrSeqRange = errors.New("sequence out of range")
	// ErrTimeRange is returned by Compose when an instant lies before the epoch
	// or past the last tick the time field can hold.
	ErrTimeRange = errors.New("time out of range")
	// ErrNegativeID is returned by Decompose for a negative ID, which no
	// layout produces.
	ErrNegativeID = errors.New("negative id")
	// ErrInvalidEpoch is returned by ParseEpoch for text that is neither
	// RFC 3339 nor Unix milliseconds.
	ErrInvalidEpoch = errors.New("invalid epoch")
)

// Instagram is the layout of Instagram's sharded PostgreSQL IDs and the
// default of this module: 41 bits of milliseconds, 13 bits of
// logical shard (8192 shards) and 10 bits of sequence (1024 IDs per
// millisecond per shard before the generator borrows the next millisecond).
// The 41+13+10 bits fill all 64, so the time field's top bit is the sign:
// IDs stay positive for 2^40 ms (34.8 years) after the epoch.
func Instagram() Layout {
	return Layout{Name: "instagram", Epoch: DefaultEpoch(), TimeUnit: time.Millisecond, TimeBits: 41, ShardBits: 13, SeqBits: 10}
}

// Snowflake is Twitter Snowflake's layout: 41 bits of milliseconds, 10 bits
// of node (often split as 5 bits of datacenter and 5 of worker) and 12 bits
// of sequence (4096 IDs per millisecond per node).
func Snowflake() Layout {
	return Layout{Name: "snowflake", Epoch: DefaultEpoch(), TimeUnit: time.Millisecond, TimeBits: 41, ShardBits: 10, SeqBits: 12}
}

// JS53 keeps every ID at or below 2^53-1, so JavaScript's Number (and JSON
// parsers built on float64) reads it exactly: 37 bits of 10ms ticks (43.5
// years), 8 bits of shard (256 shards) and 8 bits of sequence (256 IDs per
// 10ms, 25,600 per second per shard, before borrowing).
func JS53() Layout {
	return Layout{Name: "js53", Epoch: DefaultEpoch(), TimeUnit: 10 * time.Millisecond, TimeBits: 37, ShardBits: 8, SeqBits: 8}
}

var presets = map[string]func() Layout{
	"instagram": Instagram,
	"snowflake": Snowflake,
	"js53":      JS53,
}

// LayoutNames lists the preset names LayoutByName accepts, sorted.
func LayoutNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LayoutByName returns the preset with that name ("" means "instagram").
// It returns ErrUnknownLayout for any other name.
func LayoutByName(name string) (Layout, error) {
	if name == "" {
		name = "instagram"
	}
	f, ok := presets[name]
	if !ok {
		return Layout{}, fmt.Errorf("%w %q (allowed: %s)", ErrUnknownLayout, name, strings.Join(LayoutNames(), ", "))
	}
	return f(), nil
}

// ParseEpoch reads an epoch written as RFC 3339 ("2025-01-01T00:00:00Z") or
// as Unix milliseconds ("1735689600000"). It returns ErrInvalidEpoch for
// anything else.
func ParseEpoch(s string) (time.Time, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		if ms < 0 {
			return time.Time{}, fmt.Errorf("%w %q: Unix milliseconds must not be negative", ErrInvalidEpoch, s)
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w %q: want RFC 3339 (2025-01-01T00:00:00Z) or Unix milliseconds", ErrInvalidEpoch, s)
	}
	return t.UTC(), nil
}

// Validate reports whether the layout can be used, returning an error
// wrapping ErrInvalidLayout that names the first problem found.
func (l Layout) Validate() error {
	return l.validateAt(time.Now())
}

func (l Layout) validateAt(now time.Time) error {
	switch {
	case l.TimeBits < 1 || l.ShardBits < 1 || l.SeqBits < 1:
		return fmt.Errorf("%w: time, shard and sequence bits must each be at least 1 (got %d/%d/%d)", ErrInvalidLayout, l.TimeBits, l.ShardBits, l.SeqBits)
	case l.TimeBits+l.ShardBits+l.SeqBits > 64:
		return fmt.Errorf("%w: time+shard+sequence bits must total at most 64, the top one being the sign (got %d+%d+%d=%d)", ErrInvalidLayout, l.TimeBits, l.ShardBits, l.SeqBits, l.TimeBits+l.ShardBits+l.SeqBits)
	case l.TimeUnit < time.Millisecond || l.TimeUnit > time.Second || l.TimeUnit%time.Millisecond != 0:
		return fmt.Errorf("%w: time unit must be a whole number of milliseconds from 1ms to 1s (got %s)", ErrInvalidLayout, l.TimeUnit)
	case l.Epoch.IsZero():
		return fmt.Errorf("%w: epoch is not set", ErrInvalidLayout)
	case l.Epoch.UnixMilli() < 0:
		return fmt.Errorf("%w: epoch %s is before 1970-01-01", ErrInvalidLayout, l.Epoch.Format(time.RFC3339Nano))
	case l.Epoch.After(now):
		return fmt.Errorf("%w: epoch %s is in the future", ErrInvalidLayout, l.Epoch.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// EpochMillis is the epoch as Unix milliseconds.
func (l Layout) EpochMillis() int64 { return l.Epoch.UnixMilli() }

// UnitMillis is the time unit in milliseconds.
func (l Layout) UnitMillis() int64 { return l.TimeUnit.Milliseconds() }

// MaxShard is the largest shard id the layout holds: 2^ShardBits-1.
func (l Layout) MaxShard() int64 { return 1<<l.ShardBits - 1 }

// MaxSeq is the largest sequence number the layout holds: 2^SeqBits-1.
func (l Layout) MaxSeq() int64 { return 1<<l.SeqBits - 1 }

// UsableTimeBits is the number of time-field bits an ID can use while
// staying non-negative: TimeBits, or TimeBits-1 for a 64-bit layout.
func (l Layout) UsableTimeBits() uint {
	return min(l.TimeBits, 63-l.ShardBits-l.SeqBits)
}

// MaxTicks is the largest value of the time field: 2^UsableTimeBits-1.
func (l Layout) MaxTicks() int64 { return 1<<l.UsableTimeBits() - 1 }

// MaxID is the largest ID the layout can produce.
func (l Layout) MaxID() int64 {
	return int64(uint64(math.MaxInt64) >> (63 - (l.UsableTimeBits() + l.ShardBits + l.SeqBits)))
}

// End is the first instant the time field can no longer represent.
func (l Layout) End() time.Time {
	return time.UnixMilli(l.EpochMillis() + (l.MaxTicks()+1)*l.UnitMillis()).UTC()
}

// CheckShard returns an error wrapping ErrShardRange unless 0 <= shard <= MaxShard.
func (l Layout) CheckShard(shard int64) error {
	if shard < 0 || shard > l.MaxShard() {
		return fmt.Errorf("%w: %d (allowed 0-%d for %d shard bits)", ErrShardRange, shard, l.MaxShard(), l.ShardBits)
	}
	return nil
}

// Ticks returns the number of whole time units between the epoch and t,
// rounding down. It returns ErrTimeRange if t is before the epoch or past
// the time field's range.
func (l Layout) Ticks(t time.Time) (int64, error) {
	ms := t.UnixMilli() - l.EpochMillis()
	if ms < 0 {
		return 0, fmt.Errorf("%w: %s is before the epoch %s", ErrTimeRange, t.UTC().Format(time.RFC3339Nano), l.Epoch.UTC().Format(time.RFC3339Nano))
	}
	ticks := ms / l.UnitMillis()
	if ticks > l.MaxTicks() {
		return 0, fmt.Errorf("%w: %s is past the layout's end %s", ErrTimeRange, t.UTC().Format(time.RFC3339Nano), l.End().Format(time.RFC3339Nano))
	}
	return ticks, nil
}

// TickTime returns the instant at which tick number ticks begins.
func (l Layout) TickTime(ticks int64) time.Time {
	return time.UnixMilli(l.EpochMillis() + ticks*l.UnitMillis()).UTC()
}

// ComposeTicks packs a time field value, shard and sequence into an ID.
func (l Layout) ComposeTicks(ticks, shard, seq int64) (int64, error) {
	if ticks < 0 || ticks > l.MaxTicks() {
		return 0, fmt.Errorf("%w: tick %d (allowed 0-%d for %d time bits)", ErrTimeRange, ticks, l.MaxTicks(), l.TimeBits)
	}
	if err := l.CheckShard(shard); err != nil {
		return 0, err
	}
	if seq < 0 || seq > l.MaxSeq() {
		return 0, fmt.Errorf("%w: %d (allowed 0-%d for %d sequence bits)", ErrSeqRange, seq, l.MaxSeq(), l.SeqBits)
	}
	return ticks<<(l.ShardBits+l.SeqBits) | shard<<l.SeqBits | seq, nil
}

// Compose packs an instant, shard and sequence into an ID. The instant is
// rounded down to the layout's time unit.
func (l Layout) Compose(t time.Time, shard, seq int64) (int64, error) {
	ticks, err := l.Ticks(t)
	if err != nil {
		return 0, err
	}
	return l.ComposeTicks(ticks, shard, seq)
}

// Parts is an ID taken apart by Layout.Decompose.
type Parts struct {
	// Time is the start of the ID's tick, in UTC.
	Time time.Time
	// Ticks is the raw time field.
	Ticks int64
	// Shard is the shard (or node) field.
	Shard int64
	// Seq is the sequence field.
	Seq int64
}

// Decompose takes an ID apart. It returns ErrNegativeID for a negative ID
// and ErrTimeRange for one with bits set above the layout's width.
func (l Layout) Decompose(id int64) (Parts, error) {
	if id < 0 {
		return Parts{}, fmt.Errorf("%w: %d", ErrNegativeID, id)
	}
	if id > l.MaxID() {
		return Parts{}, fmt.Errorf("%w: id %d is wider than the layout's %d bits", ErrTimeRange, id, l.UsableTimeBits()+l.ShardBits+l.SeqBits)
	}
	ticks := id >> (l.ShardBits + l.SeqBits)
	return Parts{
		Time:  l.TickTime(ticks),
		Ticks: ticks,
		Shard: id >> l.SeqBits & l.MaxShard(),
		Seq:   id & l.MaxSeq(),
	}, nil
}

// String describes the layout in one line, for logs and CLI output.
func (l Layout) String() string {
	name := l.Name
	if name == "" {
		name = "custom"
	}
	return fmt.Sprintf("%s (time %d bits of %s since %s, shard %d bits, sequence %d bits)",
		name, l.TimeBits, l.TimeUnit, l.Epoch.UTC().Format(time.RFC3339Nano), l.ShardBits, l.SeqBits)
}
