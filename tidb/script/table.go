package script

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions (DEFAULT 'x', COMMENT '…')

	"github.com/shardid/shardid/internal/quote"
)

// Sentinel errors returned by Parse.
var (
	// ErrParse is returned by Parse when TiDB's parser rejects the input.
	ErrParse = errors.New("not valid TiDB SQL")
	// ErrNotCreateTable is returned by Parse when the input is not exactly
	// one plain CREATE TABLE statement (no LIKE, no AS SELECT, not
	// TEMPORARY).
	ErrNotCreateTable = errors.New("want exactly one CREATE TABLE statement")
	// ErrInvalidIdentifier is returned by Parse when a table, column or
	// index name is empty, longer than 64 characters, ends with a space, or
	// holds a backquote, a control character or invalid UTF-8.
	ErrInvalidIdentifier = errors.New("invalid identifier")
)

// Clustering says how the input declared its primary key.
type Clustering int

const (
	// ClusteringDefault means the key carried neither CLUSTERED nor
	// NONCLUSTERED: TiDB decides from tidb_enable_clustered_index (ON by
	// default since 5.0, which clusters it).
	ClusteringDefault Clustering = iota
	// ClusteringClustered is an explicit CLUSTERED.
	ClusteringClustered
	// ClusteringNonClustered is an explicit NONCLUSTERED.
	ClusteringNonClustered
)

// Table is what the package knows of a CREATE TABLE statement: names are
// kept as plain strings (backquoted again when rendered), column types,
// column options and other clauses as SQL text printed by TiDB's parser.
type Table struct {
	// Schema is the database name when the statement qualified the table.
	Schema string
	// Name is the table name.
	Name string
	// Columns in declaration order.
	Columns []Column
	// PrimaryKey is nil when the table has none.
	PrimaryKey *PrimaryKey
	// Indexes are the other keys and constraints, in declaration order.
	Indexes []Index
	// Options are the table options other than SHARD_ROW_ID_BITS,
	// PRE_SPLIT_REGIONS and AUTO_RANDOM_BASE, which the strategies set.
	Options []string
	// Partition is the PARTITION BY clause, or "".
	Partition string
	// Partitions is how many partitions the clause makes (0 without one):
	// TiDB pre-splits each of them.
	Partitions int
	// RangePartition is the expression of a PARTITION BY RANGE or LIST
	// (COLUMNS) clause, which puts each row by its value; nil for none
	// and for HASH and KEY, which take any value.
	RangePartition *Expr
	// ShardRowIDBits and PreSplitRegions are the values the input set
	// (0 when absent).
	ShardRowIDBits, PreSplitRegions int
	// IfNotExists reports CREATE TABLE IF NOT EXISTS in the input; Render
	// keeps it, Migrations leaves it out (a migration refuses a table that
	// already exists rather than reporting it created).
	IfNotExists bool
	// Line is the input line the statement starts on (1 for a single
	// statement; the script line for ParseScript), File the script's name
	// (File.Name).
	Line int
	File string
}

// Column is one column definition.
type Column struct {
	// Name is the column name.
	Name string
	// Type is the SQL type, e.g. "BIGINT" or "VARCHAR(32)".
	Type string
	// Options are the column options other than PRIMARY KEY and
	// AUTO_RANDOM, in input order, e.g. "NOT NULL", "DEFAULT NULL".
	Options []string
	// BigInt reports a BIGINT column; Integer any integer type.
	BigInt, Integer bool
	// Unsigned reports an UNSIGNED numeric type.
	Unsigned bool
	// NotNull, AutoIncrement and HasDefault report those options.
	NotNull, AutoIncrement, HasDefault bool
	// AutoRandom reports an AUTO_RANDOM option in the input, with its
	// shard and range bits (0 where the input left them to TiDB).
	AutoRandom                               bool
	AutoRandomShardBits, AutoRandomRangeBits int
	// Growing reports a column whose values grow with time or insert
	// order: AUTO_INCREMENT, or a date/time type defaulting to the current
	// time. An index led by it takes every insert at one end.
	Growing bool
	// Generated is the expression of a generated column (AS (…)), or nil.
	Generated *Expr
	// Checks are the column's own CHECK constraints.
	Checks []Expr

	// Default is the DEFAULT, normalised for comparing two printings
	// ("" for none).
	Default string
}

