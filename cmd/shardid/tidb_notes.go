package main

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/shardid/shardid/tidb"
)

// tidbNote is one line of what a rendering did: its kind (changed, cost,
// warning or note), the table it is about ("" for the plan's own notes)
// and its text.
type tidbNote struct {
	kind, table, text string
}

// rank orders the notes that matter first: a table that would refuse its
// inserts (rendered otherwise), then the hotspots left, what the
// rendering costs its readers, what it changed, and the rest.
func (n tidbNote) rank() int {
	switch {
	case strings.Contains(n.text, "every insert would fail"):
		return 0
	case n.kind == "warning":
		return 1
	case n.kind == "cost":
		return 2
	case n.kind == "changed":
		return 3
	}
	return 4
}

// planNotes lists the notes of p: each table's changes, costs, key
// warnings and warnings, then the plan's notes.
func planNotes(p *tidb.Plan) []tidbNote {
	var out []tidbNote
	for _, d := range p.Tables {
		name := d.Table.QualifiedName()
		for _, n := range d.Notes {
			out = append(out, tidbNote{"changed", name, n})
		}
		for _, n := range d.Costs {
			out = append(out, tidbNote{"cost", name, n})
		}
		for _, n := range append(slices.Clone(d.KeyWarnings), d.Warnings...) {
			out = append(out, tidbNote{"warning", name, n})
		}
	}
	for _, n := range p.Notes {
		out = append(out, tidbNote{"note", "", n})
	}
	return out
}

// nameToken matches a name or a number inside a note.
var nameToken = regexp.MustCompile(`[\pL\pN_$]+`)

// noteShape is a note's text with the names of the plan's tables and
// columns, and every number, blotted out: notes of one shape say the same
// thing of different tables, columns or lines.
func noteShape(text string, names map[string]bool) string {
	return nameToken.ReplaceAllStringFunc(text, func(w string) string {
		if names[strings.ToLower(w)] || strings.Trim(w, "0123456789") == "" {
			return "·"
		}
		return w
	})
}

// printNotes prints the notes of p grouped by kind and shape, the group
// that matters first: a count, one example in full, and the tables the
// others are about; all prints every note, each under its table.
func printNotes(w io.Writer, p *tidb.Plan, all bool) {
	notes := planNotes(p)
	if all {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		explained := map[string]string{}
		for _, n := range notes {
			if n.table == "" {
				continue
			}
			text := n.text
			if n.kind == "cost" {
				text = shortCost(text, n.table, explained)
			}
			fmt.Fprintf(tw, "%s\t%s: %s\n", n.table, n.kind, text)
		}
		tw.Flush()
		for _, n := range notes {
			if n.table == "" {
				fmt.Fprintln(w, "note: "+n.text)
			}
		}
		return
	}
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
	for _, group := range [][]*tidb.Step{p.ForeignKeys, p.Steps} {
		for _, st := range group {
			name(st.Object)
		}
	}
	for _, st := range p.ByHand {
		name(st.Object)
		name(st.File)
	}
	type group struct {
		first  tidbNote
		tables []string
		n      int
	}
	var groups []*group
	byShape := map[string]*group{}
	for _, n := range notes {
		key := n.kind + "\x00" + noteShape(n.text, names)
		g := byShape[key]
		if g == nil {
			g = &group{first: n}
			byShape[key] = g
			groups = append(groups, g)
		}
		g.n++
		if n.table != "" && !slices.Contains(g.tables, n.table) {
			g.tables = append(g.tables, n.table)
		}
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Compare(a.first.rank(), b.first.rank()) })
	shown := 0
	for _, g := range groups {
		label := g.first.kind
		if g.n > 1 {
			label = fmt.Sprintf("%s ×%d", label, g.n)
		}
		text := g.first.text
		if g.first.table != "" {
			text = g.first.table + ": " + text
		}
		if len(g.tables) > 1 {
			text += fmt.Sprintf(" [also %s]", tableList(g.tables[1:]))
		} else if g.n > 1 {
			text += fmt.Sprintf(" [and %d more like it]", g.n-1)
		}
		fmt.Fprintf(w, "%s: %s\n", label, text)
		shown++
	}
	if shown < len(notes) {
		fmt.Fprintf(w, "%d notes in %d kinds, one example each: --notes all prints every one\n", len(notes), shown)
	}
}

// tableList names at most six tables.
func tableList(names []string) string {
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + fmt.Sprintf(", … (%d more)", len(names)-6)
	}
	return strings.Join(names, ", ")
}
