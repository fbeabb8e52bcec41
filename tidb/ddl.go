package tidb

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	shardsql "github.com/shardid/shardid/sql"
)

// Kind says what a rendered statement does.
type Kind string

const (
	// KindCreate is a CREATE TABLE statement.
	KindCreate Kind = "create"
	// KindAlter is an ALTER TABLE statement.
	KindAlter Kind = "alter"
	// KindSplit is a SPLIT TABLE statement.
	KindSplit Kind = "split"
	// KindIndex is a CREATE INDEX statement of a schema script.
	KindIndex Kind = "index"
	// KindSession is a SET of a session variable the next statement
	// needs, so the statements must run in order on one session:
	// RenderAlter's switch from AUTO_INCREMENT to AUTO_RANDOM needs
	// tidb_allow_remove_auto_inc (TiDB 8.5 refuses it otherwise).
	KindSession Kind = "session"
)

// Statement is one rendered SQL statement, without the final semicolon.
type Statement struct {
	// Kind says what the statement does.
	Kind Kind
	// SQL is the statement text.
	SQL string
	// TiDBOnly reports a statement that MySQL and MariaDB reject (SPLIT
	// TABLE, ALTER … SHARD_ROW_ID_BITS, … AUTO_RANDOM); the others run
	// everywhere, with their TiDB clauses in comments.
	TiDBOnly bool

	plain string // a CREATE without the input's IF NOT EXISTS, for Migrations
	down  string // the undo of a script statement, for Migrations
}

// DDL is the rendered result for one table.
type DDL struct {
	// Table is the parsed input.
	Table *Table
	// Options are the options used: the strategy picked, defaults filled
	// in.
	Options Options
	// Reason says why the strategy was picked (StrategyAuto), or that it
	// was asked for.
	Reason string
	// Notes list what the strategy changed in the input, e.g. "AUTO_INCREMENT
	// on id replaced by AUTO_RANDOM".
	Notes []string
	// Warnings list the hotspots that remain: indexes led by a growing
	// column.
	Warnings []string
	// KeyWarnings list the expressions (generated columns, CHECKs,
	// expression keys, RANGE/LIST partitioning) that read an AUTO_RANDOM
	// key: they see its values, random bits at the top included, and may
	// fail inserts (an overflow, a failed CHECK, no partition).
	KeyWarnings []string
	// Statements in the order they must run, on one session when one of
	// them is a KindSession.
	Statements []Statement
}

// String returns the statements, each ended by a semicolon, separated by
// blank lines.
func (d *DDL) String() string {
	var sb strings.Builder
	for i, s := range d.Statements {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(s.SQL)
		sb.WriteString(";\n")
	}
	return sb.String()
}

// templates are the parsed sql/tidb templates.
var templates = template.Must(template.New("tidb").Funcs(template.FuncMap{"ident": quoteIdent, "has": slices.Contains[[]string]}).ParseFS(shardsql.TiDB, "tidb/*.sql.tmpl"))

// quoteIdent backquotes a name after checking it (checkIdent); templates
// call it for every name they write.
func quoteIdent(name string) (string, error) {
	if err := checkIdent("", name); err != nil {
		return "", err
	}
	return "`" + name + "`", nil
}

// createView is the data of create_table.sql.tmpl.
type createView struct {
	T              *Table
	IfNotExists    bool
	Clustering     string // CLUSTERED or NONCLUSTERED
	ShardRowIDBits int    // shard-rowid
	PreSplit       int    // shard-rowid; 0 means none
	// DropTableOptions are table options to leave out (AUTO_INCREMENT=N
	// beside AUTO_RANDOM).
	DropTableOptions []string
	// AutoRandomColumn names the AUTO_RANDOM column (auto-random).
	AutoRandomColumn          string
	AutoRandomBits, RangeBits int
}

// splitView is the data of split_table.sql.tmpl.
type splitView struct {
	T    *Table
	Rows [][]string
}