// Expr is an expression in a table definition that TiDB evaluates on
// every insert: a generated column, a CHECK, an expression key part, the
// partitioning.
type Expr struct {
	// SQL is the expression as TiDB's parser prints it.
	SQL string
	// Reads lists the columns it reads, as written.
	Reads []string
}

// PrimaryKey is the table's primary key.
type PrimaryKey struct {
	// Name is the constraint name, usually "".
	Name string
	// Parts are the key columns (or expressions) in order.
	Parts []IndexPart
	// Clustering is how the input declared it.
	Clustering Clustering
	// Option is the key's other index options as TiDB prints them (USING
	// BTREE, COMMENT '…'), or "".
	Option string
}

// Index is a secondary key or another table constraint.
type Index struct {
	// Kind is "KEY", "UNIQUE KEY" or "FULLTEXT KEY"; "" marks a constraint
	// kept verbatim in Text (FOREIGN KEY, CHECK, …).
	Kind string
	// Name is the index or constraint name, possibly "".
	Name string
	// Parts are the indexed columns or expressions (a FOREIGN KEY's own
	// columns when Kind is "").
	Parts []IndexPart
	// Option is the index option text (USING, COMMENT, …), or "".
	Option string
	// Text is the whole clause when Kind is "".
	Text string
	// Check is the expression of a CHECK constraint (Kind ""), or nil.
	Check *Expr
	// References and ReferencesSchema name the table a FOREIGN KEY points
	// at ("" for other clauses).
	References, ReferencesSchema string
	// ReferencedColumns are the columns of References a FOREIGN KEY
	// points at, in order (nil for other clauses).
	ReferencedColumns []string
}

// IndexPart is one column of a key: a column name with an optional prefix
// length, or an expression printed by TiDB's parser.
type IndexPart struct {
	// Column is the column name, or "" for an expression part.
	Column string
	// Length is the prefix length, 0 for the whole column.
	Length int
	// Desc reports DESC.
	Desc bool
	// Expr is the expression text (without the parentheses) when Column is "".
	Expr string
	// Reads lists the columns Expr reads.
	Reads []string
}

// restoreFlags prints TiDB-only syntax in /*T! … */ comments, strings
// without charset introducers and with backslashes doubled, so the text
// runs on MySQL and MariaDB too and a string reads back as it was written.
const restoreFlags = format.DefaultRestoreFlags | format.RestoreTiDBSpecialComment | format.RestoreStringWithoutCharset | format.RestoreStringEscapeBackslash

// restore prints a node with TiDB's restorer, then writes control
// characters inside string literals as backslash escapes (see
// escapeStrings).
func restore(n interface {
	Restore(*format.RestoreCtx) error
}) (string, error) {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(restoreFlags, &sb)); err != nil {
		return "", err
	}
	return escapeStrings(sb.String()), nil
}

// escapeStrings rewrites a newline, carriage return, NUL or Ctrl-Z inside a
// single-quoted string literal of restored SQL as \n, \r, \0 or \Z, so no
// rendered line ends inside a string: goose splits statements at a line
// ending in ";" and reads a line starting with "-- +goose" as an
// annotation, and TiDB's restorer writes the characters raw. It relies on
// the restorer's quoting: strings in single quotes with ' doubled and every
// backslash doubled (restoreFlags), names in backquotes with ` doubled.
func escapeStrings(sql string) string {
	if !strings.ContainsAny(sql, "\n\r\x00\x1a") {
		return sql
	}
	var sb strings.Builder
	var quote byte // 0 outside a literal, else ' or `
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote == 0 && (c == '\'' || c == '`'):
			quote = c
		case quote == c && i+1 < len(sql) && sql[i+1] == c:
			sb.WriteByte(c) // doubled quote inside the literal
			i++
		case quote == c:
			quote = 0
		case quote == '\'' && c == '\\' && i+1 < len(sql):
			sb.WriteByte(c) // an escaped backslash: keep both bytes
			i++
			c = sql[i]
		case quote == '\'':
			if e, ok := stringEscapes[c]; ok {
				sb.WriteString(e)
				continue
			}
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// ParseSQL runs TiDB's parser over text. The parser's value driver panics
// on some literals instead of failing (an integer of more than 81 digits:
// "This branch is not implemented"); that becomes an error like any
// other input TiDB cannot read.
func ParseSQL(p *parser.Parser, text string) (stmts []ast.StmtNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmts, err = nil, fmt.Errorf("TiDB's parser cannot read a value in it (a number of more than 81 digits stops it; TiDB's DECIMAL holds at most 65 digits)")
		}
	}()
	stmts, _, err = p.Parse(text, "", "")
	return stmts, err
}

