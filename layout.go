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

// Layout describes how a 63-bit ID is split into a time field, a shard field,
// a sequence field and an optional route field, from the most significant
// bit down:
//
//	sign (always 0) | time: TimeBits | shard: ShardBits | sequence: SeqBits | route: RouteBits
//
// The widths total at most 64. IDs are signed 64-bit integers and are
// never negative, so a 64-bit layout such as Instagram's 41/13/10 gives up
// the top bit of its time field to the sign: its time field counts up to
// 2^(TimeBits-1)-1 ticks (UsableTimeBits), and generators report the time
// field exhausted rather than produce a negative ID.
//
// The route field (RouteBits, zero in every preset) carries a key's low
// bits, the "gene" of an order ID made for a user: Generator.NextFor(uid)
// puts uid mod 2^RouteBits there, so RouteOf(id) == RouteOf(uid) and the
// order is found in the same one of 2^RouteBits tables as its user, by
// either number. The route labels an ID; it adds no IDs: a generator's
// sequence is shared by every route, 2^SeqBits IDs per tick whatever the
// keys (see Generator.NextFor).
//
// The time field counts TimeUnit ticks since Epoch. One Layout value drives
// every generator and decoder in this module: the PostgreSQL functions
// rendered by package pgfunc and their SQL decode helpers, Compose and
// Decompose here, and the application-side Generator.
//
// A Layout is a plain value; copy it freely. Use a preset (Instagram,
// Snowflake, JS53, or LayoutByName), parse a spec (ParseLayout, the form
// String prints), or fill the fields and call Validate.
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
	// least 1 and together with RouteBits they are at most 64 (see
	// UsableTimeBits).
	TimeBits, ShardBits, SeqBits uint
	// RouteBits is the width of the route field below the sequence; zero
	// (every preset) means none.
	RouteBits uint
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
	// ErrRouteRange is returned by ComposeRoute and ComposeTicksRoute when a
	// route does not fit the route field (Layout.RouteOf maps any key into it).
	ErrRouteRange = errors.New("route out of range")
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
// parsers built on float64) reads it exactly: 37 bits of 10ms ticks (43.6
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
	if why := l.problem(time.Now()); why != "" {
		return fmt.Errorf("%w: %s", ErrInvalidLayout, why)
	}
	return nil
}

// problem names the first reason the layout cannot be used at now, or
// returns "".
func (l Layout) problem(now time.Time) string {
	total := l.TimeBits + l.ShardBits + l.SeqBits + l.RouteBits
	switch {
	case l.TimeBits < 1 || l.ShardBits < 1 || l.SeqBits < 1:
		return fmt.Sprintf("time, shard and sequence bits must each be at least 1 (got %d/%d/%d)", l.TimeBits, l.ShardBits, l.SeqBits)
	case (total > 64 || max(l.TimeBits, l.ShardBits, l.SeqBits) > 64) && l.RouteBits == 0:
		return fmt.Sprintf("time+shard+sequence bits must total at most 64, the top one being the sign (got %d+%d+%d=%d)", l.TimeBits, l.ShardBits, l.SeqBits, total)
	case total > 64 || max(l.TimeBits, l.ShardBits, l.SeqBits, l.RouteBits) > 64:
		return fmt.Sprintf("time+shard+sequence+route bits must total at most 64, the top one being the sign (got %d+%d+%d+%d=%d)", l.TimeBits, l.ShardBits, l.SeqBits, l.RouteBits, total)
	case l.TimeUnit < time.Millisecond || l.TimeUnit > time.Second || l.TimeUnit%time.Millisecond != 0:
		return fmt.Sprintf("time unit must be a whole number of milliseconds from 1ms to 1s (got %s)", l.TimeUnit)
	case l.Epoch.IsZero():
		return "epoch is not set"
	case epochProblem(l.Epoch, now) != "":
		return fmt.Sprintf("epoch %s is %s", l.Epoch.UTC().Format(time.RFC3339Nano), epochProblem(l.Epoch, now))
	}
	return ""
}

// epochProblem says why e cannot be an epoch at now, or returns "".
func epochProblem(e, now time.Time) string {
	switch {
	case e.UnixMilli() < 0:
		return "before 1970-01-01"
	case e.After(now):
		return "in the future"
	}
	return ""
}

// EpochMillis is the epoch as Unix milliseconds.
func (l Layout) EpochMillis() int64 { return l.Epoch.UnixMilli() }

// UnitMillis is the time unit in milliseconds.
func (l Layout) UnitMillis() int64 { return l.TimeUnit.Milliseconds() }

// MaxShard is the largest shard id the layout holds: 2^ShardBits-1.
func (l Layout) MaxShard() int64 { return 1<<l.ShardBits - 1 }

// MaxSeq is the largest sequence number the layout holds: 2^SeqBits-1.
func (l Layout) MaxSeq() int64 { return 1<<l.SeqBits - 1 }

// MaxRoute is the largest route the layout holds: 2^RouteBits-1, 0 for a
// layout without a route field.
func (l Layout) MaxRoute() int64 { return 1<<l.RouteBits - 1 }

