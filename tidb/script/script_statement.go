package script

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// statement handles one parsed statement.
func (r *scriptReader) statement(st ast.StmtNode, line int) error {
	if r.useDB != "" {
		st.Accept(&unqualifier{db: r.useDB})
	}
	if len(r.o.Collations) > 0 {
		switch st.(type) {
		case *ast.CreateTableStmt, *ast.AlterTableStmt:
			w := &collationWalker{rename: r.o.Collations}
			st.Accept(w)
			if len(w.changes) > 0 {
				r.s.Notes = append(r.s.Notes, fmt.Sprintf("%s: %s: COLLATE %s (--collate)", r.where(line), statementWords(st), strings.Join(w.changes, ", ")))
			}
		}
	}
	switch n := st.(type) {
	case *ast.CreateTableStmt:
		t, err := FromCreate(n)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		t.Line, t.File = line, r.file
		key := strings.ToLower(t.QualifiedName())
		if r.byName[key] != nil {
			return fmt.Errorf("%w: line %d: table %s is created twice (first at line %d)", ErrScript, line, t.QualifiedName(), r.byName[key].Line)
		}
		r.byName[key] = t
		r.s.Tables = append(r.s.Tables, t)
		r.s.Accounted++
	case *ast.CreateIndexStmt:
		return r.createIndex(n, line)
	case *ast.AlterTableStmt:
		return r.alter(n, line)
	case *ast.SetStmt:
		r.setSession(n)
		var assigns []*ast.VariableAssignment
		for _, v := range n.Variables {
			if !v.IsSystem && v.Name != "" && v.Name != ast.SetNames && v.Name != ast.SetCharset && v.Value != nil {
				assigns = append(assigns, v)
			}
		}
		if len(assigns) > 0 && !r.o.SkipData {
			r.s.sets = append(r.s.sets, sessionSet{at: len(r.s.Statements), st: &Statement{Kind: KindSession, What: statementWords(st), assigns: assigns, File: r.file, Line: line}})
		}
		r.skip("session statements not run (SET, BEGIN/COMMIT, LOCK/UNLOCK TABLES): they steer the session that runs the script", line)
	case *ast.BeginStmt, *ast.CommitStmt, *ast.RollbackStmt, *ast.LockTablesStmt, *ast.UnlockTablesStmt:
		r.skip("session statements not run (SET, BEGIN/COMMIT, LOCK/UNLOCK TABLES): they steer the session that runs the script", line)
	case *ast.FlushStmt, *ast.AnalyzeTableStmt, *ast.OptimizeTableStmt:
		r.skip("maintenance statements not run (FLUSH, ANALYZE, OPTIMIZE): they change no schema or data", line)
	case *ast.SelectStmt, *ast.SetOprStmt:
		if sel, ok := n.(*ast.SelectStmt); ok && sel.SelectIntoOpt != nil {
			return fmt.Errorf("%w: line %d: %s: SELECT … INTO keeps a value for later statements or writes a file; shardid runs no such statement: take it out of the script and run it by hand", ErrScript, line, statementWords(st))
		}
		r.skip("SELECTs not run (they only print, e.g. SELECT 'CREATING DATABASE' AS INFO)", line)
	case *ast.DropTableStmt, *ast.DropDatabaseStmt:
		r.skip("DROP statements never run (a migration refuses a table that already exists instead of dropping it)", line)
	case *ast.CreateDatabaseStmt:
		r.skip("CREATE DATABASE/USE not run: tables go into the connection's database", line)
	case *ast.UseStmt:
		r.useDB, r.s.Database = n.DBName, n.DBName
		r.skip("CREATE DATABASE/USE not run: tables go into the connection's database", line)
	case *ast.CreateViewStmt:
		return r.view(n, line)
	case *ast.InsertStmt, *ast.UpdateStmt, *ast.DeleteStmt:
		return r.data(st, line)
	case *ast.LoadDataStmt:
		if r.o.SkipData {
			r.skip("data statements left out (--skip-data: INSERT, REPLACE, UPDATE, DELETE, LOAD DATA)", line)
			return nil
		}
		if err := r.byHand(st, line, "LOAD DATA reads a file on the client or the server, which no migration carries: load it by hand once the tables exist"); err != nil {
			return err
		}
		if n.Table != nil {
			last := r.s.Statements[len(r.s.Statements)-1]
			last.Object, last.Writes, last.load = Qualified(n.Table), []string{Qualified(n.Table)}, true
		}
	case *ast.CreateUserStmt, *ast.AlterUserStmt, *ast.DropUserStmt, *ast.GrantStmt, *ast.GrantRoleStmt, *ast.RevokeStmt, *ast.SetPwdStmt, *ast.SetDefaultRoleStmt:
		return r.byHand(st, line, "accounts and grants are not schema: create them by hand, with passwords of your own")
	case *ast.ProcedureInfo:
		return r.routine("CREATE", "PROCEDURE", n.ProcedureName.Name.O, st.Text(), line)
	case *ast.DropProcedureStmt:
		return r.routine("DROP", "PROCEDURE", n.ProcedureName.Name.O, st.Text(), line)
	case *ast.CallStmt:
		r.s.Statements = append(r.s.Statements, &Statement{Kind: KindRoutine, What: statementWords(st), SQL: strings.TrimSpace(st.Text()), Verbatim: true, File: r.file, Line: line})
		r.s.Accounted++
	default:
		return fmt.Errorf("%w: line %d: %s is not supported in a schema script (see shardid tidb render -h)", ErrScript, line, statementWords(st))
	}
	return nil
}

