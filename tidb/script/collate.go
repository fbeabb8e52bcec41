package script

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ErrCollation is returned by ParseCollations for a malformed --collate,
// and by Migrator.Up, before it applies anything, when a pending migration
// names a collation or character set the server does not have (TiDB 8.5
// has no latin1_general_cs, MariaDB 10.11 no utf8mb4_0900_ai_ci).
var ErrCollation = errors.New("collation")

// ParseCollations reads FROM=TO pairs (shardid tidb --collate), each a
// collation name, into the map Options.Collations takes. It returns
// errors wrapping ErrCollation.
func ParseCollations(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		from, to, ok := strings.Cut(p, "=")
		from, to = strings.ToLower(strings.TrimSpace(from)), strings.ToLower(strings.TrimSpace(to))
		if !ok || !collationName(from) || !collationName(to) {
			return nil, fmt.Errorf("%w %q: want FROM=TO, two collation names (letters, digits and _), e.g. latin1_general_cs=latin1_bin", ErrCollation, p)
		}
		out[from] = to
	}
	return out, nil
}

func collationName(s string) bool {
	return s != "" && len(s) <= 64 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

// collationWalker renames collations (Options.Collations) in a
// table's definition, or lists the collations and character sets it
// names.
type collationWalker struct {
	rename              map[string]string
	changes             []string // "a → b", each once
	collations, charset []string
}

func (w *collationWalker) collate(name string) string {
	l := strings.ToLower(name)
	if to, ok := w.rename[l]; ok {
		if c := l + " → " + to; !slices.Contains(w.changes, c) {
			w.changes = append(w.changes, c)
		}
		return to
	}
	if name != "" && !slices.Contains(w.collations, l) {
		w.collations = append(w.collations, l)
	}
	return name
}

func (w *collationWalker) charsetName(name string) {
	if l := strings.ToLower(name); l != "" && !slices.Contains(w.charset, l) {
		w.charset = append(w.charset, l)
	}
}

func (w *collationWalker) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.ColumnDef:
		if x.Tp != nil {
			if c := x.Tp.GetCollate(); c != "" {
				x.Tp.SetCollate(w.collate(c))
			}
			w.charsetName(x.Tp.GetCharset())
		}
		for _, o := range x.Options {
			if o.Tp == ast.ColumnOptionCollate {
				o.StrValue = w.collate(o.StrValue)
			}
		}
	case *ast.TableOption:
		switch x.Tp {
		case ast.TableOptionCollate:
			x.StrValue = w.collate(x.StrValue)
		case ast.TableOptionCharset:
			w.charsetName(x.StrValue)
		}
	}
	return n, false
}

func (w *collationWalker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// CollationsIn lists the collations and character sets a statement names
// in table and column definitions.
func CollationsIn(stmt string) (collations, charsets []string) {
	stmts, err := ParseSQL(parser.New(), stmt)
	if err != nil {
		return nil, nil
	}
	w := &collationWalker{}
	for _, s := range stmts {
		switch s.(type) {
		case *ast.CreateTableStmt, *ast.AlterTableStmt:
			s.Accept(w)
		}
	}
	return w.collations, w.charset
}
