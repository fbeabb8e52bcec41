package migrate

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// WriteText writes r as shardid pg status prints it: a table of the
// shards (schema, shard id, version, mode, generator), under a shard the
// lines of what is wrong with it (an exhausted layout, a counter past its
// lead, other schemas holding its shard id), then what the census found
// beyond the shards (inventory.Census.WriteText), the dangerous
// privileges (privilege.DangerList.WriteText) and on a Citus coordinator
// the cluster (citus.Status.WriteText). asked says whether the caller
// named the generator's options: a generator differing from them is
// marked only then (see Err).
func (r Report) WriteText(w io.Writer, asked bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %-6s %-8s %-12s %s\n", "SCHEMA", "SHARD", "VERSION", "MODE", "GENERATOR")
	for _, s := range r.Statuses {
		s.writeRow(&b, asked)
	}
	for _, part := range []interface{ WriteText(io.Writer) error }{r.Census, r.Dangers, r.Citus} {
		if err := part.WriteText(&b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRow writes s's row of the pg status table and the lines under it.
func (s Status) writeRow(b *strings.Builder, asked bool) {
	gen, mode := "none", "-"
	if in := s.Installed; in != nil {
		mode = string(in.Mode)
		gen = fmt.Sprintf("shard %d, %d/%d/%d bits of %dms since %s", in.Shard, in.TimeBits,
			in.ShardBits, in.SeqBits, in.UnitMS, time.UnixMilli(in.EpochMS).UTC().Format(time.RFC3339Nano))
		if in.RouteBits > 0 {
			gen += fmt.Sprintf(", %d route bits", in.RouteBits)
		}
		if in.LeadMS > 0 {
			gen += ", lead " + in.Lead().String()
		}
		switch {
		case s.Upgradable:
			gen += "  (OUTDATED: applied by an older shardid, without next_id_bulk() and next_ids(); pg up replaces its body in place)"
		case s.Outdated:
			gen += "  (OUTDATED: applied by an older shardid, whose body lacks this release's fixes)"
		case !s.Matches && asked:
			gen += "  (differs from the requested options)"
		}
	}
	// A generator without a history in its schema was applied by goose
	// from a pg gen directory, whose history is that directory's.
	version := fmt.Sprint(s.Version)
	switch {
	case s.Version < 0:
		version = "?" // a history the role may not read (no USAGE on the schema)
	case s.Version == 0 && s.Installed != nil:
		version = "goose"
	}
	if s.Unreadable != "" {
		gen = "UNREADABLE: a counter beside a generator's objects, but " + s.Unreadable + "; it hands out IDs nobody can place: record its metadata (COMMENT ON SEQUENCE " + s.Shard.Schema + ".next_id_seq IS the metadata pg status --json shows where it came from; pg up over it then records next_id_meta())"
		mode = "?"
	}
	id := "?" // a counter whose jump function names no shard id
	if s.Shard.ID >= 0 {
		id = fmt.Sprint(s.Shard.ID)
	}
	fmt.Fprintf(b, "%-20s %-6s %-8s %-12s %s\n", s.Shard.Schema, id, version, mode, gen)
	if s.Exhausted {
		fmt.Fprintf(b, "%-20s %-6d EXHAUSTED: its layout ends at %s and the generator has no ID left: every draw raises \"time field exhausted\"; pg down it and bring the shard up with a layout of a later epoch\n",
			"", s.Shard.ID, s.Installed.LayoutOf().End().Format(time.RFC3339))
	} else if s.PastLead() {
		lead := "no lead (an older shardid)"
		if l := s.Installed.Lead(); l > 0 {
			lead = "its lead of " + l.String()
		}
		fmt.Fprintf(b, "%-20s %-6d AHEAD: the counter stands %s ahead of the clock, past %s: next_id() waits, then fails (SQLSTATE %s), until the clock catches up (nextval called on the counter directly, or a clock behind the one that drew it)\n",
			"", s.Shard.ID, s.Ahead.Round(time.Millisecond), lead, pgfunc.LeadExceededState)
	}
	// Elsewhere: other schemas holding this shard id. Beside a generator
	// here each is a copy; with none here, one is just the shard in
	// another schema (renamed, another schema format), two or more are
	// copies of each other.
	copied := s.Installed != nil || len(s.Elsewhere) > 1
	for _, e := range s.Elsewhere {
		where := e.Schema
		if e.Database != "" {
			where = e.Database + "." + e.Schema
		}
		if copied {
			fmt.Fprintf(b, "%-20s %-6d ALSO IN %s: two schemas with one shard id hand out the same IDs\n", "", s.Shard.ID, where)
		} else {
			fmt.Fprintf(b, "%-20s %-6d HELD BY %s instead (another schema format, or a renamed schema)\n", "", s.Shard.ID, where)
		}
	}
}
