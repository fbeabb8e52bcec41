package script

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// order puts each table after the tables of the scripts its FOREIGN KEYs
// reference, otherwise in script order, as TiDB (and MySQL with
// FOREIGN_KEY_CHECKS on) creates a FOREIGN KEY only to a table that
// exists. A table placed after one that comes later in the scripts is
// noted as moved, naming the tables it waits for. A cycle (a references
// b, b references a) is broken at its table that comes first in the
// scripts: its FOREIGN KEYs to the other tables of the cycle move to
// Script.ForeignKeys, to be added once every table exists.
func (r *scriptReader) order() error {
	s := r.s
	pos := map[string]int{}
	for i, t := range s.Tables {
		pos[t.Key()] = i
	}
	refs := func(t *Table) []string {
		var out []string
		for _, ix := range t.Indexes {
			if k := ReferenceKey(t, ix); k != "" && k != t.Key() {
				if _, ok := pos[k]; ok && !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
		return out
	}
	placed, moved := map[string]bool{}, map[string]bool{}
	var out []*Table
	rest := slices.Clone(s.Tables)
	for len(rest) > 0 {
		i := slices.IndexFunc(rest, func(t *Table) bool {
			return !slices.ContainsFunc(refs(t), func(k string) bool { return !placed[k] })
		})
		if i < 0 {
			r.breakCycle(rest, refs, placed)
			continue
		}
		t := rest[i]
		var waits []string
		for _, k := range refs(t) {
			if pos[k] > pos[t.Key()] || moved[k] {
				waits = append(waits, s.Tables[pos[k]].QualifiedName())
			}
		}
		if len(waits) > 0 {
			moved[t.Key()] = true
			r.s.Notes = append(r.s.Notes, fmt.Sprintf("%s: CREATE TABLE %s moved after %s: its FOREIGN KEYs reference %s", r.whereTable(t), t.QualifiedName(), strings.Join(waits, ", "), map[bool]string{true: "them", false: "it"}[len(waits) > 1]))
		}
		placed[t.Key()] = true
		out = append(out, t)
		rest = slices.Delete(rest, i, i+1)
	}
	s.Tables = out
	return nil
}

// breakCycle finds the first table of rest (script order) that lies on a
// cycle of references among the tables not yet placed, and moves its
// FOREIGN KEYs that point into the cycle to Script.ForeignKeys.
func (r *scriptReader) breakCycle(rest []*Table, refs func(*Table) []string, placed map[string]bool) {
	byKey := map[string]*Table{}
	for _, t := range rest {
		byKey[t.Key()] = t
	}
	// reaches reports whether from leads back to target through tables
	// not yet placed.
	reaches := func(from, target string) bool {
		seen := map[string]bool{}
		stack := []string{from}
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if k == target {
				return true
			}
			if seen[k] || placed[k] || byKey[k] == nil {
				continue
			}
			seen[k] = true
			stack = append(stack, refs(byKey[k])...)
		}
		return false
	}
	for _, t := range rest {
		var keep []Index
		var closing []string
		for _, ix := range t.Indexes {
			k := ReferenceKey(t, ix)
			if k != "" && k != t.Key() && !placed[k] && byKey[k] != nil && reaches(k, t.Key()) {
				r.s.ForeignKeys = append(r.s.ForeignKeys, &ForeignKey{Table: t, Key: ix})
				closing = append(closing, fmt.Sprintf("%s (→ %s)", cmp.Or(foreignKeyName(ix), "(unnamed)"), byKey[k].QualifiedName()))
				continue
			}
			keep = append(keep, ix)
		}
		if len(closing) == 0 {
			continue
		}
		t.Indexes = keep
		r.s.Notes = append(r.s.Notes, fmt.Sprintf("%s: FOREIGN KEY %s of %s closes a cycle of FOREIGN KEYs: added by ALTER TABLE once every table exists", r.whereTable(t), strings.Join(closing, ", "), t.QualifiedName()))
		return
	}
}

// whereTable names the line (and file) a table starts on.
func (r *scriptReader) whereTable(t *Table) string {
	if t.File != "" {
		return fmt.Sprintf("%s: line %d", t.File, t.Line)
	}
	return fmt.Sprintf("line %d", t.Line)
}

// Key is the table's name for lookups: schema.name, lower-cased.
func (t *Table) Key() string { return strings.ToLower(t.QualifiedName()) }

// ReferenceKey is the lookup name of the table a FOREIGN KEY references
// ("" for other clauses); an unqualified reference is in the table's own
// schema.
func ReferenceKey(t *Table, ix Index) string {
	if ix.References == "" {
		return ""
	}
	r := ix.References
	if ix.ReferencesSchema != "" {
		r = ix.ReferencesSchema + "." + r
	} else if t.Schema != "" {
		r = t.Schema + "." + r
	}
	return strings.ToLower(r)
}

// foreignKeyName is the CONSTRAINT name of a FOREIGN KEY clause, or "".
func foreignKeyName(ix Index) string { return ix.Name }
