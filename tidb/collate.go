package tidb

import (
	"context"
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
// collation name, into the map ScriptOptions.Collations takes. It returns
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

// collationWalker renames collations (ScriptOptions.Collations) in a
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

// collationsIn lists the collations and character sets a statement names
// in table and column definitions.
func collationsIn(stmt string) (collations, charsets []string) {
	stmts, err := parseSQL(parser.New(), stmt)
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

// checkCollations refuses pending migrations that name a collation or
// character set the server lacks, before anything is applied.
func (m *Migrator) checkCollations(ctx context.Context, st []Status) error {
	var have map[string]bool
	for _, s := range st {
		if s.Applied || s.Migration.Kind == KindData || s.Migration.Kind == KindRoutine {
			continue
		}
		stmts, err := upStatements(s.Migration.Text)
		if err != nil {
			continue
		}
		for _, stmt := range stmts {
			collations, charsets := collationsIn(stmt)
			if len(collations)+len(charsets) == 0 {
				continue
			}
			if have == nil {
				if have, err = m.serverCollations(ctx); err != nil {
					return err
				}
			}
			target, version, err := m.server(ctx)
			if err != nil {
				return err
			}
			for _, c := range charsets {
				if !have["charset "+c] {
					return fmt.Errorf("%s: %w: the server (%s %s) has no character set %s; nothing was applied: name one it has in the script", s.Migration.Name, ErrCollation, target.serverName(), version, c)
				}
			}
			for _, c := range collations {
				if !have[c] {
					return fmt.Errorf("%s: %w: the server (%s %s) has no collation %s; nothing was applied: give tidb up (or render, or gen) --collate %s=NAME, NAME one the server has (SHOW COLLATION)%s", s.Migration.Name, ErrCollation, target.serverName(), version, c, c, collationHint(c))
				}
			}
		}
	}
	return nil
}

// collationHint suggests the collation of the same character set that
// keeps case-sensitive comparison.
func collationHint(c string) string {
	cs, _, _ := strings.Cut(c, "_")
	if strings.HasSuffix(c, "_cs") || strings.HasSuffix(c, "_bin") {
		return fmt.Sprintf(", e.g. %s_bin (case-sensitive, in byte order)", cs)
	}
	return ""
}

// serverCollations returns the collations and ("charset "-prefixed) the
// character sets the server has, lower-cased.
func (m *Migrator) serverCollations(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	for _, q := range []struct{ sql, prefix string }{
		{"SELECT COLLATION_NAME FROM information_schema.COLLATIONS", ""},
		{"SELECT CHARACTER_SET_NAME FROM information_schema.CHARACTER_SETS", "charset "},
	} {
		rows, err := m.db.QueryContext(ctx, q.sql)
		if err != nil {
			return nil, fmt.Errorf("list the server's collations: %w", err)
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			out[q.prefix+strings.ToLower(n)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	// Aliases both read: utf8 is utf8mb3 on MariaDB and MySQL 8.
	for k := range out {
		if strings.Contains(k, "utf8mb3") {
			out[strings.Replace(k, "utf8mb3", "utf8", 1)] = true
		}
	}
	return out, nil
}
