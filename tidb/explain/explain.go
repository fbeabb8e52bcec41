package explain

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/shardid/shardid/tidb"
)

// Choices is a plan as shardid tidb render says it on stderr.
type Choices struct {
	// Plan is the rendered plan; nil writes nothing.
	Plan *tidb.Plan
	// AllNotes writes every note, each under its table (--notes all);
	// false, the zero value, groups them by kind and shape, a count and
	// one example each, what matters first (tidb.Plan.NoteGroups).
	AllNotes bool
}

// WriteText writes c as shardid tidb render prints it on stderr: a table
// of one line per table (strategy and why), then the notes. It returns
// the first write error.
func (c Choices) WriteText(w io.Writer) error {
	if c.Plan == nil {
		return nil
	}
	var b bytes.Buffer
	if len(c.Plan.Tables) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "table\tstrategy\twhy")
		for _, d := range c.Plan.Tables {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Table.QualifiedName(), d.Options.Strategy, d.Reason)
		}
		tw.Flush()
	}
	if c.AllNotes {
		writeAll(&b, c.Plan.AllNotes())
	} else {
		writeGroups(&b, c.Plan)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeAll writes every note: the tables' in a table, each under its
// table, then the plan's own.
func writeAll(b *bytes.Buffer, notes []tidb.Note) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
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
			fmt.Fprintln(b, "note: "+n.Text)
		}
	}
}

// writeGroups writes the notes of p grouped by kind and shape, the group
// that matters first: a count, one example in full, and the tables the
// others are about.
func writeGroups(b *bytes.Buffer, p *tidb.Plan) {
	notes, groups := p.AllNotes(), p.NoteGroups()
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
		fmt.Fprintf(b, "%s: %s\n", label, text)
	}
	if len(groups) < len(notes) {
		fmt.Fprintf(b, "%d notes in %d kinds, one example each: --notes all prints every one\n", len(notes), len(groups))
	}
}

// shortCost is cost as written for table: "COLUMN what (why): explanation"
// in full the first time its explanation (its column aside) is given, and
// without it, pointing at that table, after that: a script of sixty such
// tables reads one explanation, not sixty.
func shortCost(cost, table string, explained map[string]string) string {
	i := strings.Index(cost, "): ")
	f := strings.Fields(cost)
	if i < 0 || len(f) == 0 {
		return cost
	}
	key := strings.ReplaceAll(cost[len(f[0]):], f[0], "\x00")
	if first, ok := explained[key]; ok {
		return cost[:i+1] + "; as for " + first + " above"
	}
	explained[key] = table
	return cost
}

// tableList names at most six tables.
func tableList(names []string) string {
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + fmt.Sprintf(", … (%d more)", len(names)-6)
	}
	return strings.Join(names, ", ")
}
