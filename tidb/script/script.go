package script

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ErrScript is returned by ParseScript for a statement it will not handle
// (an ALTER TABLE it cannot fold into the table, an index or ALTER on a
// table the script does not create, a statement TiDB has no counterpart
// for, such as a GEOMETRY column); the message names the line and says
// what to do.
var ErrScript = errors.New("schema script")

// ErrNoCreateTable is returned by ParseScript when the script holds no
// CREATE TABLE statement and nothing else to keep: it is empty, holds
// only comments, or only session statements, DROPs and data (SET, DROP,
// INSERT, …). A script of views, routines, triggers or events alone is
// read.
var ErrNoCreateTable = errors.New("no CREATE TABLE statement")

// Script is one or more schema scripts, or mysqldumps, read by
// ParseScripts.
type Script struct {
	// Tables are its CREATE TABLE statements in the order they must run:
	// the script's order, except that a table comes after the tables its
	// FOREIGN KEYs reference.
	Tables []*Table
	// ForeignKeys are FOREIGN KEYs taken out of their tables to break a
	// cycle (a references b, b references a): each is added by an ALTER
	// TABLE once every table exists.
	ForeignKeys []*ForeignKey
	// Statements are what the scripts hold besides tables and what folds
	// into them, in script order: data, views, routines and statements
	// to apply by hand.
	Statements []*Statement
	// Notes say, one line each, what was done with every statement that is
	// not a CREATE TABLE: folded into a table, reordered, kept as a
	// statement, or not run and why.
	Notes []string
	// Database is the database the scripts' last USE selected ("" for
	// none): where the mysql client would have put their tables.
	Database string
	// Read is how many statements the scripts hold; Accounted how many of
	// them ParseScripts placed (a table, a fold, a statement, a note).
	// They are equal: a statement never goes missing without a word.
	Read, Accounted int

	sets []sessionSet // SET @v = … among the statements, for RenderScript
}

// sessionSet is a SET of user variables, which comes before
// Statements[at].
type sessionSet struct {
	at int
	st *Statement
}

// ForeignKey is a FOREIGN KEY added after the tables (Script.ForeignKeys).
type ForeignKey struct {
	// Table is the table that holds the key.
	Table *Table
	// Key is the FOREIGN KEY clause (Index.Text).
	Key Index
}

// Statement is a statement of a script other than a table or what
// folds into one.
type Statement struct {
	// Kind is KindData, KindView or KindRoutine.
	Kind Kind
	// Object names what it makes or writes: the table a data statement
	// writes (first of them), the view, the routine ("" when unknown).
	Object string
	// Writes lists every table a data statement writes.
	Writes []string
	// ObjectType is TRIGGER, PROCEDURE, FUNCTION or EVENT for a routine
	// ("" for a CALL).
	ObjectType string
	// What names the statement for notes, e.g. "CREATE TRIGGER ins_film".
	What string
	// SQL is the statement: as TiDB's parser prints it (data and views,
	// always one statement TiDB reads), or as written (Verbatim).
	SQL string
	// Verbatim reports text TiDB's parser does not read (routine bodies,
	// client commands): it is never sent to TiDB.
	Verbatim bool
	// ByHand reports a statement no migration runs on any server: it
	// reads a file on the client (LOAD DATA, source) or manages accounts
	// (CREATE USER, GRANT).
	ByHand bool
	// Why says why a ByHand statement is left to the user.
	Why string
	// Key is the FOREIGN KEY of a KindForeignKey statement: an ALTER TABLE
	// … ADD FOREIGN KEY that comes after data, kept in its place so the
	// data before it loads without the key, as the script does.
	Key *ForeignKey
	// Drop reports a DROP of a routine (DROP PROCEDURE IF EXISTS …),
	// which goes with the routine to the by-hand list and is otherwise not
	// run, like every DROP.
	Drop bool
	// ForeignKeyChecks is the session's FOREIGN_KEY_CHECKS where the
	// script runs a data statement (SET FOREIGN_KEY_CHECKS=0 before a
	// dump's data is common).
	ForeignKeyChecks bool
	// File and Line say where it starts.
	File string
	Line int

	node ast.StmtNode // a data statement as parsed, for RenderScript to give it keys
	load bool         // a LOAD DATA (ByHand), whose rows come after the migrations
	// assigns are the user variables a SET gives values (Script.sets):
	// not run, RenderScript writes their values into the data statements
	// that read them.
	assigns []*ast.VariableAssignment
}

