package tidb

import (
	"slices"
	"strings"
)

// generatedForms returns t with the nullability of its generated columns
// in a form the target reads: MariaDB refuses NULL and NOT NULL after
// (or before) AS (…) VIRTUAL/STORED (ERROR 1064, measured on 10.11), so a
// plain NULL, the default everywhere, is left out for every target (a
// TiDB rendering runs on MariaDB too), and a NOT NULL for --target
// mariadb, noted: there the column may hold NULL. t itself when nothing
// changes.
func generatedForms(t *Table, target Target, note func(string, ...any)) *Table {
	var out *Table
	for i, c := range t.Columns {
		if c.Generated == nil {
			continue
		}
		keep := slices.DeleteFunc(slices.Clone(c.Options), func(o string) bool {
			return strings.EqualFold(o, "NULL") || (target == TargetMariaDB && strings.EqualFold(o, "NOT NULL"))
		})
		if len(keep) == len(c.Options) {
			continue
		}
		if out == nil {
			cp := *t
			cp.Columns = slices.Clone(t.Columns)
			out = &cp
		}
		if c.NotNull && target == TargetMariaDB {
			out.Columns[i].NotNull = false
			note("generated column %s: NOT NULL left out, which MariaDB refuses on a generated column (ERROR 1064): there it may hold NULL", c.Name)
		} else {
			note("generated column %s: NULL left out (the default), which MariaDB refuses on a generated column (ERROR 1064)", c.Name)
		}
		out.Columns[i].Options = keep
	}
	if out == nil {
		return t
	}
	return out
}
