package shardid

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shardid/shardid/internal/quote"
)

// The layout spec grammar, read by ParseLayout and written by
// Layout.String:
//
//	spec   = preset [ "," epoch ]
//	       | time "," shard "," seq [ "," route ] [ "," epoch ]
//	preset = "instagram" | "snowflake" | "js53"
//	time   = "time:" width [ "@" unit ]
//	shard  = ( "shard" | "node" ) ":" width
//	seq    = "seq:" width
//	route  = "route:" width
//	epoch  = "epoch=" ( RFC 3339 | Unix milliseconds )
//
// width is a decimal number of bits; unit is a Go duration that is a whole
// number of milliseconds from 1ms to 1s (default 1ms); the epoch defaults
// to DefaultEpoch. Parts are separated by commas, with optional spaces
// around them.

// specFields are the fields of a spec in their order, from the top.
var specFields = []string{"time", "shard", "seq", "route"}

// ParseLayout reads a layout: a preset name, or the field widths from the
// top with the time unit and, optionally, the epoch:
//
//	instagram                                  the preset (also snowflake, js53)
//	instagram,epoch=2019-01-01T00:00:00Z       a preset with another epoch
//	time:41,shard:13,seq:10                    1 ms ticks since DefaultEpoch
//	time:28@1s,node:22,seq:13                  1 s ticks; node is another name for shard
//	time:37@10ms,shard:8,seq:8,epoch=1735689600000
//	time:41,node:6,seq:12,route:4,epoch=0      4 route bits below the sequence
//
// The fields come in the order time, shard (or node: the same field; shard
// is the name String writes), seq, then the optional route; the epoch, as
// ParseEpoch reads it, comes last. The empty string is the default layout,
// Instagram. The result is validated (Layout.Validate). A spec names no
// preset, so its Layout.Name is empty even when its fields match one.
//
// It returns an error wrapping ErrUnknownLayout for a word that is not a
// preset name, or ErrInvalidLayout, naming the part at fault and what is
// allowed: an unknown, repeated or misplaced field, a missing one, a width
// of zero, widths totalling more than 64, a unit that is not a whole number
// of milliseconds from 1ms to 1s, an epoch that does not parse, lies before
// 1970 or in the future.
func ParseLayout(s string) (Layout, error) {
	l, _, err := parseLayout(s, time.Now())
	return l, err
}

// ParseLayoutEpoch reads a layout and an epoch given apart, as the CLI's
// --layout and --epoch and the shard map's layout and epoch keys give
// them: epoch, unless empty, replaces the layout's epoch, and must equal
// the one spec names with epoch= if it names one. It returns ParseLayout's
// errors for spec, and an error wrapping ErrInvalidEpoch when epoch does
// not parse, differs from the spec's own or cannot be the layout's (before
// 1970, in the future).
func ParseLayoutEpoch(spec, epoch string) (Layout, error) {
	now := time.Now()
	l, named, err := parseLayout(spec, now)
	if err != nil || epoch == "" {
		return l, err
	}
	e, err := ParseEpoch(epoch)
	if err != nil {
		return l, err
	}
	if named && !e.Equal(l.Epoch) {
		return l, fmt.Errorf("%w %q: the layout %q names epoch %s; give the epoch once", ErrInvalidEpoch, epoch, spec, l.Epoch.Format(time.RFC3339Nano))
	}
	if why := epochProblem(e, now); why != "" {
		return l, fmt.Errorf("%w %q: %s (allowed: from 1970-01-01 to now)", ErrInvalidEpoch, epoch, why)
	}
	l.Epoch = e
	return l, nil
}

