package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ErrInsertID is returned by RenderScript when a data statement reads
// LAST_INSERT_ID(), or a user variable (@v), whose value shardid cannot
// work out from the script: the key an INSERT got that shardid does not
// number, a variable set by an expression it does not evaluate, or one
// the script never sets. Such a statement would run with another value
// than the mysql client gives it (goose's own bookkeeping moves
// LAST_INSERT_ID, and SET is not run), so it is refused; the message
// names the line and the way forward.
var ErrInsertID = errors.New("data reads a value shardid cannot work out")

// sessionValues follows, in script order, what the mysql client's session
// would hold for the scripts' data: LAST_INSERT_ID() (the first key the
// last INSERT that generated one got, which RenderScript numbers itself)
// and the user variables SET gives a literal or LAST_INSERT_ID().
type sessionValues struct {
	lastID  value
	vars    map[string]value // lower-case name → value
	changed []string         // what substitutions were made, for notes
}

// value is a session value: known (expr), or unknown and why.
type value struct {
	expr ast.ExprNode
	why  string
}

func newSessionValues() *sessionValues {
	return &sessionValues{lastID: value{expr: ast.NewValueExpr(uint64(0), "", "")}, vars: map[string]value{}}
}

// assign follows SET @v = … (a KindSession statement).
func (sv *sessionValues) assign(st *Statement) {
	for _, a := range st.assigns {
		name := strings.ToLower(a.Name)
		switch e := a.Value.(type) {
		case ast.ValueExpr:
			sv.vars[name] = value{expr: e}
		case *ast.FuncCallExpr:
			if e.FnName.L == "last_insert_id" && len(e.Args) == 0 {
				v := sv.lastID
				if v.expr == nil {
					v.why = fmt.Sprintf("%s sets it to LAST_INSERT_ID(), which there is %s", st.Place(), v.why)
				}
				sv.vars[name] = v
				continue
			}
			sv.vars[name] = value{why: fmt.Sprintf("%s sets it to an expression shardid does not evaluate", st.Place())}
		default:
			sv.vars[name] = value{why: fmt.Sprintf("%s sets it to an expression shardid does not evaluate", st.Place())}
		}
	}
}

// readsSession reports a statement that reads LAST_INSERT_ID() or a user
// variable.
func readsSession(n ast.Node) bool {
	var f sessionFinder
	n.Accept(&f)
	return bool(f)
}

type sessionFinder bool

func (f *sessionFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.FuncCallExpr:
		if x.FnName.L == "last_insert_id" {
			*f = true
		}
	case *ast.VariableExpr:
		if !x.IsSystem {
			*f = true
		}
	}
	return n, bool(*f)
}

func (f *sessionFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// substitute returns st's statement with LAST_INSERT_ID() and user
// variables replaced by the values the mysql client's session would give
// them, parsed afresh from st.SQL (the script's own tree stays as read),
// or an error wrapping ErrInsertID naming what cannot be worked out.
func (sv *sessionValues) substitute(st *Statement) (ast.StmtNode, error) {
	stmts, err := ParseSQL(parser.New(), st.SQL)
	if err != nil || len(stmts) != 1 {
		return nil, fmt.Errorf("%s: %s: read back: %v", st.Place(), st.What, err)
	}
	s := &substituter{sv: sv}
	stmts[0].Accept(s)
	if s.err != "" {
		return nil, fmt.Errorf("%w: %s: %s: %s; its rows would get other values than the mysql client gives them: render with --skip-data and load the data with the mysql client once the tables exist (tidb up … --skip-data, then mysql < the script's data), or write the values into the script", ErrInsertID, st.Place(), st.What, s.err)
	}
	return stmts[0], nil
}

type substituter struct {
	sv  *sessionValues
	err string
}

func (s *substituter) Enter(n ast.Node) (ast.Node, bool) { return n, s.err != "" }

func (s *substituter) Leave(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.FuncCallExpr:
		if x.FnName.L != "last_insert_id" {
			break
		}
		if len(x.Args) > 0 {
			s.err = "LAST_INSERT_ID(expr) sets the value for later statements, which shardid does not follow"
			return n, true
		}
		if s.sv.lastID.expr == nil {
			s.err = "LAST_INSERT_ID() here is " + s.sv.lastID.why
			return n, true
		}
		s.sv.changed = append(s.sv.changed, "LAST_INSERT_ID() = "+exprText(s.sv.lastID.expr))
		return ast.NewValueExpr(s.sv.lastID.expr.(ast.ValueExpr).GetValue(), "", ""), true
	case *ast.VariableExpr:
		if x.IsSystem {
			break
		}
		if x.Value != nil {
			s.err = fmt.Sprintf("@%s := … sets a variable inside a data statement, which shardid does not follow", x.Name)
			return n, true
		}
		v, ok := s.sv.vars[strings.ToLower(x.Name)]
		switch {
		case !ok:
			s.err = fmt.Sprintf("@%s is never set by the script before it (the mysql client would read NULL)", x.Name)
			return n, true
		case v.expr == nil:
			s.err = fmt.Sprintf("@%s: %s", x.Name, v.why)
			return n, true
		}
		s.sv.changed = append(s.sv.changed, "@"+x.Name+" = "+exprText(v.expr))
		return ast.NewValueExpr(v.expr.(ast.ValueExpr).GetValue(), "", ""), true
	}
	return n, true
}

func exprText(e ast.ExprNode) string {
	s, err := restore(e)
	if err != nil {
		return "?"
	}
	return s
}

// inserted follows LAST_INSERT_ID() past an INSERT or REPLACE into t: filled rows (from RenderScript's numbering) set it to the first
// key given; an INSERT whose keys shardid does not number, into a table
// with an AUTO_INCREMENT column, leaves it unknown.
func (sv *sessionValues) inserted(st *Statement, t *Table, numbered bool, filled int, first uint64, fillErr error) {
	switch {
	case fillErr != nil:
		sv.lastID = value{why: fmt.Sprintf("the key the INSERT at %s got from the server (%v)", st.Place(), fillErr)}
	case filled > 0:
		sv.lastID = value{expr: ast.NewValueExpr(first, "", "")}
	case t == nil:
		sv.lastID = value{why: fmt.Sprintf("the key the INSERT at %s into a table the script does not create got, if any", st.Place())}
	case !numbered && hasAutoIncrement(t):
		sv.lastID = value{why: fmt.Sprintf("the key the INSERT at %s got from the server (its AUTO_INCREMENT column is not the whole primary key, so shardid does not number it)", st.Place())}
	}
}

// hasAutoIncrement reports a table with an AUTO_INCREMENT or AUTO_RANDOM
// column.
func hasAutoIncrement(t *Table) bool {
	for _, c := range t.Columns {
		if c.AutoIncrement || c.AutoRandom {
			return true
		}
	}
	return false
}