// alterView is the data of alter_table.sql.tmpl.
type alterView struct {
	T                  *Table
	ShardRowIDBits     int
	Column             *Column
	AutoRandomBits     int
	RangeBits          int
	AllowRemoveAutoInc bool // the SET the AUTO_RANDOM switch needs first
}

func execute(name string, data any) (string, error) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	return strings.TrimSpace(buf.String()), nil
}

// Render returns the CREATE TABLE statement for t under o (and, for
// rotated-int, the SPLIT TABLE statement that pre-splits it). StrategyAuto
// (the zero value) picks the strategy for t with Choose. Every clause of
// the input is kept except what the strategy must change, and each such
// change is listed in DDL.Notes: the key's CLUSTERED/NONCLUSTERED, the
// input's SHARD_ROW_ID_BITS and PRE_SPLIT_REGIONS, an AUTO_INCREMENT that
// AUTO_RANDOM replaces. It returns the errors of Options.Validate and
// errors wrapping ErrKey, ErrConflict and ErrRangeBits.
func Render(t *Table, o Options) (*DDL, error) {
	d, err := render(t, o)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", t.Name, err)
	}
	return d, nil
}

// resolve picks the strategy (Choose for auto), drops the options auto
// does not apply to the pick, fills in defaults and validates the result.
func resolve(t *Table, o Options) (Options, string, error) {
	if err := o.Validate(); err != nil {
		return o, "", err
	}
	reason := "chosen with --strategy"
	if o.Strategy == "" || o.Strategy == StrategyAuto {
		o.Strategy, reason = Choose(t)
		if o.Strategy == StrategyAutoRandom {
			o.PreSplit, o.NoPreSplit = 0, false
		} else {
			o.RangeBits = 0
		}
	}
	o = o.withDefaults(autoRandomColumn(t))
	if err := o.Validate(); err != nil {
		return o, "", err
	}
	if err := autoIncrementConflict(t, o.Strategy); err != nil {
		return o, "", err
	}
	return o, reason, nil
}

func render(t *Table, o Options) (*DDL, error) {
	o, reason, err := resolve(t, o)
	if err != nil {
		return nil, err
	}
	v := createView{T: t, IfNotExists: t.IfNotExists}
	d := &DDL{Table: t, Options: o, Reason: reason}
	note := func(format string, args ...any) { d.Notes = append(d.Notes, fmt.Sprintf(format, args...)) }
	var split []uint64
	switch o.Strategy {
	case StrategyShardRowID:
		if c := autoRandomColumn(t); c != nil {
			return nil, fmt.Errorf("%w: column %s is AUTO_RANDOM, which needs a clustered key; shard-rowid makes the key NONCLUSTERED (remove AUTO_RANDOM, or use --strategy auto-random)", ErrConflict, c.Name)
		}
		v.Clustering = "NONCLUSTERED"
		v.ShardRowIDBits = o.ShardBits
		if !o.NoPreSplit {
			v.PreSplit = o.PreSplit
		}
		if t.ShardRowIDBits > 0 && (t.ShardRowIDBits != v.ShardRowIDBits || t.PreSplitRegions != v.PreSplit) {
			note("SHARD_ROW_ID_BITS=%d PRE_SPLIT_REGIONS=%d of the input replaced", t.ShardRowIDBits, t.PreSplitRegions)
		}
	case StrategyAutoRandom:
		c, err := keyColumn(t, o.Strategy)
		if err != nil {
			return nil, err
		}
		if err := autoRandomConflicts(t, c); err != nil {
			return nil, err
		}
		if err := checkIncrementBits(o.ShardBits, o.RangeBits, !c.Unsigned); err != nil {
			return nil, err
		}
		v.Clustering = "CLUSTERED"
		v.AutoRandomColumn, v.AutoRandomBits, v.RangeBits = c.Name, o.ShardBits, o.RangeBits
		if c.AutoIncrement {
			note("AUTO_INCREMENT on %s replaced by AUTO_RANDOM", c.Name)
		}
		v.DropTableOptions = autoIncrementOptions(t)
		for _, s := range v.DropTableOptions {
			note("table option %s left out (AUTO_RANDOM allocates the key)", s)
		}
		d.KeyWarnings = autoRandomWarnings(t, c, o.RangeBits)
	case StrategyRotatedInt:
		c, err := keyColumn(t, o.Strategy)
		if err != nil {
			return nil, err
		}
		if err := rotatedConflicts(t, c); err != nil {
			return nil, err
		}
		if split, err = RotatedSplitPoints(o.Digits, o.IDDigits, o.Lead, c.Unsigned); err != nil {
			return nil, err
		}
		v.Clustering = "CLUSTERED"
	}
	if pk := t.PrimaryKey; pk != nil {
		if (pk.Clustering == ClusteringClustered && v.Clustering != "CLUSTERED") || (pk.Clustering == ClusteringNonClustered && v.Clustering != "NONCLUSTERED") {
			note("primary key made %s (the input said otherwise)", v.Clustering)
		}
	}
	create, err := execute("create_table.sql.tmpl", v)
	if err != nil {
		return nil, err
	}
	v.IfNotExists = false
	plain, err := execute("create_table.sql.tmpl", v)
	if err != nil {
		return nil, err
	}
	d.Statements = append(d.Statements, Statement{Kind: KindCreate, SQL: create, plain: plain})
	if split != nil {
		s, err := renderSplit(t, split)
		if err != nil {
			return nil, err
		}
		d.Statements = append(d.Statements, s)
	}
	d.Warnings = hotspots(t, o.Strategy)
	return d, nil
}

