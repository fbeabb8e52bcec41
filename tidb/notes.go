package tidb

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Note is one line of what a rendering did.
type Note struct {
	// Kind is "changed", "cost", "warning" or "note".
	Kind string
	// Table is the table it is about ("" for the plan's own notes).
	Table string
	// Text says it.
	Text string
}

// rank orders the notes that matter first: a table that would refuse its
// inserts (rendered otherwise), then the hotspots left, what the
// rendering costs its readers, what it changed, and the rest.
func (n Note) rank() int {
	switch {
	case strings.Contains(n.Text, "every insert would fail"):
		return 0
	case n.Kind == "warning":
		return 1
	case n.Kind == "cost":
		return 2
	case n.Kind == "changed":
		return 3
	}
	return 4
}

// AllNotes lists every note of p: each table's changes, costs, key
// warnings and warnings, then the plan's notes.
func (p *Plan) AllNotes() []Note {
	var out []Note
	for _, d := range p.Tables {
		name := d.Table.QualifiedName()
		for _, n := range d.Notes {
			out = append(out, Note{"changed", name, n})
		}
		for _, n := range d.Costs {
			out = append(out, Note{"cost", name, n})
		}
		for _, n := range append(slices.Clone(d.KeyWarnings), d.Warnings...) {
			out = append(out, Note{"warning", name, n})
		}
	}
	for _, n := range p.Notes {
		out = append(out, Note{"note", "", n})
	}
	return out
}

// NoteGroup is the notes of one kind that say the same thing of different
// tables, columns or lines.
type NoteGroup struct {
	// First is the first note of the group, the example.
	First Note
	// Tables are the tables the group's notes are about, in order.
	Tables []string
	// Count is how many notes the group holds.
	Count int
}

// nameToken matches a name or a number inside a note.
var nameToken = regexp.MustCompile(`[\pL\pN_$]+`)

// NoteGroups groups the notes of p by kind and shape (their text with the
// names of the plan's tables, columns, indexes and objects, and every
// number, blotted out), the group that matters first: a table that would
// refuse its inserts, then the hotspots left, the costs, the changes, the
// rest.
func (p *Plan) NoteGroups() []NoteGroup {
	names := map[string]bool{}
	name := func(s string) {
		for _, w := range nameToken.FindAllString(s, -1) {
			names[strings.ToLower(w)] = true
		}
	}
	for _, d := range p.Tables {
		name(d.Table.QualifiedName())
		name(d.Table.File)
		for _, c := range d.Table.Columns {
			name(c.Name)
		}
		for _, ix := range d.Table.Indexes {
			name(ix.Name)
		}
	}
	for _, group := range [][]*Step{p.ForeignKeys, p.Steps} {
		for _, st := range group {
			name(st.Object)
		}
	}
	for _, st := range p.ByHand {
		name(st.Object)
		name(st.File)
	}
	shape := func(text string) string {
		return nameToken.ReplaceAllStringFunc(text, func(w string) string {
			if names[strings.ToLower(w)] || strings.Trim(w, "0123456789") == "" {
				return "·"
			}
			return w
		})
	}
	var groups []*NoteGroup
	byShape := map[string]*NoteGroup{}
	for _, n := range p.AllNotes() {
		key := n.Kind + "\x00" + shape(n.Text)
		g := byShape[key]
		if g == nil {
			g = &NoteGroup{First: n}
			byShape[key] = g
			groups = append(groups, g)
		}
		g.Count++
		if n.Table != "" && !slices.Contains(g.Tables, n.Table) {
			g.Tables = append(g.Tables, n.Table)
		}
	}
	slices.SortStableFunc(groups, func(a, b *NoteGroup) int { return cmp.Compare(a.First.rank(), b.First.rank()) })
	out := make([]NoteGroup, len(groups))
	for i, g := range groups {
		out[i] = *g
	}
	return out
}

// ByHandKinds counts the statements to apply by hand by their first
// words, e.g. "3 CREATE TRIGGER, 1 source".
func (p *Plan) ByHandKinds() string {
	var order []string
	n := map[string]int{}
	for _, st := range p.ByHand {
		w := strings.Fields(strings.Trim(st.What, `"`))
		k := w[0]
		if len(w) > 1 && (strings.EqualFold(w[0], "CREATE") || strings.EqualFold(w[0], "DROP")) {
			k += " " + w[1]
		}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}

// SQL returns every statement the plan's migrations run, in order, each
// ended by a semicolon, steps separated by blank lines (shardid tidb
// render prints it).
func (p *Plan) SQL() string {
	var parts []string
	for _, d := range p.Tables {
		parts = append(parts, strings.TrimSuffix(d.String(), "\n"))
	}
	for _, group := range [][]*Step{p.ForeignKeys, p.Steps} {
		for _, st := range group {
			parts = append(parts, strings.Join(st.Statements, ";\n")+";")
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}