// Options configures ParseScripts. The zero value keeps data.
type Options struct {
	// SkipData leaves INSERT, REPLACE, UPDATE, DELETE and LOAD DATA out
	// (listed in Script.Notes) instead of keeping them as data statements.
	SkipData bool
	// Collations renames collations in table and column definitions
	// (lower-case FROM → TO, ParseCollations), for a collation the server
	// lacks: TiDB has no latin1_general_cs, MariaDB 10.11 no
	// utf8mb4_0900_ai_ci. Each rename is noted.
	Collations map[string]string
}

// File is one script and the name its notes and errors carry.
type File struct {
	Name, Text string
}

// ParseScript reads one script; see ParseScripts.
func ParseScript(text string, o Options) (*Script, error) {
	return ParseScripts([]File{{Text: text}}, o)
}

// ParseScripts reads schema scripts, one after the other as the mysql
// client would run them (a data file after the schema file it fills),
// each statement as the client sends it (comments, DELIMITER commands,
// /*!NNNNN … */ conditional comments, a leading UTF-8 byte order mark).
// What it does with each statement, by kind:
//
//   - CREATE TABLE: kept, in order (FOREIGN KEY targets first; a cycle of
//     FOREIGN KEYs is broken by moving the key that closes it to
//     Script.ForeignKeys);
//   - CREATE INDEX and ALTER TABLE on a table the scripts create: folded
//     into that CREATE TABLE (ADD COLUMN, ADD KEY/INDEX/UNIQUE/FULLTEXT/
//     PRIMARY/FOREIGN KEY, MODIFY COLUMN, ENGINE= and other table
//     options, PARTITION BY);
//   - INSERT, REPLACE, UPDATE, DELETE: data statements (unless SkipData),
//     in script order, with the FOREIGN_KEY_CHECKS the script set;
//   - CREATE VIEW: a view statement (OR REPLACE left out: an existing view
//     is refused, never replaced);
//   - CREATE and DROP of TRIGGER, PROCEDURE, FUNCTION, EVENT, and CALL:
//     routine statements, kept as written;
//   - LOAD DATA, the client's source command, CREATE USER, GRANT and the
//     other account statements: kept for applying by hand;
//   - SET, BEGIN/COMMIT, LOCK/UNLOCK TABLES, ALTER TABLE … DISABLE/ENABLE
//     KEYS, FLUSH, ANALYZE, informational SELECTs, client commands other
//     than source: not run, they steer or report on the session (a user
//     variable a SET gives a value is followed by RenderScript, which
//     writes it into the data statements that read it);
//   - a DELIMITER block holding several statements (DROP TRIGGER IF
//     EXISTS t; CREATE TRIGGER t …): each statement on its own;
//   - DROP TABLE/DATABASE/VIEW: never run (a migration refuses a table
//     that already exists instead of dropping it);
//   - CREATE DATABASE and USE: not run, tables go into the database of
//     the connection; a name qualified with the database a USE selected
//     loses the qualifier, other qualified names keep theirs;
//   - anything else: refused.
//
// A conditional comment whose text TiDB cannot read (/*!50705 location
// GEOMETRY …*/) is left out with every other of its version or later, in
// every file: what MySQL before that version runs, which such a script
// is written to allow. Everything not kept is listed in Script.Notes. It
// returns errors wrapping ErrParse, ErrScript, ErrNoCreateTable,
// ErrNotCreateTable and ErrInvalidIdentifier.
func ParseScripts(files []File, o Options) (*Script, error) {
	r := &scriptReader{s: &Script{}, o: o, byName: map[string]*Table{}, skipped: map[string][]int{}, fkChecks: true, p: parser.New()}
	chunks := make([][]chunk, len(files))
	for i, f := range files {
		chunks[i] = splitScript(strings.TrimPrefix(f.Text, bom))
	}
	cutoff := r.versionCutoff(chunks)
	for i, f := range files {
		r.file = f.Name
		for _, c := range chunks[i] {
			if err := r.chunk(c, cutoff); err != nil {
				if f.Name != "" {
					return nil, fmt.Errorf("%s: %w", f.Name, err)
				}
				return nil, err
			}
		}
	}
	s := r.s
	for i, n := range s.Notes {
		if lines, ok := r.skipped[n]; ok {
			file, reason, _ := strings.Cut(n, "\x00")
			s.Notes[i] = fmt.Sprintf("%s: %s", LineList(lines), reason)
			if file != "" {
				s.Notes[i] = file + ": " + s.Notes[i]
			}
		}
	}
	if len(s.Tables) == 0 && !keepsObjects(s) {
		var names []string
		for _, f := range files {
			if f.Name != "" {
				names = append(names, f.Name)
			}
		}
		prefix := ""
		if len(names) > 0 {
			prefix = strings.Join(names, ", ") + ": "
		}
		if len(r.others) == 0 {
			return nil, fmt.Errorf("%s%w (the script is empty or holds only comments)", prefix, ErrNoCreateTable)
		}
		if len(r.others) == 4 {
			r.others[3] = "…"
		}
		hint := ""
		if r.dataSeen {
			hint = "; a data file goes after the script that creates its tables: shardid tidb render SCHEMA.sql DATA.sql"
		}
		return nil, fmt.Errorf("%s%w (only %s)%s", prefix, ErrNoCreateTable, strings.Join(r.others, ", "), hint)
	}
	if err := r.order(); err != nil {
		return nil, err
	}
	return s, nil
}