// autoIncrementOptions returns the input's AUTO_INCREMENT=N table options
// as printed.
func autoIncrementOptions(t *Table) []string {
	var out []string
	for _, s := range t.Options {
		if strings.HasPrefix(s, "AUTO_INCREMENT ") || strings.HasPrefix(s, "AUTO_INCREMENT=") {
			out = append(out, s)
		}
	}
	return out
}

// RenderAlter returns the statements that give an existing TiDB table,
// described by its SHOW CREATE TABLE output, the strategy's layout, where
// TiDB can change it in place:
//
//   - shard-rowid: ALTER TABLE … SHARD_ROW_ID_BITS = S on a table without a
//     primary key or with a NONCLUSTERED one, then SPLIT TABLE … BY at the
//     2^P shard boundaries (PRE_SPLIT_REGIONS only acts at CREATE TABLE);
//   - auto-random: ALTER TABLE … MODIFY COLUMN … AUTO_RANDOM on a clustered
//     single-BIGINT AUTO_INCREMENT primary key, the one switch TiDB allows;
//   - rotated-int: only the SPLIT TABLE statement, on a clustered
//     single-BIGINT key.
//
// Anything else (changing whether the key is clustered, adding AUTO_RANDOM
// to a column that is not AUTO_INCREMENT) returns an error wrapping
// ErrAlterNotAllowed that says to create a new table and copy the rows.
func RenderAlter(t *Table, o Options) (*DDL, error) {
	o, reason, err := resolve(t, o)
	if err != nil {
		return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
	}
	d := &DDL{Table: t, Options: o, Reason: reason}
	recreate := fmt.Sprintf("create the table anew (shardid tidb render --strategy %s without --alter) under another name, copy the rows with INSERT … SELECT, then RENAME TABLE", o.Strategy)
	pk := t.PrimaryKey
	switch o.Strategy {
	case StrategyShardRowID:
		for _, c := range t.Columns {
			if c.AutoRandom {
				return nil, fmt.Errorf("render alter %s: %w: column %s is AUTO_RANDOM, which excludes SHARD_ROW_ID_BITS", t.Name, ErrConflict, c.Name)
			}
		}
		if pk != nil && pk.Clustering == ClusteringClustered {
			return nil, fmt.Errorf("render alter %s: %w: SHARD_ROW_ID_BITS needs a NONCLUSTERED key and TiDB cannot uncluster a primary key in place: %s", t.Name, ErrAlterNotAllowed, recreate)
		}
		if pk != nil && pk.Clustering == ClusteringDefault {
			return nil, fmt.Errorf("render alter %s: %w: the input does not say whether the primary key is clustered (TiDB clusters it by default); give the table's SHOW CREATE TABLE output, which does", t.Name, ErrAlterNotAllowed)
		}
		if t.ShardRowIDBits > o.ShardBits {
			return nil, fmt.Errorf("render alter %s: %w: lowering SHARD_ROW_ID_BITS from %d to %d (rows already written keep their shard bits; use at least %d)", t.Name, ErrShardBits, t.ShardRowIDBits, o.ShardBits, t.ShardRowIDBits)
		}
		s, err := execute("alter_table.sql.tmpl", alterView{T: t, ShardRowIDBits: o.ShardBits})
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		d.Statements = append(d.Statements, Statement{Kind: KindAlter, SQL: s, TiDBOnly: true})
		if !o.NoPreSplit {
			sp, err := renderSplit(t, ShardRowIDSplitPoints(o.PreSplit))
			if err != nil {
				return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
			}
			d.Statements = append(d.Statements, sp)
		}
	case StrategyAutoRandom:
		c, err := keyColumn(t, o.Strategy)
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		switch {
		case pk.Clustering != ClusteringClustered:
			return nil, fmt.Errorf("render alter %s: %w: AUTO_RANDOM needs a clustered key and the input's key is not declared CLUSTERED (TiDB cannot cluster a key in place; if SHOW CREATE TABLE says CLUSTERED, give that output): %s", t.Name, ErrAlterNotAllowed, recreate)
		case c.AutoRandom:
			return nil, fmt.Errorf("render alter %s: %w: column %s is already AUTO_RANDOM and TiDB does not change AUTO_RANDOM in place: %s", t.Name, ErrAlterNotAllowed, c.Name, recreate)
		case !c.AutoIncrement:
			return nil, fmt.Errorf("render alter %s: %w: TiDB adds AUTO_RANDOM to an existing column only in place of AUTO_INCREMENT, and %s is not AUTO_INCREMENT: %s", t.Name, ErrAlterNotAllowed, c.Name, recreate)
		case c.HasDefault:
			return nil, fmt.Errorf("render alter %s: %w: column %s has a DEFAULT, which AUTO_RANDOM excludes", t.Name, ErrConflict, c.Name)
		case t.ShardRowIDBits > 0:
			return nil, fmt.Errorf("render alter %s: %w: the table has SHARD_ROW_ID_BITS, which AUTO_RANDOM excludes", t.Name, ErrConflict)
		case o.RangeBits != DefaultRangeBits:
			return nil, fmt.Errorf("render alter %s: %w: TiDB does not change the range bits of an existing column (it has %d); leave --range out, or %s", t.Name, ErrRangeBits, DefaultRangeBits, recreate)
		}
		if err := checkIncrementBits(o.ShardBits, o.RangeBits, !c.Unsigned); err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		d.Notes = append(d.Notes, fmt.Sprintf("AUTO_INCREMENT on %s replaced by AUTO_RANDOM", c.Name))
		d.KeyWarnings = autoRandomWarnings(t, c, o.RangeBits)
		set, err := execute("alter_table.sql.tmpl", alterView{AllowRemoveAutoInc: true})
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		s, err := execute("alter_table.sql.tmpl", alterView{T: t, Column: c, AutoRandomBits: o.ShardBits, RangeBits: o.RangeBits})
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		d.Statements = append(d.Statements, Statement{Kind: KindSession, SQL: set, TiDBOnly: true}, Statement{Kind: KindAlter, SQL: s, TiDBOnly: true})
	case StrategyRotatedInt:
		c, err := keyColumn(t, o.Strategy)
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		if pk.Clustering != ClusteringClustered {
			return nil, fmt.Errorf("render alter %s: %w: rotated-int needs a clustered key and the input's key is not declared CLUSTERED (TiDB cannot cluster a key in place; if SHOW CREATE TABLE says CLUSTERED, give that output): %s", t.Name, ErrAlterNotAllowed, recreate)
		}
		if err := rotatedConflicts(t, c); err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		points, err := RotatedSplitPoints(o.Digits, o.IDDigits, o.Lead, c.Unsigned)
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		sp, err := renderSplit(t, points)
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		d.Statements = append(d.Statements, sp)
	}
	return d, nil
}