// parseLayout is ParseLayout, reporting whether the spec names an epoch.
func parseLayout(s string, now time.Time) (l Layout, named bool, err error) {
	bad := func(format string, args ...any) (Layout, bool, error) {
		return Layout{}, false, fmt.Errorf("%w %q: %s", ErrInvalidLayout, s, quote.Controls(fmt.Sprintf(format, args...)))
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if last := parts[len(parts)-1]; strings.HasPrefix(last, "epoch=") {
		e, err := ParseEpoch(strings.TrimPrefix(last, "epoch="))
		if err != nil {
			return bad("%s: want RFC 3339 (2019-01-01T00:00:00Z) or Unix milliseconds", last)
		}
		l.Epoch, named = e, true
		if parts = parts[:len(parts)-1]; len(parts) == 0 || len(parts) == 1 && parts[0] == "" {
			return bad("%s: an epoch follows a preset name or the fields (e.g. instagram,epoch=2019-01-01T00:00:00Z)", last)
		}
	}
	if len(parts) == 1 && !strings.ContainsAny(parts[0], ":=@") {
		name := cmp.Or(parts[0], "instagram")
		preset, ok := presets[name]
		if !ok {
			return Layout{}, false, fmt.Errorf("%w %q (allowed: %s, or fields from the top such as time:41,shard:13,seq:10)", ErrUnknownLayout, name, strings.Join(LayoutNames(), ", "))
		}
		epoch := l.Epoch
		l = preset()
		if named {
			l.Epoch = epoch
		}
	} else {
		l.Epoch, l.TimeUnit = cmp.Or(l.Epoch, DefaultEpoch()), time.Millisecond
		if err := l.parseFields(parts); err != "" {
			return bad("%s", err)
		}
	}
	if why := l.problem(now); why != "" {
		return bad("%s", why)
	}
	return l, named, nil
}

// parseFields reads the fields of a spec (its epoch taken off) into l, or
// names the first problem.
func (l *Layout) parseFields(parts []string) string {
	type field struct {
		part, name, width, unit string
		hasUnit                 bool
		idx                     int
	}
	var fs []field
	seen := map[string]bool{}
	for _, part := range parts {
		name, width, ok := strings.Cut(part, ":")
		switch {
		case part == "":
			return "an empty part (one comma too many?)"
		case strings.HasPrefix(part, "epoch="):
			return part + ": epoch= comes last, once"
		case !ok && presets[part] != nil:
			return fmt.Sprintf("%s: a preset name stands alone (or with epoch=); write the fields for another split, e.g. %s", part, presets[part]().fields())
		case !ok:
			return part + ": want field:bits (e.g. seq:10)"
		}
		if name == "node" {
			name = "shard"
		}
		f := field{part: part, name: name, idx: slices.Index(specFields, name)}
		f.width, f.unit, f.hasUnit = strings.Cut(width, "@")
		switch {
		case f.idx < 0:
			return fmt.Sprintf("%s: unknown field %q (allowed, from the top: time, shard or node, seq, route; then epoch=)", part, name)
		case seen[name]:
			return fmt.Sprintf("%s: field %s given twice (node and shard are one field)", part, name)
		case len(fs) > 0 && fs[len(fs)-1].idx > f.idx:
			return fmt.Sprintf("%s: %s must come before %s (fields go from the top: time, shard, seq, route)", part, name, fs[len(fs)-1].name)
		}
		seen[name] = true
		fs = append(fs, f)
	}
	for _, name := range specFields[:3] {
		if !seen[name] {
			return fmt.Sprintf("field %s is missing (required, from the top: time, shard or node, seq; route is optional)", name)
		}
	}
	for _, f := range fs {
		bits, err := strconv.ParseUint(f.width, 10, 64)
		what := map[string]string{"time": "a time field", "shard": "a shard field", "seq": "a sequence", "route": "a route field (leave it out for none)"}[f.name]
		switch {
		case err != nil:
			return fmt.Sprintf("%s: width %q is not a whole number of bits", f.part, f.width)
		case bits == 0:
			return fmt.Sprintf("%s: %s needs at least 1 bit", f.part, what)
		case bits > 64:
			return fmt.Sprintf("%s: %d bits is more than an ID has (64, the top one being the sign)", f.part, bits)
		case f.hasUnit && f.name != "time":
			return fmt.Sprintf("%s: only time takes a unit (e.g. time:28@1s)", f.part)
		}
		switch f.name {
		case "time":
			l.TimeBits = uint(bits)
			if f.hasUnit {
				d, err := time.ParseDuration(f.unit)
				if err != nil || d < time.Millisecond || d > time.Second || d%time.Millisecond != 0 {
					return fmt.Sprintf("%s: unit %q is not a whole number of milliseconds from 1ms to 1s (e.g. 1ms, 10ms, 1s)", f.part, f.unit)
				}
				l.TimeUnit = d
			}
		case "shard":
			l.ShardBits = uint(bits)
		case "seq":
			l.SeqBits = uint(bits)
		case "route":
			l.RouteBits = uint(bits)
		}
	}
	return ""
}

// String writes the layout in the grammar ParseLayout reads, so that
// ParseLayout(l.String()) == l for a valid layout whose epoch is in UTC and
// whose Name is empty or the preset its fields match. A preset prints as
// its name, the shortest spec that says it, and as what a user who chose it
// typed; any other layout as its fields (shard, never node; the unit only
// when it is not 1ms). The epoch follows as epoch= when it is not
// DefaultEpoch.
func (l Layout) String() string {
	s := l.fields()
	if l.isPreset() {
		s = l.Name
	}
	if !l.Epoch.Equal(DefaultEpoch()) {
		s += ",epoch=" + l.Epoch.UTC().Format(time.RFC3339Nano)
	}
	return s
}

// fields writes the layout's fields, without a name or epoch.
func (l Layout) fields() string {
	unit := ""
	if l.TimeUnit != time.Millisecond {
		unit = "@" + l.TimeUnit.String()
	}
	s := fmt.Sprintf("time:%d%s,shard:%d,seq:%d", l.TimeBits, unit, l.ShardBits, l.SeqBits)
	if l.RouteBits > 0 {
		s += fmt.Sprintf(",route:%d", l.RouteBits)
	}
	return s
}

// isPreset reports whether the layout is the preset its Name names, the
// epoch aside.
func (l Layout) isPreset() bool {
	p, ok := presets[l.Name]
	if !ok {
		return false
	}
	want := p()
	want.Epoch = l.Epoch
	return l == want
}