// keepsObjects reports a script without tables that still holds objects
// to keep: views, routines, triggers, events, grants and other
// statements to apply by hand. Such a script (routines written apart from
// the schema) is rendered like any other; one with only data is refused,
// its tables being in another file.
func keepsObjects(s *Script) bool {
	for _, st := range s.Statements {
		if st.Kind != KindData || st.ByHand {
			return true
		}
	}
	return false
}

// scriptReader is the state of ParseScripts.
type scriptReader struct {
	s        *Script
	o        Options
	p        *parser.Parser
	byName   map[string]*Table
	skipped  map[string][]int // file "\x00" reason → lines
	others   []string         // the first four statements, while no CREATE TABLE came
	file     string           // the file being read
	useDB    string           // the database the last USE selected
	fkChecks bool             // the script's FOREIGN_KEY_CHECKS
	dataSeen bool             // a data statement was kept
}

// place names a line of the file being read: "line 7", or "f.sql:7"
// in a note about several files.
func (r *scriptReader) where(line int) string {
	if r.file != "" {
		return fmt.Sprintf("%s: line %d", r.file, line)
	}
	return fmt.Sprintf("line %d", line)
}

// skip notes a statement not run, grouping the lines of one reason in
// one file.
func (r *scriptReader) skip(reason string, line int) {
	key := r.file + "\x00" + reason
	if _, ok := r.skipped[key]; !ok {
		r.s.Notes = append(r.s.Notes, key) // placeholder, filled at the end
	}
	r.skipped[key] = append(r.skipped[key], line)
	r.s.Accounted++
}

// note adds a note about one statement and counts it placed.
func (r *scriptReader) note(line int, format string, args ...any) {
	r.s.Notes = append(r.s.Notes, r.where(line)+": "+fmt.Sprintf(format, args...))
	r.s.Accounted++
}

func (r *scriptReader) other(what string) {
	if len(r.s.Tables) == 0 && len(r.others) < 4 {
		r.others = append(r.others, what)
	}
}

// versionCutoff finds the oldest version whose conditional comments must
// go for TiDB to read every statement: for each statement TiDB's parser
// refuses, the newest version that, left out with every later one, makes
// it readable. 0 when nothing needs to go.
func (r *scriptReader) versionCutoff(files [][]chunk) int {
	cutoff := 0
	for _, chunks := range files {
		for _, c := range chunks {
			if c.client {
				continue
			}
			versions := versionComments(c.text)
			if len(versions) == 0 || (cutoff > 0 && versions[len(versions)-1] < cutoff) {
				continue
			}
			if _, err := ParseSQL(r.p, c.text); err == nil || routineStatement.MatchString(versionComment.ReplaceAllString(c.text, " ")) {
				continue // readable, or a routine, which TiDB never reads
			}
			for i := len(versions) - 1; i >= 0; i-- {
				text, _ := stripVersions(c.text, versions[i])
				if stmts, err := ParseSQL(r.p, text); err == nil && len(stmts) > 0 {
					if cutoff == 0 || versions[i] < cutoff {
						cutoff = versions[i]
					}
					break
				}
			}
		}
	}
	return cutoff
}

// chunk reads one statement.
func (r *scriptReader) chunk(c chunk, cutoff int) error {
	if c.client {
		r.s.Read++
		return r.client(c)
	}
	text := c.text
	if cutoff > 0 {
		var n int
		if text, n = stripVersions(text, cutoff); n > 0 {
			r.s.Notes = append(r.s.Notes, fmt.Sprintf("%s: %d conditional comment(s) /*!%d… */ or later left out, as MySQL before %s runs the script: TiDB cannot read what one of them holds", r.where(c.line), n, cutoff, mysqlVersion(cutoff)))
		}
	}
	stmts, err := ParseSQL(r.p, text)
	if err != nil {
		r.s.Read++
		return r.unparsed(c, text, err)
	}
	r.s.Read += len(stmts)
	for _, st := range stmts {
		line := c.line + strings.Count(text[:min(max(st.OriginTextPosition(), 0), len(text))], "\n")
		if _, ok := st.(*ast.CreateTableStmt); !ok {
			r.other(statementWords(st))
		}
		if err := r.statement(st, line); err != nil {
			return err
		}
	}
	return nil
}

