package tidb

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions (DEFAULT 'x', COMMENT '…')
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
	// (ScriptFile.Name).
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

// parseSQL runs TiDB's parser over text. The parser's value driver panics
// on some literals instead of failing (an integer of more than 81 digits:
// "This branch is not implemented"); that becomes an error like any
// other input TiDB cannot read.
func parseSQL(p *parser.Parser, text string) (stmts []ast.StmtNode, err error) {
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
	stmts, err := parseSQL(parser.New(), strings.TrimPrefix(sql, bom))
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
	t, err := fromCreate(ct)
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

// fromCreate turns a parsed CREATE TABLE into a Table.
func fromCreate(ct *ast.CreateTableStmt) (*Table, error) {
	switch {
	case ct.ReferTable != nil:
		return nil, fmt.Errorf("%w: CREATE TABLE … LIKE copies another table; give that table's SHOW CREATE TABLE", ErrNotCreateTable)
	case ct.Select != nil:
		return nil, fmt.Errorf("%w: CREATE TABLE … AS SELECT is not supported", ErrNotCreateTable)
	case ct.TemporaryKeyword != ast.TemporaryNone:
		return nil, fmt.Errorf("%w: temporary tables are not supported", ErrNotCreateTable)
	}
	t := &Table{Schema: ct.Table.Schema.O, Name: ct.Table.Name.O, IfNotExists: ct.IfNotExists}
	if t.Schema != "" {
		if err := checkIdent("schema", t.Schema); err != nil {
			return nil, err
		}
	}
	if err := checkIdent("table", t.Name); err != nil {
		return nil, err
	}
	for _, cd := range ct.Cols {
		c, pk, err := parseColumn(cd)
		if err != nil {
			return nil, err
		}
		if pk != nil {
			if t.PrimaryKey != nil {
				return nil, fmt.Errorf("%w: table %s declares more than one primary key", ErrNotCreateTable, t.Name)
			}
			t.PrimaryKey = pk
		}
		t.Columns = append(t.Columns, c)
	}
	for _, cons := range ct.Constraints {
		if cons.Tp == ast.ConstraintPrimaryKey {
			if err := t.setPrimaryKey(cons); err != nil {
				return nil, err
			}
			continue
		}
		ix, err := parseIndex(cons)
		if err != nil {
			return nil, err
		}
		t.Indexes = append(t.Indexes, ix)
	}
	for _, o := range ct.Options {
		if err := t.setOption(o); err != nil {
			return nil, err
		}
	}
	if ct.Partition != nil {
		if err := t.setPartition(ct.Partition); err != nil {
			return nil, err
		}
	}
	if len(t.Columns) == 0 {
		return nil, fmt.Errorf("%w: table %s has no columns", ErrNotCreateTable, t.Name)
	}
	t.markNational(ct.Text())
	if len(ct.SplitIndex) > 0 {
		return nil, fmt.Errorf("%w: SPLIT INDEX clauses inside CREATE TABLE are not supported", ErrNotCreateTable)
	}
	return t, nil
}

// setPrimaryKey gives t the PRIMARY KEY constraint; a second one is
// refused.
func (t *Table) setPrimaryKey(cons *ast.Constraint) error {
	if t.PrimaryKey != nil {
		return fmt.Errorf("%w: table %s declares more than one primary key", ErrNotCreateTable, t.Name)
	}
	pk := &PrimaryKey{Name: cons.Name}
	var err error
	if cons.Option != nil {
		pk.Clustering = clustering(cons.Option.PrimaryKeyTp)
		opt := *cons.Option
		opt.PrimaryKeyTp = ast.PrimaryKeyTypeDefault
		if !opt.IsEmpty() {
			if pk.Option, err = restore(&opt); err != nil {
				return fmt.Errorf("table %s: print primary key option: %w", t.Name, err)
			}
		}
	}
	if pk.Parts, err = parseParts(cons.Keys); err != nil {
		return err
	}
	t.PrimaryKey = pk
	return nil
}

// setOption records a table option: SHARD_ROW_ID_BITS and
// PRE_SPLIT_REGIONS in their fields, AUTO_RANDOM_BASE dropped (the
// strategies set them), any other printed into Options, in place of an
// earlier option of the same name (ALTER TABLE … ENGINE=InnoDB after
// ENGINE=MyISAM).
func (t *Table) setOption(o *ast.TableOption) error {
	switch o.Tp {
	case ast.TableOptionShardRowID:
		t.ShardRowIDBits = int(o.UintValue)
		return nil
	case ast.TableOptionPreSplitRegion:
		t.PreSplitRegions = int(o.UintValue)
		return nil
	case ast.TableOptionAutoRandomBase:
		return nil
	}
	s, err := restore(o)
	if err != nil {
		return fmt.Errorf("table %s: print option: %w", t.Name, err)
	}
	key := optionName(s)
	for i, old := range t.Options {
		if strings.EqualFold(optionName(old), key) {
			t.Options[i] = s
			return nil
		}
	}
	t.Options = append(t.Options, s)
	return nil
}

// optionName is a printed table option's name: the words before " = "
// ("DEFAULT CHARACTER SET = utf8" gives "DEFAULT CHARACTER SET").
func optionName(s string) string {
	name, _, _ := strings.Cut(s, " = ")
	return strings.TrimPrefix(name, "DEFAULT ")
}

// setPartition gives t the PARTITION BY clause.
func (t *Table) setPartition(p *ast.PartitionOptions) error {
	var err error
	t.Partitions = max(int(p.Num), len(p.Definitions))
	if t.Partition, err = restore(p); err != nil {
		return fmt.Errorf("table %s: print partitioning: %w", t.Name, err)
	}
	if t.RangePartition, err = rangePartition(&p.PartitionMethod); err != nil {
		return fmt.Errorf("table %s: print partitioning: %w", t.Name, err)
	}
	return nil
}

// nationalType matches a column of a national character type as written
// (NVARCHAR, NCHAR, NATIONAL CHAR/VARCHAR/CHARACTER VARYING).
var nationalType = regexp.MustCompile("(?i)(`[^`]+`|[\\w$]+)\\s+(?:NVARCHAR|NCHAR|NATIONAL\\s+(?:VARCHAR|CHAR|CHARACTER))\\b")

// markNational writes NATIONAL back into the types of the columns the
// statement text declares with a national character type: TiDB's parser
// reads NVARCHAR(n) as VARCHAR(n) and prints no character set, while
// MySQL and MariaDB give such a column utf8mb3. Kept as written, each
// server reads the rendered column as it reads the input's.
func (t *Table) markNational(text string) {
	for _, m := range nationalType.FindAllStringSubmatch(text, -1) {
		c := t.Column(strings.Trim(m[1], "`"))
		if c != nil && !strings.HasPrefix(c.Type, "NATIONAL ") && !strings.Contains(strings.ToUpper(c.Type), "CHARACTER SET") {
			c.Type = "NATIONAL " + c.Type
		}
	}
}

func parseColumn(cd *ast.ColumnDef) (Column, *PrimaryKey, error) {
	c := Column{Name: cd.Name.Name.O}
	if err := checkIdent("column", c.Name); err != nil {
		return c, nil, err
	}
	typ, err := restore(cd.Tp)
	if err != nil {
		return c, nil, fmt.Errorf("column %s: print type: %w", c.Name, err)
	}
	c.Type = typ
	c.BigInt = cd.Tp.GetType() == mysql.TypeLonglong
	switch cd.Tp.GetType() {
	case mysql.TypeTiny, mysql.TypeShort, mysql.TypeInt24, mysql.TypeLong, mysql.TypeLonglong:
		c.Integer = true
	}
	c.Unsigned = mysql.HasUnsignedFlag(cd.Tp.GetFlag())
	var pk *PrimaryKey
	for _, o := range cd.Options {
		switch o.Tp {
		case ast.ColumnOptionPrimaryKey:
			pk = &PrimaryKey{Parts: []IndexPart{{Column: c.Name}}, Clustering: clustering(o.PrimaryKeyTp)}
			continue
		case ast.ColumnOptionAutoRandom:
			c.AutoRandom = true
			c.AutoRandomShardBits = max(o.AutoRandOpt.ShardBits, 0)
			c.AutoRandomRangeBits = max(o.AutoRandOpt.RangeBits, 0)
			continue
		case ast.ColumnOptionNotNull:
			c.NotNull = true
		case ast.ColumnOptionAutoIncrement:
			c.AutoIncrement = true
			c.Growing = true
		case ast.ColumnOptionDefaultValue:
			c.HasDefault = true
			if isNow(o.Expr) && isTimeType(cd.Tp.GetType()) {
				c.Growing = true
			}
		case ast.ColumnOptionGenerated, ast.ColumnOptionCheck:
			e, err := newExpr(o.Expr)
			if err != nil {
				return c, nil, fmt.Errorf("column %s: print expression: %w", c.Name, err)
			}
			if o.Tp == ast.ColumnOptionGenerated {
				c.Generated = &e
			} else {
				c.Checks = append(c.Checks, e)
			}
		}
		s, err := restore(o)
		if err != nil {
			return c, nil, fmt.Errorf("column %s: print option: %w", c.Name, err)
		}
		c.Options = append(c.Options, s)
	}
	return c, pk, nil
}

// isNow reports CURRENT_TIMESTAMP, NOW() and their synonyms.
func isNow(e ast.ExprNode) bool {
	f, ok := e.(*ast.FuncCallExpr)
	if !ok {
		return false
	}
	switch f.FnName.L {
	case "current_timestamp", "now", "localtime", "localtimestamp", "utc_timestamp", "sysdate", "current_date", "curdate":
		return true
	}
	return false
}

func isTimeType(tp byte) bool {
	switch tp {
	case mysql.TypeTimestamp, mysql.TypeDatetime, mysql.TypeDate:
		return true
	}
	return false
}

func parseIndex(cons *ast.Constraint) (Index, error) {
	ix := Index{Name: cons.Name}
	switch cons.Tp {
	case ast.ConstraintKey, ast.ConstraintIndex:
		ix.Kind = "KEY"
	case ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex:
		ix.Kind = "UNIQUE KEY"
	case ast.ConstraintFulltext:
		ix.Kind = "FULLTEXT KEY"
	default:
		s, err := restore(cons)
		if err != nil {
			return ix, fmt.Errorf("print constraint: %w", err)
		}
		ix := Index{Text: s, Name: cons.Name}
		switch {
		case cons.Tp == ast.ConstraintForeignKey && cons.Refer != nil:
			ix.References = cons.Refer.Table.Name.O
			ix.ReferencesSchema = cons.Refer.Table.Schema.O
			ix.Parts, _ = parseParts(cons.Keys) // its columns, for the index a server makes for it
		case cons.Tp == ast.ConstraintCheck && cons.Expr != nil:
			e, err := newExpr(cons.Expr)
			if err != nil {
				return ix, fmt.Errorf("print constraint: %w", err)
			}
			ix.Check = &e
		}
		return ix, nil
	}
	if ix.Name != "" {
		if err := checkIdent("index", ix.Name); err != nil {
			return ix, err
		}
	}
	var err error
	if ix.Parts, err = parseParts(cons.Keys); err != nil {
		return ix, err
	}
	if cons.Option != nil && !cons.Option.IsEmpty() {
		if ix.Option, err = restore(cons.Option); err != nil {
			return ix, fmt.Errorf("index %s: print option: %w", ix.Name, err)
		}
	}
	return ix, nil
}

func parseParts(keys []*ast.IndexPartSpecification) ([]IndexPart, error) {
	parts := make([]IndexPart, 0, len(keys))
	for _, k := range keys {
		p := IndexPart{Desc: k.Desc}
		if k.Length > 0 {
			p.Length = k.Length
		}
		if k.Expr != nil {
			s, err := restore(k.Expr)
			if err != nil {
				return nil, fmt.Errorf("print key expression: %w", err)
			}
			p.Expr = s
			p.Reads = columnsRead(k.Expr)
		} else {
			p.Column = k.Column.Name.O
			if err := checkIdent("column", p.Column); err != nil {
				return nil, err
			}
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// newExpr prints e and lists the columns it reads.
func newExpr(e ast.ExprNode) (Expr, error) {
	s, err := restore(e)
	return Expr{SQL: s, Reads: columnsRead(e)}, err
}

// rangePartition returns the expression a RANGE or LIST partitioning puts
// rows by (its COLUMNS for RANGE/LIST COLUMNS), or nil for other methods.
func rangePartition(m *ast.PartitionMethod) (*Expr, error) {
	if m.Tp != ast.PartitionTypeRange && m.Tp != ast.PartitionTypeList {
		return nil, nil
	}
	if m.Expr != nil {
		e, err := newExpr(m.Expr)
		return &e, err
	}
	e := &Expr{}
	var names []string
	for _, c := range m.ColumnNames {
		s, err := restore(c)
		if err != nil {
			return nil, err
		}
		names = append(names, s)
		e.Reads = append(e.Reads, c.Name.O)
	}
	e.SQL = strings.Join(names, ", ")
	return e, nil
}

// columnReader collects the column names an expression reads.
type columnReader []string

func (r *columnReader) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name != nil {
		*r = append(*r, c.Name.Name.O)
	}
	return n, false
}

func (r *columnReader) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// columnsRead lists the columns e reads, in order, each once.
func columnsRead(e ast.ExprNode) []string {
	var r columnReader
	e.Accept(&r)
	var out []string
	for _, n := range r {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, n) }) {
			out = append(out, n)
		}
	}
	return out
}

func clustering(t ast.PrimaryKeyType) Clustering {
	switch t {
	case ast.PrimaryKeyTypeClustered:
		return ClusteringClustered
	case ast.PrimaryKeyTypeNonClustered:
		return ClusteringNonClustered
	}
	return ClusteringDefault
}

// checkIdent returns an error wrapping ErrInvalidIdentifier unless name can
// be backquoted safely: 1–64 characters of valid UTF-8, no backquote, no
// control character, no trailing space.
func checkIdent(kind, name string) error {
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