// stringEscapes are the MySQL escapes escapeStrings writes.
var stringEscapes = map[byte]string{'\n': `\n`, '\r': `\r`, 0: `\0`, 0x1a: `\Z`}

// bom is the UTF-8 byte order mark some editors put at the start of a file.
const bom = "\uFEFF"

// Parse reads exactly one CREATE TABLE statement with TiDB's parser (a
// leading UTF-8 byte order mark is ignored; ParseScript reads schema
// scripts). It returns errors wrapping ErrParse, ErrNotCreateTable and
// ErrInvalidIdentifier.
func Parse(sql string) (*Table, error) {
	stmts, err := ParseSQL(parser.New(), strings.TrimPrefix(sql, bom))
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrParse, firstLine(err.Error()))
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("%w: found %d statements (a schema script goes through ParseScript: shardid tidb reads FILEs as scripts)", ErrNotCreateTable, len(stmts))
	}
	ct, ok := stmts[0].(*ast.CreateTableStmt)
	if !ok {
		return nil, fmt.Errorf("%w: found %s", ErrNotCreateTable, statementWords(stmts[0]))
	}
	t, err := FromCreate(ct)
	if err != nil {
		return nil, err
	}
	t.Line = 1
	return t, nil
}

// statementWords names a statement by its first words as written, e.g.
// "ALTER TABLE `t` ADD …".
func statementWords(s ast.StmtNode) string {
	text := strings.TrimSpace(s.Text())
	for strings.HasPrefix(text, "--") || strings.HasPrefix(text, "#") || (strings.HasPrefix(text, "/*") && !strings.HasPrefix(text, "/*!")) {
		end, skip := "\n", 1
		if strings.HasPrefix(text, "/*") {
			end, skip = "*/", 2
		}
		i := strings.Index(text, end)
		if i < 0 {
			break
		}
		text = strings.TrimSpace(text[i+skip:])
	}
	words := strings.Fields(text)
	if len(words) == 0 {
		return "an empty statement"
	}
	if len(words) > 3 {
		words = append(words[:3], "…")
	}
	return `"` + strings.Join(words, " ") + `"`
}

// CheckIdent returns an error wrapping ErrInvalidIdentifier unless name can
// be backquoted safely: 1–64 characters of valid UTF-8, no backquote, no
// control character, no trailing space.
func CheckIdent(kind, name string) error {
	bad := name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > 64 ||
		strings.HasSuffix(name, " ") || strings.ContainsFunc(name, func(r rune) bool { return r == '`' || r < 0x20 || r == 0x7f })
	if bad {
		return fmt.Errorf("%w: %s name %q (want 1–64 characters, no backquote, control character or trailing space)", ErrInvalidIdentifier, kind, name)
	}
	return nil
}

// Column returns the named column (case-insensitively, as MySQL compares
// column names), or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

// QualifiedName returns schema.name, or name without a schema.
func (t *Table) QualifiedName() string {
	if t.Schema != "" {
		return t.Schema + "." + t.Name
	}
	return t.Name
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Place names where the table starts: "f.sql: line 3" or "line 3".
func (t *Table) Place() string {
	if t.File != "" {
		return fmt.Sprintf("%s: line %d", t.File, t.Line)
	}
	return fmt.Sprintf("line %d", t.Line)
}

// AutoIncrementBase reads N from an AUTO_INCREMENT=N table option as
// printed ("AUTO_INCREMENT = 5"); 0 when it cannot.
func AutoIncrementBase(opt string) uint64 {
	_, v, _ := strings.Cut(opt, "=")
	n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	return n
}

// AutoIncrementOptions returns the input's AUTO_INCREMENT=N table options
// as printed.
func (t *Table) AutoIncrementOptions() []string {
	var out []string
	for _, s := range t.Options {
		if strings.HasPrefix(s, "AUTO_INCREMENT ") || strings.HasPrefix(s, "AUTO_INCREMENT=") {
			out = append(out, s)
		}
	}
	return out
}

// FileWord lower-cases a table name and keeps letters, digits and _, so it
// can sit in a file name.
func FileWord(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	return sb.String()
}

// QuoteIdent backquotes a name after checking it (CheckIdent); the
// templates of the later stages call it for every name they write.
func QuoteIdent(name string) (string, error) {
	if err := CheckIdent("", name); err != nil {
		return "", err
	}
	return quote.Ident(name, false), nil
}
