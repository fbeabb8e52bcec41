package tidb

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ErrScript is returned by ParseScript for a statement it will not handle
// (data without ScriptOptions.SkipData, an ALTER TABLE other than adding
// keys, an index on a table the script does not create, tables whose
// FOREIGN KEYs reference each other in a cycle); the message names the
// line.
var ErrScript = errors.New("schema script")

// ErrNoCreateTable is returned by ParseScript when the script holds no
// CREATE TABLE statement: it is empty, holds only comments, or only
// statements that are not run (SET, DROP, CREATE VIEW, …).
var ErrNoCreateTable = errors.New("no CREATE TABLE statement")

// Script is a schema script or mysqldump read by ParseScript.
type Script struct {
	// Tables are its CREATE TABLE statements in the order they must run:
	// the script's order, except that a table comes after the tables its
	// FOREIGN KEYs reference.
	Tables []*Table
	// Notes say, one line each, what was done with every statement that is
	// not a CREATE TABLE: folded into a table, reordered, or not run and
	// why.
	Notes []string
}

// ScriptOptions configures ParseScript. The zero value refuses data.
type ScriptOptions struct {
	// SkipData skips INSERT, REPLACE, LOAD DATA, UPDATE and DELETE
	// statements (listed in Script.Notes) instead of refusing the script.
	SkipData bool
}