// RouteOf is key mod 2^RouteBits, never negative (for a negative key too,
// as in Euclidean division): the route Generator.NextFor(key) puts in an
// ID. RouteOf(id) of such an ID is RouteOf(key), so an ID and its key pick
// the same one of 2^RouteBits tables. It is 0 without a route field.
func (l Layout) RouteOf(key int64) int64 { return key & l.MaxRoute() }

// UsableTimeBits is the number of time-field bits an ID can use while
// staying non-negative: TimeBits, or TimeBits-1 for a 64-bit layout.
func (l Layout) UsableTimeBits() uint {
	return min(l.TimeBits, 63-l.ShardBits-l.SeqBits-l.RouteBits)
}

// timeShift is where the time field begins: the widths below it.
func (l Layout) timeShift() uint { return l.ShardBits + l.SeqBits + l.RouteBits }

// shardShift is where the shard field begins.
func (l Layout) shardShift() uint { return l.SeqBits + l.RouteBits }

// MaxTicks is the largest value of the time field: 2^UsableTimeBits-1.
func (l Layout) MaxTicks() int64 { return 1<<l.UsableTimeBits() - 1 }

// MaxID is the largest ID the layout can produce.
func (l Layout) MaxID() int64 {
	return int64(uint64(math.MaxInt64) >> (63 - (l.UsableTimeBits() + l.timeShift())))
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

// ComposeTicks packs a time field value, shard and sequence into an ID,
// with route 0 in a layout that has a route field.
func (l Layout) ComposeTicks(ticks, shard, seq int64) (int64, error) {
	return l.ComposeTicksRoute(ticks, shard, seq, 0)
}

// ComposeTicksRoute packs a time field value, shard, sequence and route
// into an ID. It returns ErrRouteRange unless 0 <= route <= MaxRoute (use
// RouteOf to map a key), and ComposeTicks' errors.
func (l Layout) ComposeTicksRoute(ticks, shard, seq, route int64) (int64, error) {
	if ticks < 0 || ticks > l.MaxTicks() {
		return 0, fmt.Errorf("%w: tick %d (allowed 0-%d for %d time bits)", ErrTimeRange, ticks, l.MaxTicks(), l.TimeBits)
	}
	if err := l.CheckShard(shard); err != nil {
		return 0, err
	}
	if seq < 0 || seq > l.MaxSeq() {
		return 0, fmt.Errorf("%w: %d (allowed 0-%d for %d sequence bits)", ErrSeqRange, seq, l.MaxSeq(), l.SeqBits)
	}
	if route < 0 || route > l.MaxRoute() {
		return 0, fmt.Errorf("%w: %d (allowed 0-%d for %d route bits)", ErrRouteRange, route, l.MaxRoute(), l.RouteBits)
	}
	return ticks<<l.timeShift() | shard<<l.shardShift() | seq<<l.RouteBits | route, nil
}

// Compose packs an instant, shard and sequence into an ID, with route 0 in
// a layout that has a route field. The instant is rounded down to the
// layout's time unit.
func (l Layout) Compose(t time.Time, shard, seq int64) (int64, error) {
	return l.ComposeRoute(t, shard, seq, 0)
}

// ComposeRoute is Compose with a route (0..MaxRoute; RouteOf maps a key):
// l.ComposeRoute(t, shard, seq, l.RouteOf(uid)) is the ID whose route
// matches uid's.
func (l Layout) ComposeRoute(t time.Time, shard, seq, route int64) (int64, error) {
	ticks, err := l.Ticks(t)
	if err != nil {
		return 0, err
	}
	return l.ComposeTicksRoute(ticks, shard, seq, route)
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
	// Route is the route field (0 in a layout without one).
	Route int64
}

// Decompose takes an ID apart. It returns ErrNegativeID for a negative ID
// and ErrTimeRange for one with bits set above the layout's width.
func (l Layout) Decompose(id int64) (Parts, error) {
	if id < 0 {
		return Parts{}, fmt.Errorf("%w: %d", ErrNegativeID, id)
	}
	if id > l.MaxID() {
		return Parts{}, fmt.Errorf("%w: id %d is wider than the layout's %d bits", ErrTimeRange, id, l.UsableTimeBits()+l.timeShift())
	}
	ticks := id >> l.timeShift()
	return Parts{
		Time:  l.TickTime(ticks),
		Ticks: ticks,
		Shard: id >> l.shardShift() & l.MaxShard(),
		Seq:   id >> l.RouteBits & l.MaxSeq(),
		Route: id & l.MaxRoute(),
	}, nil
}

// Describe spells the layout out in one line, for comments and logs: its
// preset name (or its fields, as String writes them) and every field, e.g.
// "instagram (time 41 bits of 1ms since 2025-01-01T00:00:00Z, shard 13
// bits, sequence 10 bits)". The migrations package pgfunc renders carry it.
func (l Layout) Describe() string {
	name := l.Name
	if !l.isPreset() {
		name = l.fields()
	}
	route := ""
	if l.RouteBits > 0 {
		route = fmt.Sprintf(", route %d bits", l.RouteBits)
	}
	return fmt.Sprintf("%s (time %d bits of %s since %s, shard %d bits, sequence %d bits%s)",
		name, l.TimeBits, l.TimeUnit, l.Epoch.UTC().Format(time.RFC3339Nano), l.ShardBits, l.SeqBits, route)
}
