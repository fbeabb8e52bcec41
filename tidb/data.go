package tidb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

// dataRestoreFlags print data and views as TiDB reads them: restoreFlags,
// but a string literal of another character set than utf8mb4 keeps its
// introducer (_binary'…' in a dump must not become a string of the
// connection's character set).
const dataRestoreFlags = format.DefaultRestoreFlags | format.RestoreTiDBSpecialComment | format.RestoreStringEscapeBackslash | format.RestoreStringWithoutDefaultCharset

// data keeps an INSERT, REPLACE, UPDATE or DELETE.
func (r *scriptReader) data(st ast.StmtNode, line int) error {
	if r.o.SkipData {
		r.skip("data statements left out (--skip-data: INSERT, REPLACE, UPDATE, DELETE, LOAD DATA)", line)
		return nil
	}
	writes := tablesWritten(st)
	sql, err := restoreData(st)
	if err != nil {
		return fmt.Errorf("line %d: print %s: %w", line, statementWords(st), err)
	}
	ss := &ScriptStatement{Kind: KindData, Writes: writes, What: statementWords(st), SQL: sql, ForeignKeyChecks: r.fkChecks, File: r.file, Line: line}
	if len(writes) > 0 {
		ss.Object = writes[0]
	}
	r.s.Statements = append(r.s.Statements, ss)
	r.s.Accounted++
	return nil
}

// tablesWritten lists the tables a data statement writes (for UPDATE and
// DELETE over joins, every table of the join), as written.
func tablesWritten(st ast.StmtNode) []string {
	var c tableCollector
	switch n := st.(type) {
	case *ast.InsertStmt:
		n.Table.Accept(&c)
	case *ast.UpdateStmt:
		n.TableRefs.Accept(&c)
	case *ast.DeleteStmt:
		if n.Tables != nil {
			n.Tables.Accept(&c)
		} else {
			n.TableRefs.Accept(&c)
		}
	}
	return c
}

// tableCollector collects table names, each once, outside subqueries.
type tableCollector []string

func (c *tableCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.TableName:
		if name := qualified(x); !slices.Contains(*c, name) {
			*c = append(*c, name)
		}
	}
	return n, false
}

func (c *tableCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// restoreData prints a data statement with TiDB's restorer; a multi-row
// INSERT or REPLACE … VALUES gets one row a line (goose reads a migration
// a line at a time, up to 4 MiB a line; a dump's extended INSERT is one
// line of many megabytes).
func restoreData(st ast.StmtNode) (string, error) {
	n, ok := st.(*ast.InsertStmt)
	if !ok || n.Setlist || n.Select != nil || len(n.Lists) < 2 {
		return restoreWith(st, dataRestoreFlags)
	}
	head := *n
	head.Lists, head.OnDuplicate = nil, nil
	var sb strings.Builder
	h, err := restoreWith(&head, dataRestoreFlags)
	if err != nil {
		return "", err
	}
	sb.WriteString(h)
	sb.WriteString(" VALUES")
	for i, row := range n.Lists {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("\n(")
		for j, v := range row {
			if j > 0 {
				sb.WriteByte(',')
			}
			s, err := restoreWith(v, dataRestoreFlags)
			if err != nil {
				return "", err
			}
			sb.WriteString(s)
		}
		sb.WriteByte(')')
	}
	if len(n.OnDuplicate) > 0 {
		sb.WriteString("\nON DUPLICATE KEY UPDATE ")
		for i, a := range n.OnDuplicate {
			if i > 0 {
				sb.WriteByte(',')
			}
			s, err := restoreWith(a, dataRestoreFlags)
			if err != nil {
				return "", err
			}
			sb.WriteString(s)
		}
	}
	return sb.String(), nil
}

// restoreWith prints a node with TiDB's restorer and the given flags,
// control characters in strings escaped (escapeStrings).
func restoreWith(n interface {
	Restore(*format.RestoreCtx) error
}, flags format.RestoreFlags) (string, error) {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(flags, &sb)); err != nil {
		return "", err
	}
	return escapeStrings(sb.String()), nil
}