// mysqlVersion prints a conditional comment's version: 50705 is 5.7.5.
func mysqlVersion(v int) string {
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
}

// client handles a mysql client command.
func (r *scriptReader) client(c chunk) error {
	word := strings.ToLower(strings.Fields(c.text)[0])
	r.other(`"` + c.text + `"`)
	if word == "source" || word == `\.` {
		r.s.Statements = append(r.s.Statements, &Statement{Kind: KindRoutine, What: c.text, SQL: c.text, Verbatim: true, ByHand: true,
			Why: "the mysql client reads this file, which shardid was not given: render it as another input (shardid tidb render SCRIPT FILE), or load it by hand", File: r.file, Line: c.line})
		r.s.Accounted++
		return nil
	}
	r.skip("mysql client commands not run (charset, warnings, tee, prompt, …): they steer the client", c.line)
	return nil
}

var (
	// routineStatement matches CREATE [OR REPLACE] [DEFINER=…] [SQL
	// SECURITY …] [AGGREGATE] TRIGGER|PROCEDURE|FUNCTION|EVENT name and
	// DROP TRIGGER|PROCEDURE|FUNCTION|EVENT [IF EXISTS] name.
	routineStatement = regexp.MustCompile("(?is)^\\s*(CREATE|DROP)\\s+(?:OR\\s+REPLACE\\s+)?(?:DEFINER\\s*=\\s*\\S+\\s+)?(?:SQL\\s+SECURITY\\s+\\w+\\s+)?(?:AGGREGATE\\s+)?(TRIGGER|PROCEDURE|FUNCTION|EVENT)\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?((?:`[^`]+`|[\\w$]+)(?:\\s*\\.\\s*(?:`[^`]+`|[\\w$]+))?)")
	// spatialColumn matches a column of a spatial type, or a SPATIAL key.
	spatialColumn = regexp.MustCompile("(?i)(`[^`]+`|[\\w$]+)\\s+(GEOMETRY|POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION|GEOMCOLLECTION)\\b|\\bSPATIAL\\s+(?:KEY|INDEX)\\s+(`[^`]+`|[\\w$]+)?")
	// versionComment matches the opening of a MySQL conditional comment
	// (/*!50003) and its closing, to read the statement inside.
	versionComment = regexp.MustCompile(`/\*!\d*|\*/`)
	// parseLine finds the line TiDB's parser names in its error.
	parseLine = regexp.MustCompile(`^line (\d+) `)
)

// unparsed handles a statement TiDB's parser refuses: a routine (TiDB
// reads no routine bodies) is kept as written; anything else is an error
// naming the line, and for a spatial column saying what to do.
func (r *scriptReader) unparsed(c chunk, text string, perr error) error {
	plain := versionComment.ReplaceAllString(text, " ")
	if m := routineStatement.FindStringSubmatch(plain); m != nil {
		if parts := splitBlock(text); len(parts) > 1 {
			// A DELIMITER block that holds several statements (DROP
			// TRIGGER IF EXISTS t; CREATE TRIGGER t … END;): the mysql
			// client sends them together and the server runs each.
			r.s.Read--
			for _, p := range parts {
				if err := r.chunk(chunk{text: p.text, line: c.line + p.line - 1}, 0); err != nil {
					return err
				}
			}
			return nil
		}
		return r.routine(strings.ToUpper(m[1]), strings.ToUpper(m[2]), unquoteName(m[3]), c.text, c.line)
	}
	line := c.line + errLine(perr) - 1
	if m := spatialColumn.FindStringSubmatch(text); m != nil {
		what := fmt.Sprintf("column %s %s", unquoteName(m[1]), strings.ToUpper(m[2]))
		if m[2] == "" {
			what = "SPATIAL KEY " + unquoteName(m[3])
		}
		return fmt.Errorf("%w: line %d: %s: TiDB has no spatial types or indexes (GEOMETRY, POINT, POLYGON, …): keep the value as WKB in a LONGBLOB column (ST_AsBinary on the source) or leave it out of the script", ErrScript, line, what)
	}
	return fmt.Errorf("%w: line %d: %s", ErrParse, line, firstLine(perr.Error()))
}

