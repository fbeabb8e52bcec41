package script

import (
	"fmt"
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Replay follows the mysql client's session through a script's
// statements, in order, for a renderer that writes them out as
// migrations: the SET @v = … and LAST_INSERT_ID() values that data
// statements read (no migration runs the SET, and goose's bookkeeping
// moves LAST_INSERT_ID), and the keys a table's AUTO_INCREMENT would give
// the rows that leave them out. The zero Replay is not usable: start one
// with Script.Replay.
type Replay struct {
	s       *Script
	keys    keyFiller
	session *sessionValues
	next    int // the next of s.sets to assign
}

// Replay starts a replay of s's statements.
func (s *Script) Replay() *Replay {
	return &Replay{s: s, keys: keyFiller{next: map[string]uint64{}}, session: newSessionValues()}
}

// Replayed is what Replay.Data made of one data statement.
type Replayed struct {
	// SQL is the statement to run: the script's, or printed again with
	// session values or keys written in.
	SQL string
	// Session names the session values written in (nil for none).
	Session []string
	// Filled is how many rows were given keys, Span the first and last
	// key given.
	Filled int
	Span   [2]uint64
	// FillErr says why rows that leave the key out could not be numbered
	// (their keys are then the server's).
	FillErr error
}

// Data replays statement i of the script (s.Statements[i], a KindData
// one). table returns the table a single-table INSERT writes (nil when the
// script does not create it) and whether to number its keys. It returns
// errors wrapping ErrInsertID for a session value it cannot work out.
func (r *Replay) Data(i int, table func(name string) (t *Table, number bool)) (Replayed, error) {
	r.Skip(i)
	st := r.s.Statements[i]
	out := Replayed{SQL: st.SQL}
	node := st.node
	if node != nil && readsSession(node) {
		var err error
		if node, err = r.session.substitute(st); err != nil {
			return out, err
		}
		if out.SQL, err = restoreData(node); err != nil {
			return out, fmt.Errorf("%s: %w", st.Place(), err)
		}
		out.Session = slices.Compact(r.session.changed)
		r.session.changed = nil
	}
	ins, ok := node.(*ast.InsertStmt)
	if !ok {
		return out, nil
	}
	var t *Table
	number := false
	if len(st.Writes) == 1 {
		t, number = table(st.Writes[0])
	}
	if t != nil && number {
		filledStmt, n, span, err := r.keys.fill(ins, t)
		out.Filled, out.Span, out.FillErr = n, span, err
		if n > 0 {
			if out.SQL, err = restoreData(filledStmt); err != nil {
				return out, fmt.Errorf("%s: %w", st.Place(), err)
			}
		}
	}
	r.session.inserted(st, t, t != nil && number, out.Filled, out.Span[0], out.FillErr)
	return out, nil
}

// Skip replays the session up to statement i, which is not data: a LOAD
// DATA leaves LAST_INSERT_ID unknown after it.
func (r *Replay) Skip(i int) {
	for ; r.next < len(r.s.sets) && r.s.sets[r.next].at <= i; r.next++ {
		r.session.assign(r.s.sets[r.next].st)
	}
	if st := r.s.Statements[i]; st.ByHand && st.load {
		r.session.lastID = value{why: fmt.Sprintf("set by the rows LOAD DATA at %s loads, by hand after the migrations", st.Place())}
	}
}

// LoadsData reports a LOAD DATA (ByHand), whose rows come after the
// migrations.
func (st *Statement) LoadsData() bool { return st.load }