// ParseScript reads a schema script: one or more statements as the mysql
// client takes them (comments, DELIMITER commands, /*!NNNNN … */
// conditional comments, a leading UTF-8 byte order mark). What it does
// with each statement, by kind:
//
//   - CREATE TABLE: kept, in order (FOREIGN KEY targets first);
//   - CREATE INDEX and ALTER TABLE … ADD KEY/INDEX/UNIQUE/FULLTEXT/FOREIGN
//     KEY on a table the script creates: folded into that CREATE TABLE;
//   - SET (NAMES, FOREIGN_KEY_CHECKS, SQL_MODE, variables), BEGIN/COMMIT,
//     LOCK/UNLOCK TABLES, ALTER TABLE … DISABLE/ENABLE KEYS: not run, they
//     only steer the session that runs the script;
//   - DROP TABLE/DATABASE/VIEW …: never run (shardid never drops; a
//     migration refuses a table that already exists instead);
//   - CREATE DATABASE and USE: not run, tables go into the database of the
//     connection (a qualified table name keeps its schema);
//   - CREATE VIEW, TRIGGER, PROCEDURE, FUNCTION, EVENT: not run (views
//     are not tables; TiDB has no triggers, stored procedures or events);
//   - INSERT, REPLACE, LOAD DATA, UPDATE, DELETE: refused unless
//     SkipData;
//   - anything else: refused.
//
// Everything not run is listed in Script.Notes. It returns errors wrapping
// ErrParse, ErrScript, ErrNoCreateTable, ErrNotCreateTable and
// ErrInvalidIdentifier.
func ParseScript(text string, o ScriptOptions) (*Script, error) {
	s := &Script{}
	byName := map[string]*Table{}
	skipped := map[string][]int{} // reason → lines
	skip := func(reason string, line int) {
		if _, ok := skipped[reason]; !ok {
			s.Notes = append(s.Notes, reason) // placeholder, filled below
		}
		skipped[reason] = append(skipped[reason], line)
	}
	var others []string // the first four statements, while no CREATE TABLE came
	other := func(what string) {
		if len(s.Tables) == 0 && len(others) < 4 {
			others = append(others, what)
		}
	}
	p := parser.New()
	for _, c := range splitScript(strings.TrimPrefix(text, bom)) {
		stmts, err := parseSQL(p, c.text)
		if err != nil {
			if m := unsupportedObject.FindStringSubmatch(versionComment.ReplaceAllString(c.text, " ")); m != nil {
				skip(fmt.Sprintf("CREATE %s not run (TiDB has no %ss)", strings.ToUpper(m[1]), strings.ToLower(m[1])), c.line)
				other("CREATE " + strings.ToUpper(m[1]))
				continue
			}
			return nil, fmt.Errorf("%w: line %d: %s", ErrParse, c.line+errLine(err)-1, firstLine(err.Error()))
		}
		for _, st := range stmts {
			line := c.line + strings.Count(c.text[:min(max(st.OriginTextPosition(), 0), len(c.text))], "\n")
			if _, ok := st.(*ast.CreateTableStmt); !ok {
				other(statementWords(st))
			}
			switch n := st.(type) {
			case *ast.CreateTableStmt:
				t, err := fromCreate(n)
				if err != nil {
					return nil, fmt.Errorf("line %d: %w", line, err)
				}
				t.Line = line
				key := strings.ToLower(t.QualifiedName())
				if byName[key] != nil {
					return nil, fmt.Errorf("%w: line %d: table %s is created twice (first at line %d)", ErrScript, line, t.QualifiedName(), byName[key].Line)
				}
				byName[key] = t
				s.Tables = append(s.Tables, t)
			case *ast.CreateIndexStmt:
				t := byName[strings.ToLower(qualified(n.Table))]
				if t == nil {
					return nil, fmt.Errorf("%w: line %d: CREATE INDEX %s on %s, which the script does not create (shardid renders new tables; add the index to the table yourself)", ErrScript, line, n.IndexName, qualified(n.Table))
				}
				cons := &ast.Constraint{Tp: ast.ConstraintIndex, Name: n.IndexName, Keys: n.IndexPartSpecifications, Option: n.IndexOption}
				switch n.KeyType {
				case ast.IndexKeyTypeUnique:
					cons.Tp = ast.ConstraintUniq
				case ast.IndexKeyTypeFulltext:
					cons.Tp = ast.ConstraintFulltext
				case ast.IndexKeyTypeSpatial, ast.IndexKeyTypeVector, ast.IndexKeyTypeColumnar:
					return nil, fmt.Errorf("%w: line %d: %s: only plain, UNIQUE and FULLTEXT indexes are folded into a CREATE TABLE", ErrScript, line, statementWords(st))
				}
				if err := fold(t, cons); err != nil {
					return nil, fmt.Errorf("line %d: %w", line, err)
				}
				s.Notes = append(s.Notes, fmt.Sprintf("line %d: CREATE INDEX %s folded into CREATE TABLE %s", line, n.IndexName, t.QualifiedName()))
			case *ast.AlterTableStmt:
				if err := alterInScript(s, byName, n, line, skip); err != nil {
					return nil, err
				}
			case *ast.SetStmt, *ast.BeginStmt, *ast.CommitStmt, *ast.RollbackStmt, *ast.LockTablesStmt, *ast.UnlockTablesStmt:
				skip("session statements not run (SET, BEGIN/COMMIT, LOCK/UNLOCK TABLES): they steer the session that runs the script", line)
			case *ast.DropTableStmt, *ast.DropDatabaseStmt:
				skip("DROP statements never run (a migration refuses a table that already exists instead of dropping it)", line)
			case *ast.CreateDatabaseStmt, *ast.UseStmt:
				skip("CREATE DATABASE/USE not run: tables go into the connection's database", line)
			case *ast.CreateViewStmt:
				skip("CREATE VIEW not run (views are not tables: create them after the tables)", line)
			case *ast.InsertStmt, *ast.LoadDataStmt, *ast.UpdateStmt, *ast.DeleteStmt:
				if !o.SkipData {
					return nil, fmt.Errorf("%w: line %d: %s: the script holds data; shardid renders tables only (skip the data with --skip-data and load it once the tables exist)", ErrScript, line, statementWords(st))
				}
				skip("data statements skipped (INSERT, REPLACE, LOAD DATA, UPDATE, DELETE)", line)
			default:
				return nil, fmt.Errorf("%w: line %d: %s is not supported in a schema script (see shardid tidb render -h)", ErrScript, line, statementWords(st))
			}
		}
	}
	for i, n := range s.Notes {
		if lines, ok := skipped[n]; ok {
			s.Notes[i] = fmt.Sprintf("%s: %s", lineList(lines), n)
		}
	}
	if len(s.Tables) == 0 {
		if len(others) == 0 {
			return nil, fmt.Errorf("%w (the script is empty or holds only comments)", ErrNoCreateTable)
		}
		if len(others) == 4 {
			others[3] = "…"
		}
		return nil, fmt.Errorf("%w (only %s)", ErrNoCreateTable, strings.Join(others, ", "))
	}
	var err error
	s.Tables, err = orderByReferences(s, s.Tables)
	return s, err
}

