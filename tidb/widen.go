package tidb

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/shardid/shardid/tidb/script"
)

// widenable reports an INT or MEDIUMINT column: its table can grow past a
// region, so auto widens it to BIGINT for AUTO_RANDOM (a TINYINT or
// SMALLINT key keeps its table below DefaultMinSplit rows: no hotspot
// worth a change of type).
func widenable(c *Column) bool {
	switch typeWord(strings.ToUpper(c.Type)) {
	case "INT", "INTEGER", "MEDIUMINT":
		return c.Integer && !c.BigInt
	}
	return false
}

// keyWidened returns the primary-key column that the rendering widens to
// BIGINT for AUTO_RANDOM under o: an INT or MEDIUMINT key when auto picks
// auto-random for it or auto-random is asked for, unless o.NoWiden; nil
// otherwise.
func keyWidened(t *Table, o Options) *Column {
	if o.NoWiden {
		return nil
	}
	s := o.Strategy
	if s == "" || s == StrategyAuto {
		s, _ = Choose(t)
	}
	if s != StrategyAutoRandom || t.PrimaryKey == nil || len(t.PrimaryKey.Parts) != 1 {
		return nil
	}
	if c := t.Column(t.PrimaryKey.Parts[0].Column); c != nil && widenable(c) && t.PrimaryKey.Parts[0].Length == 0 {
		return c
	}
	return nil
}

// integerType matches the integer type word and display width that
// widening replaces, e.g. "INT(10)" of "INT(10) UNSIGNED".
var integerType = regexp.MustCompile(`(?i)^(TINYINT|SMALLINT|MEDIUMINT|INTEGER|INT)(\(\d+\))?`)

// widenColumns returns a copy of t whose named columns (lower-case name →
// why) are BIGINT, keeping UNSIGNED and every option, with the names of
// the columns it widened, and notes each change; t itself when there are
// none.
func widenColumns(t *Table, cols map[string]string, note func(string, ...any)) (*Table, []string) {
	if len(cols) == 0 {
		return t, nil
	}
	var names []string
	w := *t
	w.Columns = slices.Clone(t.Columns)
	for i := range w.Columns {
		c := &w.Columns[i]
		why, ok := cols[strings.ToLower(c.Name)]
		if !ok || !c.Integer || c.BigInt {
			continue
		}
		old := c.Type
		c.Type = integerType.ReplaceAllString(c.Type, "BIGINT")
		c.BigInt = true
		names = append(names, c.Name)
		note("%s widened from %s to %s: %s", c.Name, old, c.Type, why)
	}
	return &w, names
}

// foreignKeyEdge is a FOREIGN KEY of a script: the table holding it and
// the clause.
type foreignKeyEdge struct {
	t  *Table
	ix Index
}

// widenedColumns returns, per table (tableKey), the columns RenderScript
// widens to BIGINT besides a key widened for AUTO_RANDOM (keyWidened):
// every column a FOREIGN KEY points from at a widened column, and on
// along the chain, since MySQL, MariaDB and TiDB refuse a FOREIGN KEY
// between an INT and a BIGINT column; and every integer column of another
// table named for a widened key without a FOREIGN KEY to it. opts are
// the tables' options, in s.Tables order.
func widenedColumns(s *script.Script, opts []Options) map[string]map[string]string {
	widened := map[string]map[string]string{} // table → lower column → why
	add := func(table, col, why string) bool {
		if widened[table] == nil {
			widened[table] = map[string]string{}
		}
		if _, ok := widened[table][col]; ok {
			return false
		}
		widened[table][col] = why
		return true
	}
	byKey := map[string]*Table{}
	for i, t := range s.Tables {
		byKey[t.Key()] = t
		if c := keyWidened(t, opts[i]); c != nil {
			add(t.Key(), strings.ToLower(c.Name), "")
		}
	}
	var edges []foreignKeyEdge
	for _, t := range s.Tables {
		for _, ix := range t.Indexes {
			if ix.References != "" {
				edges = append(edges, foreignKeyEdge{t, ix})
			}
		}
	}
	for _, fk := range s.ForeignKeys {
		edges = append(edges, foreignKeyEdge{fk.Table, fk.Key})
	}
	for _, st := range s.Statements {
		if st.Kind == script.KindForeignKey && st.Key != nil {
			edges = append(edges, foreignKeyEdge{st.Key.Table, st.Key.Key})
		}
	}
	propagate := func() {
		for changed := true; changed; {
			changed = false
			for _, e := range edges {
				ref := script.ReferenceKey(e.t, e.ix)
				for i, p := range e.ix.Parts {
					if i >= len(e.ix.ReferencedColumns) || p.Column == "" {
						continue
					}
					refCol := e.ix.ReferencedColumns[i]
					if _, ok := widened[ref][strings.ToLower(refCol)]; !ok {
						continue
					}
					c := e.t.Column(p.Column)
					if c == nil || !c.Integer || c.BigInt {
						continue
					}
					name := refCol
					if rt := byKey[ref]; rt != nil {
						name = rt.QualifiedName() + "." + refCol
					}
					why := fmt.Sprintf("its FOREIGN KEY references %s, widened to BIGINT (a FOREIGN KEY needs the same integer type at both ends)", name)
					if add(e.t.Key(), strings.ToLower(c.Name), why) {
						changed = true
					}
				}
			}
		}
	}
	propagate()
	// Columns named for a widened key (orders.customer_id or
	// orders.CustomerId for customer.id or customers.id) with no FOREIGN
	// KEY to carry the type: if they hold the key's values, the first
	// AUTO_RANDOM value overflows them. Widening one that holds something
	// else costs it nothing but 4 bytes a row.
	for i, t := range s.Tables {
		c := keyWidened(t, opts[i])
		if c == nil {
			continue
		}
		name := strings.ToLower(strings.ReplaceAll(t.Name, "_", ""))
		want := []string{name + "id", strings.TrimSuffix(name, "s") + "id", name + strings.ToLower(c.Name), strings.TrimSuffix(name, "s") + strings.ToLower(c.Name)}
		for _, o := range s.Tables {
			if o == t {
				continue
			}
			for _, oc := range o.Columns {
				if oc.Integer && !oc.BigInt && slices.Contains(want, strings.ToLower(strings.ReplaceAll(oc.Name, "_", ""))) {
					add(o.Key(), strings.ToLower(oc.Name), fmt.Sprintf("it is named for %s.%s, widened to BIGINT, and has no FOREIGN KEY to say whether it holds its values (if it does, an AUTO_RANDOM value overflows an INT)", t.QualifiedName(), c.Name))
				}
			}
		}
	}
	propagate()
	// The keys themselves are widened by Render; only the columns that
	// follow them are passed on.
	for k, cols := range widened {
		for c, why := range cols {
			if why == "" {
				delete(cols, c)
			}
		}
		if len(cols) == 0 {
			delete(widened, k)
		}
	}
	return widened
}
