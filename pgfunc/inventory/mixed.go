package inventory

import (
	"fmt"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
)

// kind is what makes two generators' IDs comparable: everything of their
// metadata but the shard id, the layout's informational name and the lead
// (which bounds how far ahead of the clock IDs go, not which IDs a
// generator can make: the migration's own check leaves it out too).
func kind(m pgfunc.Meta) pgfunc.Meta {
	m.Shard, m.Layout, m.LeadMS = 0, "", 0
	return m
}

// layoutOf is the layout a generator's metadata records.
func layoutOf(m pgfunc.Meta) shardid.Layout { return m.LayoutOf() }

// WholeSpan is every ID the generator m describes can hand out over its
// whole life: from its layout's first tick to its last. A generator's
// first ID is not recorded anywhere, so this is what an existing
// generator, or a counter a down kept, is taken to cover.
func WholeSpan(m pgfunc.Meta) shardid.Span {
	l := layoutOf(m)
	return shardid.Span{Layout: l, Shard: m.Shard, FirstTick: 0, LastTick: l.MaxTicks()}
}

// SpanFrom is every ID the generator m describes can hand out from the
// instant from on, to its layout's end: a generator made at from, as long
// as the server's clock does not step back below from (mode unique's
// counter starts at the clock and only goes forward; the classic modes
// read the clock). It returns false when the layout has ended by from:
// such a generator hands out no ID at all (every draw raises).
func SpanFrom(m pgfunc.Meta, from time.Time) (shardid.Span, bool) {
	l := layoutOf(m)
	s := shardid.Span{Layout: l, Shard: m.Shard, LastTick: l.MaxTicks()}
	switch {
	case !from.Before(l.End()):
		return s, false
	case from.After(l.Epoch):
		s.FirstTick = (from.UnixMilli() - l.EpochMillis()) / l.UnitMillis()
	}
	return s, true
}

// Where names a generator's place on the server for messages.
func (in Installed) Where() string {
	w := "schema " + in.Schema
	if in.Database != "" {
		w += " of database " + in.Database
	}
	if in.Retired {
		w += " (a counter kept by pg down)"
	}
	return w
}

// CheckMixed checks the generator want, made now in schema sh of the
// Server's database, against every generator and kept counter of the
// server of another kind: without allowMixed any is refused, with it any
// whose IDs Overlap finds among those want can hand out. The error is an
// ErrMixedGenerators saying which one is in the way and why, and ending
// with hint: what the caller's user may do about it.
func (s *Inventory) CheckMixed(sh pgfunc.Shard, want pgfunc.Meta, allowMixed bool, hint string) error {
	var span shardid.Span
	seen := false
	for _, in := range s.all {
		if kind(in.Meta) == kind(want) || in.Database == "" && in.Schema == sh.Schema || in.Retired && in.Meta.Shard == sh.ID {
			continue // the same kind; this schema's own, or a kept counter of this shard id: compared whole (check, keptCounters)
		}
		if !allowMixed {
			return fmt.Errorf("%w: %s holds shard %d, %s; this generator is %s: one layout, epoch and mode per server, since generators of different layouts or epochs can hand out the same IDs (%s)",
				pgfunc.ErrMixedGenerators, in.Where(), in.Meta.Shard, DescribeKind(in.Meta), DescribeKind(want), hint)
		}
		if !seen {
			var live bool
			if span, live = SpanFrom(want, s.now); !live {
				return nil // it can hand out no ID: none can meet another's
			}
			seen = true
		}
		id, meet, err := shardid.Overlap(span, WholeSpan(in.Meta))
		switch {
		case err != nil:
			return fmt.Errorf("%w: %s: %w", pgfunc.ErrMixedGenerators, in.Where(), err)
		case meet:
			return fmt.Errorf("%w: %s holds shard %d, %s; this generator (%s) could hand out ID %d, which %s: refused even with AllowMixed",
				pgfunc.ErrMixedGenerators, in.Where(), in.Meta.Shard, DescribeKind(in.Meta), DescribeKind(want), id, madeBy(in.Meta, id))
		}
	}
	return nil
}

// DescribeKind renders a generator's layout, epoch and mode in one phrase.
func DescribeKind(m pgfunc.Meta) string {
	return fmt.Sprintf("mode %s, %d/%d/%d bits of %dms since %s", m.Mode, m.TimeBits, m.ShardBits, m.SeqBits,
		m.UnitMS, time.UnixMilli(m.EpochMS).UTC().Format(time.RFC3339Nano))
}

// madeBy says how generator m makes id.
func madeBy(m pgfunc.Meta, id int64) string {
	p, err := layoutOf(m).Decompose(id)
	if err != nil {
		return "the other makes too"
	}
	return fmt.Sprintf("the other makes at %s with sequence %d", p.Time.Format(time.RFC3339Nano), p.Seq)
}

// MixedPair is two generators (or kept counters) of different kinds on
// one server, and whether they can hand out the same ID.
type MixedPair struct {
	// A and B are the two.
	A, B Installed
	// Meet is true when an ID lies in both of their whole spans (ID is
	// the smallest such ID from the instant MixedAt was given on, when
	// both can still hand one out, else the smallest of their whole
	// lives); false when none does.
	Meet bool
	ID   int64
	// Ahead is true when both can still hand out ID: it lies at or past
	// the instant MixedAt was given (false for Mixed, and for a pair that
	// could only have met before it).
	Ahead bool
}

// Mixed is MixedAt without an instant: every ID is taken as still ahead.
func Mixed(gens []Installed) []MixedPair { return MixedAt(gens, time.Time{}) }

// MixedAt reports the kinds of generator (layout, epoch and mode) found
// among gens. With one kind or none it returns nil. Otherwise it returns,
// for each two kinds, every two generators, one of each, able to hand out
// the same ID over their whole lives (Meet true; ID the smallest both can
// still hand out from now on, Ahead true, when there is one), or, when no
// two of them can, one pair for the record (Meet false). Generators whose
// metadata is not a valid layout are left out.
func MixedAt(gens []Installed, now time.Time) []MixedPair {
	byKind := map[pgfunc.Meta][]Installed{}
	var kinds []pgfunc.Meta
	for _, g := range gens {
		k := kind(g.Meta)
		if layoutOf(g.Meta).Validate() != nil {
			continue
		}
		if _, ok := byKind[k]; !ok {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], g)
	}
	var out []MixedPair
	for i, ka := range kinds {
		for _, kb := range kinds[i+1:] {
			out = append(out, meetings(byKind[ka], byKind[kb], now)...)
		}
	}
	return out
}

// meetings finds every two generators, one of as and one of bs, that can
// hand out one ID, or returns the first two with Meet false.
func meetings(as, bs []Installed, now time.Time) []MixedPair {
	var out []MixedPair
	for _, a := range as {
		for _, b := range bs {
			id, meet, err := shardid.Overlap(WholeSpan(a.Meta), WholeSpan(b.Meta))
			if err != nil || !meet {
				continue
			}
			p := MixedPair{A: a, B: b, Meet: true, ID: id}
			sa, liveA := SpanFrom(a.Meta, now)
			sb, liveB := SpanFrom(b.Meta, now)
			if liveA && liveB {
				if id, meet, err := shardid.Overlap(sa, sb); err == nil && meet {
					p.ID, p.Ahead = id, true
				}
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return []MixedPair{{A: as[0], B: bs[0]}}
	}
	return out
}