// alterInScript folds ALTER TABLE … ADD KEY/CONSTRAINT into the table the
// script created, and skips DISABLE/ENABLE KEYS.
func alterInScript(s *Script, byName map[string]*Table, n *ast.AlterTableStmt, line int, skip func(string, int)) error {
	keysOnly := true
	for _, spec := range n.Specs {
		if spec.Tp != ast.AlterTableDisableKeys && spec.Tp != ast.AlterTableEnableKeys {
			keysOnly = false
		}
	}
	if keysOnly {
		skip("session statements not run (SET, BEGIN/COMMIT, LOCK/UNLOCK TABLES): they steer the session that runs the script", line)
		return nil
	}
	t := byName[strings.ToLower(qualified(n.Table))]
	if t == nil {
		return fmt.Errorf("%w: line %d: ALTER TABLE %s, which the script does not create (for an existing table use shardid tidb render --alter)", ErrScript, line, qualified(n.Table))
	}
	for _, spec := range n.Specs {
		var err error
		switch {
		case spec.Tp == ast.AlterTableAddColumns && spec.NewConstraints == nil:
			err = foldColumns(t, spec)
		case spec.Tp == ast.AlterTableAddConstraint && spec.Constraint != nil && spec.Constraint.Tp != ast.ConstraintPrimaryKey:
			err = fold(t, spec.Constraint)
		default:
			return fmt.Errorf("%w: line %d: ALTER TABLE %s: only ADD COLUMN and ADD KEY/INDEX/UNIQUE/FULLTEXT/FOREIGN KEY can be folded into its CREATE TABLE; write the change into the CREATE TABLE", ErrScript, line, t.QualifiedName())
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	s.Notes = append(s.Notes, fmt.Sprintf("line %d: ALTER TABLE %s … ADD folded into its CREATE TABLE", line, t.QualifiedName()))
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

// orderByReferences returns tables with each one after the tables of the
// script its FOREIGN KEYs reference, otherwise in script order, noting
// every table moved; a cycle is refused.
func orderByReferences(s *Script, tables []*Table) ([]*Table, error) {
	byName := map[string]bool{}
	for _, t := range tables {
		byName[strings.ToLower(t.QualifiedName())] = true
	}
	refs := func(t *Table) []string {
		var out []string
		for _, ix := range t.Indexes {
			if ix.References == "" {
				continue
			}
			r := ix.References
			if ix.ReferencesSchema != "" {
				r = ix.ReferencesSchema + "." + r
			} else if t.Schema != "" {
				r = t.Schema + "." + r
			}
			if r = strings.ToLower(r); byName[r] && r != strings.ToLower(t.QualifiedName()) {
				out = append(out, r)
			}
		}
		return out
	}
	placed := map[string]bool{}
	var out []*Table
	rest := tables
	for len(rest) > 0 {
		progress := false
		for i, t := range rest {
			ready := true
			for _, r := range refs(t) {
				ready = ready && placed[r]
			}
			if !ready {
				continue
			}
			if i > 0 {
				s.Notes = append(s.Notes, fmt.Sprintf("line %d: CREATE TABLE %s moved after the tables its FOREIGN KEYs reference", t.Line, t.QualifiedName()))
			}
			placed[strings.ToLower(t.QualifiedName())] = true
			out = append(out, t)
			rest = append(rest[:i:i], rest[i+1:]...)
			progress = true
			break
		}
		if !progress {
			var names []string
			for _, t := range rest {
				names = append(names, t.QualifiedName())
			}
			return nil, fmt.Errorf("%w: the FOREIGN KEYs of %s reference each other in a cycle; TiDB creates a FOREIGN KEY only to an existing table, so drop one of them from the script and add it with ALTER TABLE once both tables exist", ErrScript, strings.Join(names, ", "))
		}
	}
	return out, nil
}

func qualified(n *ast.TableName) string {
	if n.Schema.O != "" {
		return n.Schema.O + "." + n.Name.O
	}
	return n.Name.O
}

// lineList prints "line 3" or "lines 3, 9, 12" (at most five, then "…").
func lineList(lines []int) string {
	var parts []string
	for i, l := range lines {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(lines)))
			break
		}
		parts = append(parts, fmt.Sprint(l))
	}
	if len(lines) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

var (
	// versionComment matches the opening of a MySQL conditional comment
	// (/*!50003) and its closing, to read the statement inside.
	versionComment = regexp.MustCompile(`/\*!\d*|\*/`)
	// unsupportedObject matches CREATE [DEFINER=…] TRIGGER|PROCEDURE|
	// FUNCTION|EVENT.
	unsupportedObject = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:SQL\s+SECURITY\s+\w+\s+)?(?:AGGREGATE\s+)?(TRIGGER|PROCEDURE|FUNCTION|EVENT)\b`)
	// parseLine finds the line TiDB's parser names in its error.
	parseLine = regexp.MustCompile(`^line (\d+) `)
)

// errLine returns the line number in a TiDB parser error, or 1.
func errLine(err error) int {
	var n int
	if m := parseLine.FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscan(m[1], &n)
	}
	return max(n, 1)
}

// chunk is one statement of a script as the mysql client sends it, with
// the line it starts on.
type chunk struct {
	text string
	line int
}

// splitScript cuts a script into statements the way the mysql client
// does: at the current delimiter (";" until a DELIMITER command changes
// it) outside quotes and comments.
func splitScript(text string) []chunk {
	var out []chunk
	delim := ";"
	start, line, startLine := 0, 1, 1 // start: the statement's first byte that is not space or a comment
	blank := true                     // nothing but space and comments since the last delimiter
	emit := func(end int) {
		if !blank {
			out = append(out, chunk{text: text[start:end], line: startLine})
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
			if blank {
				startLine = line
			}
			continue
		case blank && (c == ' ' || c == '\t' || c == '\r'):
			i++
			continue
		case blank && hasWordPrefix(text[i:], "DELIMITER"):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			if f := strings.Fields(text[i+len("DELIMITER") : i+end]); len(f) > 0 {
				delim = f[0]
			}
			i += end
			continue
		case c == '#' || (c == '-' && strings.HasPrefix(text[i:], "--") && (i+2 == len(text) || strings.ContainsRune(" \t\r\n", rune(text[i+2])))):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			i += end
			continue
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				end = len(text) - i - 4
			}
			seg := text[i : i+end+4]
			if blank && (strings.HasPrefix(seg, "/*!") || strings.HasPrefix(seg, "/*T!")) {
				blank, startLine, start = false, line, i
			}
			line += strings.Count(seg, "\n")
			i += len(seg)
			continue
		case c == '\'' || c == '"' || c == '`':
			if blank {
				blank, startLine, start = false, line, i
			}
			j := i + 1
			for j < len(text) {
				if text[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(text))
			line += strings.Count(text[i:j], "\n")
			i = j
			continue
		case strings.HasPrefix(text[i:], delim):
			emit(i)
			i += len(delim)
			blank, startLine = true, line
			continue
		}
		if blank {
			blank, startLine, start = false, line, i
		}
		i++
	}
	emit(len(text))
	return out
}

// hasWordPrefix reports whether s starts with word (any case) followed by
// a space or tab.
func hasWordPrefix(s, word string) bool {
	return len(s) > len(word) && strings.EqualFold(s[:len(word)], word) && (s[len(word)] == ' ' || s[len(word)] == '\t')
}