// setSession follows SET FOREIGN_KEY_CHECKS, which data statements carry
// into their migration; a value it cannot read (a variable restoring an
// earlier one) counts as the default, ON.
func (r *scriptReader) setSession(n *ast.SetStmt) {
	for _, v := range n.Variables {
		if !strings.EqualFold(v.Name, "foreign_key_checks") || v.IsGlobal || v.Value == nil {
			continue
		}
		s, err := restore(v.Value)
		if err != nil {
			continue
		}
		switch strings.ToUpper(strings.Trim(s, "'")) {
		case "0", "OFF", "FALSE":
			r.fkChecks = false
		default:
			r.fkChecks = true
		}
	}
}

// unqualifier drops the qualifier of names in the database a USE
// selected: the tables go into the connection's database instead.
type unqualifier struct{ db string }

func (u *unqualifier) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.TableName:
		if strings.EqualFold(x.Schema.O, u.db) {
			x.Schema = ast.NewCIStr("")
		}
	case *ast.ColumnName:
		if strings.EqualFold(x.Schema.O, u.db) {
			x.Schema = ast.NewCIStr("")
		}
	}
	return n, false
}

func (u *unqualifier) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// createIndex folds CREATE INDEX into its table.
func (r *scriptReader) createIndex(n *ast.CreateIndexStmt, line int) error {
	t := r.byName[strings.ToLower(Qualified(n.Table))]
	if t == nil {
		return fmt.Errorf("%w: line %d: CREATE INDEX %s on %s, which the script does not create (shardid renders new tables; add the index to the table yourself)", ErrScript, line, n.IndexName, Qualified(n.Table))
	}
	cons := &ast.Constraint{Tp: ast.ConstraintIndex, Name: n.IndexName, Keys: n.IndexPartSpecifications, Option: n.IndexOption}
	switch n.KeyType {
	case ast.IndexKeyTypeUnique:
		cons.Tp = ast.ConstraintUniq
	case ast.IndexKeyTypeFulltext:
		cons.Tp = ast.ConstraintFulltext
	case ast.IndexKeyTypeSpatial, ast.IndexKeyTypeVector, ast.IndexKeyTypeColumnar:
		return fmt.Errorf("%w: line %d: CREATE INDEX %s: only plain, UNIQUE and FULLTEXT indexes are folded into a CREATE TABLE (TiDB has no SPATIAL index)", ErrScript, line, n.IndexName)
	}
	if err := fold(t, cons); err != nil {
		return fmt.Errorf("line %d: %w", line, err)
	}
	r.note(line, "CREATE INDEX %s folded into CREATE TABLE %s", n.IndexName, t.QualifiedName())
	return nil
}

