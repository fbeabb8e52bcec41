package script

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// AutoIncrementColumn returns t's AUTO_INCREMENT column, or nil.
func (t *Table) AutoIncrementColumn() *Column {
	for i := range t.Columns {
		if t.Columns[i].AutoIncrement {
			return &t.Columns[i]
		}
	}
	return nil
}

// DataKeys returns, per table (tableKey), the keys the script's INSERTs
// give its AUTO_INCREMENT column, and one past the largest for each run
// of rows that leave it out (RenderScript numbers them from there): on
// TiDB an explicit key moves the counter the row id shares, or an
// AUTO_RANDOM increment.
func (s *Script) DataKeys() map[string][]uint64 {
	byKey := map[string]*Table{}
	for _, t := range s.Tables {
		byKey[t.Key()] = t
	}
	keys := map[string][]uint64{}
	left := map[string]uint64{}
	for _, st := range s.Statements {
		ins, ok := st.node.(*ast.InsertStmt)
		if !ok || st.Kind != KindData || len(st.Writes) != 1 || ins.Select != nil {
			continue
		}
		key := strings.ToLower(st.Writes[0])
		t := byKey[key]
		if t == nil {
			continue
		}
		c := t.AutoIncrementColumn()
		if c == nil {
			continue
		}
		at := -1
		if ins.Columns == nil {
			for i := range t.Columns {
				if &t.Columns[i] == c {
					at = i
				}
			}
		} else {
			for i, col := range ins.Columns {
				if strings.EqualFold(col.Name.O, c.Name) {
					at = i
				}
			}
		}
		for _, row := range ins.Lists {
			var v ast.ExprNode
			if at >= 0 && at < len(row) {
				v = row[at]
			}
			given, explicit, err := keyLiteral(v)
			switch {
			case err != nil:
			case explicit:
				keys[key] = append(keys[key], given)
			default:
				left[key]++
			}
		}
	}
	for key, n := range left {
		if ks := keys[key]; len(ks) > 0 {
			keys[key] = append(ks, slices.Max(ks)+n)
		}
	}
	return keys
}