// renderSplit renders SPLIT TABLE … BY at the given points, ten a line.
func renderSplit(t *Table, points []uint64) (Statement, error) {
	var rows [][]string
	for i, p := range points {
		if i%10 == 0 {
			rows = append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], strconv.FormatUint(p, 10))
	}
	s, err := execute("split_table.sql.tmpl", splitView{T: t, Rows: rows})
	if err != nil {
		return Statement{}, err
	}
	return Statement{Kind: KindSplit, SQL: s, TiDBOnly: true}, nil
}

// keyColumn returns the single BIGINT primary-key column that auto-random
// and rotated-int need, or an error wrapping ErrKey saying why not.
func keyColumn(t *Table, s Strategy) (*Column, error) {
	pk := t.PrimaryKey
	switch {
	case pk == nil:
		return nil, fmt.Errorf("%w: %s needs a BIGINT primary key and the table has none (use --strategy shard-rowid)", ErrKey, s)
	case len(pk.Parts) != 1:
		return nil, fmt.Errorf("%w: %s needs a single-column BIGINT primary key, the key has %d columns (use --strategy shard-rowid)", ErrKey, s, len(pk.Parts))
	case pk.Parts[0].Column == "":
		return nil, fmt.Errorf("%w: %s needs a BIGINT column as primary key, not an expression", ErrKey, s)
	}
	c := t.Column(pk.Parts[0].Column)
	switch {
	case c == nil:
		return nil, fmt.Errorf("%w: primary key column %s is not a column of the table", ErrKey, pk.Parts[0].Column)
	case !c.BigInt:
		return nil, fmt.Errorf("%w: %s needs a BIGINT primary key, %s is %s (use --strategy shard-rowid, or change the column to BIGINT)", ErrKey, s, c.Name, c.Type)
	case pk.Parts[0].Length > 0:
		return nil, fmt.Errorf("%w: primary key uses a prefix of %s", ErrKey, c.Name)
	}
	return c, nil
}