// alter folds ALTER TABLE into the table the script created, and skips
// DISABLE/ENABLE KEYS.
func (r *scriptReader) alter(n *ast.AlterTableStmt, line int) error {
	keysOnly := true
	for _, spec := range n.Specs {
		if spec.Tp != ast.AlterTableDisableKeys && spec.Tp != ast.AlterTableEnableKeys {
			keysOnly = false
		}
	}
	if keysOnly {
		r.skip("session statements not run (SET, BEGIN/COMMIT, LOCK/UNLOCK TABLES): they steer the session that runs the script", line)
		return nil
	}
	t := r.byName[strings.ToLower(Qualified(n.Table))]
	if t == nil {
		return fmt.Errorf("%w: line %d: ALTER TABLE %s, which the script does not create (for an existing table use shardid tidb render --alter)", ErrScript, line, Qualified(n.Table))
	}
	var did []string
	for _, spec := range n.Specs {
		var err error
		switch {
		case spec.Tp == ast.AlterTableAddColumns && spec.NewConstraints == nil:
			err, did = foldColumns(t, spec), append(did, "ADD COLUMN")
		case spec.Tp == ast.AlterTableAddConstraint && spec.Constraint != nil && spec.Constraint.Tp == ast.ConstraintPrimaryKey:
			if err = t.setPrimaryKey(spec.Constraint); err != nil {
				err = fmt.Errorf("%w: ADD PRIMARY KEY: %s already has one", ErrScript, t.QualifiedName())
			}
			did = append(did, "ADD PRIMARY KEY")
		case spec.Tp == ast.AlterTableAddConstraint && spec.Constraint != nil && spec.Constraint.Tp == ast.ConstraintForeignKey && r.dataSeen:
			var ix Index
			if ix, err = parseIndex(spec.Constraint); err == nil {
				r.s.Statements = append(r.s.Statements, &Statement{Kind: KindForeignKey, Object: t.QualifiedName(), What: "ALTER TABLE " + t.QualifiedName() + " ADD FOREIGN KEY " + cmp.Or(ix.Name, "(unnamed)"),
					Key: &ForeignKey{Table: t, Key: ix}, File: r.file, Line: line})
			}
			did = append(did, "ADD FOREIGN KEY kept after the data before it")
		case spec.Tp == ast.AlterTableAddConstraint && spec.Constraint != nil:
			err, did = fold(t, spec.Constraint), append(did, "ADD KEY")
		case spec.Tp == ast.AlterTableModifyColumn || (spec.Tp == ast.AlterTableChangeColumn && len(spec.NewColumns) == 1 && spec.OldColumnName != nil && strings.EqualFold(spec.OldColumnName.Name.O, spec.NewColumns[0].Name.Name.O)):
			err, did = modifyColumn(t, spec), append(did, "MODIFY COLUMN")
		case spec.Tp == ast.AlterTableOption:
			for _, o := range spec.Options {
				if err = t.setOption(o); err != nil {
					break
				}
			}
			did = append(did, "table options")
		case spec.Tp == ast.AlterTablePartition && spec.Partition != nil:
			err, did = t.setPartition(spec.Partition), append(did, "PARTITION BY")
		case spec.Tp == ast.AlterTableDisableKeys || spec.Tp == ast.AlterTableEnableKeys:
		default:
			return fmt.Errorf("%w: line %d: ALTER TABLE %s: only ADD COLUMN, ADD KEY/INDEX/UNIQUE/FULLTEXT/PRIMARY/FOREIGN KEY, MODIFY COLUMN, table options (ENGINE=, AUTO_INCREMENT=, …) and PARTITION BY can be folded into its CREATE TABLE; write the change into the CREATE TABLE", ErrScript, line, t.QualifiedName())
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	t.markNational(n.Text())
	if slices.Equal(slices.Compact(did), []string{"ADD FOREIGN KEY kept after the data before it"}) {
		r.note(line, "ALTER TABLE %s ADD FOREIGN KEY kept in its place, after the data before it (which loads without the key, as in the script)", t.QualifiedName())
		return nil
	}
	r.note(line, "ALTER TABLE %s (%s) folded into its CREATE TABLE", t.QualifiedName(), strings.Join(slices.Compact(did), ", "))
	return nil
}

// modifyColumn replaces a column's definition (MODIFY, or CHANGE keeping
// the name), where the spec puts it.
func modifyColumn(t *Table, spec *ast.AlterTableSpec) error {
	cd := spec.NewColumns[0]
	c, pk, err := parseColumn(cd)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(t.Columns, func(x Column) bool { return strings.EqualFold(x.Name, c.Name) })
	if i < 0 {
		return fmt.Errorf("%w: MODIFY COLUMN %s: no such column in %s", ErrScript, c.Name, t.QualifiedName())
	}
	t.Columns = slices.Delete(t.Columns, i, i+1)
	if spec.Position != nil && spec.Position.Tp != ast.ColumnPositionNone {
		if err := foldColumns(t, &ast.AlterTableSpec{NewColumns: []*ast.ColumnDef{cd}, Position: spec.Position}); err != nil {
			return err
		}
	} else {
		t.Columns = slices.Insert(t.Columns, i, c)
	}
	if pk != nil {
		if t.PrimaryKey != nil {
			return fmt.Errorf("%w: MODIFY COLUMN %s … PRIMARY KEY: %s already has one", ErrScript, c.Name, t.QualifiedName())
		}
		t.PrimaryKey = pk
	}
	return nil
}

// foldColumns adds the columns of ALTER TABLE … ADD COLUMN to t, where
// the spec puts them (FIRST, AFTER c, or last).
func foldColumns(t *Table, spec *ast.AlterTableSpec) error {
	at := len(t.Columns)
	if pos := spec.Position; pos != nil {
		switch pos.Tp {
		case ast.ColumnPositionFirst:
			at = 0
		case ast.ColumnPositionAfter:
			at = -1
			for i, c := range t.Columns {
				if strings.EqualFold(c.Name, pos.RelativeColumn.Name.O) {
					at = i + 1
				}
			}
			if at < 0 {
				return fmt.Errorf("%w: ADD COLUMN … AFTER %s: no such column in %s", ErrScript, pos.RelativeColumn.Name.O, t.QualifiedName())
			}
		}
	}
	for _, cd := range spec.NewColumns {
		c, pk, err := parseColumn(cd)
		if err != nil {
			return err
		}
		if pk != nil {
			return fmt.Errorf("%w: ADD COLUMN %s … PRIMARY KEY: write the key into the CREATE TABLE", ErrScript, c.Name)
		}
		if t.Column(c.Name) != nil {
			return fmt.Errorf("%w: ADD COLUMN %s: %s already has that column", ErrScript, c.Name, t.QualifiedName())
		}
		t.Columns = slices.Insert(t.Columns, at, c)
		at++
	}
	return nil
}

// fold adds a key or constraint to t.
func fold(t *Table, cons *ast.Constraint) error {
	ix, err := parseIndex(cons)
	if err != nil {
		return err
	}
	t.Indexes = append(t.Indexes, ix)
	return nil
}

// view keeps CREATE VIEW, printed by TiDB's parser without OR REPLACE.
func (r *scriptReader) view(n *ast.CreateViewStmt, line int) error {
	n.OrReplace = false
	sql, err := restoreWith(n, dataRestoreFlags)
	if err != nil {
		return fmt.Errorf("line %d: print view %s: %w", line, n.ViewName.Name.O, err)
	}
	r.s.Statements = append(r.s.Statements, &Statement{Kind: KindView, Object: Qualified(n.ViewName), What: "CREATE VIEW " + Qualified(n.ViewName), SQL: sql, File: r.file, Line: line})
	r.s.Accounted++
	return nil
}

// byHand keeps a statement no migration runs.
func (r *scriptReader) byHand(st ast.StmtNode, line int, why string) error {
	r.s.Statements = append(r.s.Statements, &Statement{Kind: KindRoutine, What: statementWords(st), SQL: strings.TrimSpace(st.Text()), Verbatim: true, ByHand: true, Why: why, File: r.file, Line: line})
	r.s.Accounted++
	return nil
}
