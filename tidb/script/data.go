package script

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	r.dataSeen = true
	ss := &Statement{Kind: KindData, Writes: writes, What: statementWords(st), SQL: sql, ForeignKeyChecks: r.fkChecks, File: r.file, Line: line, node: st}
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
		if name := Qualified(x); !slices.Contains(*c, name) {
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

// keyFiller gives the rows of INSERT statements that leave a generated
// key out (or give it NULL or 0) the value the key's AUTO_INCREMENT would
// have given them on MySQL: from the table's AUTO_INCREMENT=N (else 1) on,
// one a row, past every value given explicitly. Seed data often refers to
// such rows by those numbers (a track's album is album 3); AUTO_RANDOM
// would give them random ones, and TiDB's AUTO_INCREMENT leaves gaps in a
// large multi-row INSERT (3503 tracks took 1–6503, measured on 8.5).
type keyFiller struct {
	next map[string]uint64 // table key → the next value AUTO_INCREMENT gives
}

// fill returns the statement with the key of t filled in, how
// many rows it filled and the range of values it gave, or the statement
// unchanged (0 rows) when no row left the key out. It returns an error
// when a row leaves the key out in a form it cannot number: INSERT …
// SELECT, or a key given by an expression.
func (k *keyFiller) fill(n *ast.InsertStmt, t *Table) (*ast.InsertStmt, int, [2]uint64, error) {
	var span [2]uint64
	pk := t.PrimaryKey
	if pk == nil || len(pk.Parts) != 1 {
		return n, 0, span, nil
	}
	key := pk.Parts[0].Column
	tk := t.Key()
	if _, ok := k.next[tk]; !ok {
		k.next[tk] = 1
		for _, o := range t.AutoIncrementOptions() {
			k.next[tk] = max(AutoIncrementBase(o), 1)
		}
	}
	// Where the key sits in each row: its place in the column list, or
	// among the table's columns when the INSERT names none.
	at := -1
	if n.Columns == nil {
		at = slices.IndexFunc(t.Columns, func(c Column) bool { return strings.EqualFold(c.Name, key) })
	} else {
		at = slices.IndexFunc(n.Columns, func(c *ast.ColumnName) bool { return strings.EqualFold(c.Name.O, key) })
	}
	if n.Select != nil {
		if at < 0 {
			return n, 0, span, fmt.Errorf("INSERT … SELECT leaves the key %s out: its rows get the keys the server gives, which may not be the ones MySQL's AUTO_INCREMENT gives", key)
		}
		return n, 0, span, nil
	}
	out := *n
	out.Lists = make([][]ast.ExprNode, len(n.Lists))
	filled := 0
	for i, row := range n.Lists {
		var v ast.ExprNode
		if at >= 0 && at < len(row) {
			v = row[at]
		}
		given, explicit, err := keyLiteral(v)
		if err != nil {
			return n, 0, span, fmt.Errorf("the key %s is given as %s: %w", key, statementWordsOf(v), err)
		}
		if explicit {
			k.next[tk] = max(k.next[tk], given+1)
			out.Lists[i] = row
			continue
		}
		id := k.next[tk]
		k.next[tk]++
		if filled == 0 {
			span[0] = id
		}
		span[1] = id
		filled++
		nr := slices.Clone(row)
		if at >= 0 && at < len(row) {
			nr[at] = ast.NewValueExpr(id, "", "")
		} else {
			nr = append([]ast.ExprNode{ast.NewValueExpr(id, "", "")}, nr...)
		}
		out.Lists[i] = nr
	}
	if filled > 0 && (at < 0 || at >= len(n.Lists[0])) && n.Columns != nil {
		out.Columns = append([]*ast.ColumnName{{Name: ast.NewCIStr(key)}}, n.Columns...)
	}
	return &out, filled, span, nil
}

// keyLiteral reads a key value as written: an integer gives it, NULL, 0
// or nothing leave it to AUTO_INCREMENT, anything else cannot be numbered.
func keyLiteral(v ast.ExprNode) (uint64, bool, error) {
	if v == nil {
		return 0, false, nil
	}
	ve, ok := v.(ast.ValueExpr)
	if !ok {
		return 0, false, errors.New("an expression shardid cannot number")
	}
	switch x := ve.GetValue().(type) {
	case nil:
		return 0, false, nil
	case int64:
		if x <= 0 {
			return 0, false, nil
		}
		return uint64(x), true, nil
	case uint64:
		return x, x > 0, nil
	case string:
		if n, err := strconv.ParseUint(x, 10, 64); err == nil {
			return n, n > 0, nil
		}
	}
	return 0, false, errors.New("a value that is no integer")
}

// statementWordsOf prints an expression briefly.
func statementWordsOf(e ast.ExprNode) string {
	s, err := restore(e)
	if err != nil || len(s) > 40 {
		return "an expression"
	}
	return s
}
