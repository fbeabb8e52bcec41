package inventory

import (
	"fmt"
	"slices"
)

// This file answers the questions a status asks of a Census beyond the
// shards it was asked about.

// Where names in's schema as database.schema, its database the Census's
// own when in.Database is empty.
func (c Census) Where(in Installed) string {
	if in.Database == "" {
		return c.Database + "." + in.Schema
	}
	return in.Database + "." + in.Schema
}

// HeldElsewhere returns, in shard id order, every shard id whose
// generators stand in two schemas or more, none of them in the Census's
// own database (a status's table lists those): each entry holds the
// generators of one shard id. Two schemas with one shard id hand out the
// same IDs.
func (c Census) HeldElsewhere() [][]Installed {
	byShard := map[int64][]Installed{}
	var ids []int64
	for _, in := range c.Generators {
		if len(byShard[in.Meta.Shard]) == 0 {
			ids = append(ids, in.Meta.Shard)
		}
		byShard[in.Meta.Shard] = append(byShard[in.Meta.Shard], in)
	}
	slices.Sort(ids)
	var out [][]Installed
	for _, id := range ids {
		held := byShard[id]
		if len(held) < 2 || slices.ContainsFunc(held, func(in Installed) bool { return in.Database == "" }) {
			continue // once, or in this database too
		}
		out = append(out, held)
	}
	return out
}

// TemplateHolding is a template database (other than the Census's own)
// that holds generators: every CREATE DATABASE from it copies them.
type TemplateHolding struct {
	// Database is the template's name.
	Database string
	// Generators are "schema (shard N)", one per generator it holds.
	Generators []string
}

// InTemplates returns the template databases of Templates, in their
// order, that hold generators.
func (c Census) InTemplates() []TemplateHolding {
	held := map[string][]string{}
	for _, in := range c.Generators {
		if in.Database != "" && slices.Contains(c.Templates, in.Database) {
			held[in.Database] = append(held[in.Database], fmt.Sprintf("%s (shard %d)", in.Schema, in.Meta.Shard))
		}
	}
	var out []TemplateHolding
	for _, name := range c.Templates {
		if len(held[name]) > 0 {
			out = append(out, TemplateHolding{Database: name, Generators: held[name]})
		}
	}
	return out
}

// Mixed is MixedAt of every generator and kept counter of the Census, at
// its Now: the pairs of generators of different kinds on the server.
func (c Census) Mixed() []MixedPair {
	return MixedAt(append(slices.Clone(c.Generators), c.Retired...), c.Now)
}