// autoRandomConflicts refuses what TiDB does not allow beside AUTO_RANDOM
// (an AUTO_INCREMENT is replaced, not refused).
func autoRandomConflicts(t *Table, c *Column) error {
	switch {
	case c.HasDefault:
		return fmt.Errorf("%w: column %s has a DEFAULT, which AUTO_RANDOM excludes; remove it from the input", ErrConflict, c.Name)
	case t.ShardRowIDBits > 0:
		return fmt.Errorf("%w: the input sets SHARD_ROW_ID_BITS, which AUTO_RANDOM excludes; remove it from the input", ErrConflict)
	}
	return nil
}

// rotatedConflicts refuses key columns whose values would not come from
// the application's rotated generator.
func rotatedConflicts(t *Table, c *Column) error {
	switch {
	case c.AutoIncrement:
		return fmt.Errorf("%w: column %s is AUTO_INCREMENT; rotated-int keys come from the application (tidb/rotate), remove AUTO_INCREMENT", ErrConflict, c.Name)
	case c.AutoRandom:
		return fmt.Errorf("%w: column %s is AUTO_RANDOM; rotated-int keys come from the application (tidb/rotate), remove AUTO_RANDOM or use --strategy auto-random", ErrConflict, c.Name)
	case t.ShardRowIDBits > 0:
		return fmt.Errorf("%w: the input sets SHARD_ROW_ID_BITS, which a clustered key excludes; remove it from the input", ErrConflict)
	}
	return nil
}