// splitBlock cuts the text of one DELIMITER block at each ";" (outside
// quotes and comments) that ends a DROP of a routine or is followed by the
// start of a routine statement (CREATE or DROP of a TRIGGER, PROCEDURE,
// FUNCTION or EVENT), which no routine body holds. Each part keeps the
// line it starts on within text (1 for the first).
func splitBlock(text string) []chunk {
	var out []chunk
	start, line, startLine := 0, 1, 1
	isDrop := func(s string) bool {
		m := routineStatement.FindStringSubmatch(versionComment.ReplaceAllString(s, " "))
		return m != nil && strings.EqualFold(m[1], "DROP")
	}
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '\n':
			line++
			i++
		case c == '\'' || c == '"' || c == '`':
			j := quoteEnd(text, i)
			line += strings.Count(text[i:j], "\n")
			i = j
		case c == '#' || strings.HasPrefix(text[i:], "-- "):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			i += end
		case strings.HasPrefix(text[i:], "/*") && !strings.HasPrefix(text[i:], "/*!"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				end = len(text) - i - 4
			}
			line += strings.Count(text[i:i+end+4], "\n")
			i += end + 4
		case c == ';':
			rest := text[i+1:]
			if strings.TrimSpace(rest) != "" && (isDrop(text[start:i]) || routineStatement.MatchString(versionComment.ReplaceAllString(stripComments(rest), " "))) {
				out = append(out, chunk{text: text[start:i], line: startLine})
				start, startLine = i+1, line
				for start < len(text) && strings.ContainsRune(" \t\r\n", rune(text[start])) {
					if text[start] == '\n' {
						startLine++
					}
					start++
				}
			}
			i++
		default:
			i++
		}
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, chunk{text: text[start:], line: startLine})
}

// stripComments blanks the comments (other than /*! … */) and space at the
// start of s, so a statement after them can be matched.
func stripComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "#") || strings.HasPrefix(s, "-- "):
			if end := strings.IndexByte(s, '\n'); end >= 0 {
				s = s[end:]
				continue
			}
			return ""
		case strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "/*!"):
			if end := strings.Index(s[2:], "*/"); end >= 0 {
				s = s[end+4:]
				continue
			}
			return ""
		}
		return s
	}
}

// unquoteName strips backquotes from a name as a routine statement writes
// it (`db`.`name` → db.name).
func unquoteName(s string) string {
	var parts []string
	for _, p := range strings.Split(s, ".") {
		parts = append(parts, strings.Trim(strings.TrimSpace(p), "`"))
	}
	return strings.Join(parts, ".")
}

// routine keeps a trigger, procedure, function or event statement as
// written.
func (r *scriptReader) routine(verb, typ, name, text string, line int) error {
	what := verb + " " + typ + " " + name
	r.other(what)
	r.s.Statements = append(r.s.Statements, &Statement{Kind: KindRoutine, Object: name, ObjectType: typ, What: what,
		SQL: strings.TrimSpace(text), Verbatim: true, Drop: verb == "DROP", File: r.file, Line: line})
	r.s.Accounted++
	return nil
}

// Qualified names a parsed table reference: schema.name or name.
func Qualified(n *ast.TableName) string {
	if n.Schema.O != "" {
		return n.Schema.O + "." + n.Name.O
	}
	return n.Name.O
}

// LineList prints "line 3" or "lines 3, 9, 12" (at most five, then "…").
func LineList(lines []int) string {
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

// errLine returns the line number in a TiDB parser error, or 1.
func errLine(err error) int {
	var n int
	if m := parseLine.FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscan(m[1], &n)
	}
	return max(n, 1)
}

// Place names where the statement starts: "f.sql: line 3" or "line 3".
func (st *Statement) Place() string {
	if st.File != "" {
		return fmt.Sprintf("%s: line %d", st.File, st.Line)
	}
	return fmt.Sprintf("line %d", st.Line)
}

// Routine reads a routine statement (CREATE or DROP of a trigger,
// procedure, function or event, conditional comments read through): its
// verb, upper-cased type and unquoted name; ok is false for any other
// statement.
func Routine(stmt string) (verb, typ, name string, ok bool) {
	r := routineStatement.FindStringSubmatch(versionComment.ReplaceAllString(stmt, " "))
	if r == nil {
		return "", "", "", false
	}
	return strings.ToUpper(r[1]), strings.ToUpper(r[2]), unquoteName(r[3]), true
}
