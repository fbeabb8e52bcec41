package script

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// FromCreate turns a parsed CREATE TABLE into a Table.
func FromCreate(ct *ast.CreateTableStmt) (*Table, error) {
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
		if err := CheckIdent("schema", t.Schema); err != nil {
			return nil, err
		}
	}
	if err := CheckIdent("table", t.Name); err != nil {
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
	if err := CheckIdent("column", c.Name); err != nil {
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
			c.Default = defaultOf(o.Expr)
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

// defaultOf prints a DEFAULT so that two printings of one value compare
// equal: '0' and 0 (MariaDB prints a number unquoted), NOW() and
// current_timestamp(), any case.
func defaultOf(e ast.ExprNode) string {
	if ve, ok := e.(ast.ValueExpr); ok {
		switch v := ve.GetValue().(type) {
		case nil:
			return "NULL"
		case string:
			return "'" + v + "'"
		case int64: // TRUE prints as TRUE, MariaDB's SHOW CREATE TABLE has 1
			return "'" + strconv.FormatInt(v, 10) + "'"
		case uint64:
			return "'" + strconv.FormatUint(v, 10) + "'"
		default:
			if s, err := restore(e); err == nil {
				return "'" + strings.Trim(s, "'") + "'"
			}
		}
	}
	if isNow(e) {
		f := e.(*ast.FuncCallExpr)
		if len(f.Args) > 0 {
			if s, err := restore(f.Args[0]); err == nil && s != "0" {
				return "CURRENT_TIMESTAMP(" + s + ")"
			}
		}
		return "CURRENT_TIMESTAMP"
	}
	s, err := restore(e)
	if err != nil {
		return "?"
	}
	return strings.ToUpper(strings.Trim(s, "()"))
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
			for _, k := range cons.Refer.IndexPartSpecifications {
				if k.Column != nil {
					ix.ReferencedColumns = append(ix.ReferencedColumns, k.Column.Name.O)
				}
			}
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
		if err := CheckIdent("index", ix.Name); err != nil {
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
			if err := CheckIdent("column", p.Column); err != nil {
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
