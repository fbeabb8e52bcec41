package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/shardid/shardid/tidb"
)

// printNotes prints the notes of p grouped by kind and shape, the group
// that matters first (tidb.Plan.NoteGroups): a count, one example in full,
// and the tables the others are about; all prints every note, each under
// its table.
func printNotes(w io.Writer, p *tidb.Plan, all bool) {
	notes := p.AllNotes()
	if all {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		explained := map[string]string{}
		for _, n := range notes {
			if n.Table == "" {
				continue
			}
			text := n.Text
			if n.Kind == "cost" {
				text = shortCost(text, n.Table, explained)
			}
			fmt.Fprintf(tw, "%s\t%s: %s\n", n.Table, n.Kind, text)
		}
		tw.Flush()
		for _, n := range notes {
			if n.Table == "" {
				fmt.Fprintln(w, "note: "+n.Text)
			}
		}
		return
	}
	groups := p.NoteGroups()
	for _, g := range groups {
		label := g.First.Kind
		if g.Count > 1 {
			label = fmt.Sprintf("%s ×%d", label, g.Count)
		}
		text := g.First.Text
		if g.First.Table != "" {
			text = g.First.Table + ": " + text
		}
		if len(g.Tables) > 1 {
			text += fmt.Sprintf(" [also %s]", tableList(g.Tables[1:]))
		} else if g.Count > 1 {
			text += fmt.Sprintf(" [and %d more like it]", g.Count-1)
		}
		fmt.Fprintf(w, "%s: %s\n", label, text)
	}
	if len(groups) < len(notes) {
		fmt.Fprintf(w, "%d notes in %d kinds, one example each: --notes all prints every one\n", len(notes), len(groups))
	}
}

// tableList names at most six tables.
func tableList(names []string) string {
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + fmt.Sprintf(", … (%d more)", len(names)-6)
	}
	return strings.Join(names, ", ")
}
