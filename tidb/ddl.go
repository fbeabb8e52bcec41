package tidb

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"text/template"

	"github.com/shardid/shardid/tidb/script"
)

// Statement is one rendered SQL statement, without the final semicolon.
type Statement struct {
	// Kind says what the statement does.
	Kind script.Kind
	// SQL is the statement text.
	SQL string
	// TiDBOnly reports a statement that MySQL and MariaDB reject (SPLIT
	// TABLE, ALTER … SHARD_ROW_ID_BITS, … AUTO_RANDOM); the others run
	// everywhere, with their TiDB clauses in comments.
	TiDBOnly bool
	// OnlyOn lists the servers that read the statement as intended, nil
	// for all: a CREATE TABLE whose key is AUTO_RANDOM reads right on TiDB
	// and MariaDB (TargetTiDB) or on MySQL and MariaDB (TargetMySQL), and a
	// Migrator refuses it elsewhere instead of running it.
	OnlyOn []Target

	// Plain is SQL without the input's IF NOT EXISTS (a CREATE TABLE):
	// what a migration runs, so that an existing table is refused.
	Plain string
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
	// Costs say what the rendered table costs its readers compared with
	// the input: keys that no longer rise in insert order, values past
	// 2^53, a FULLTEXT index TiDB does not build, regions multiplied by
	// partitions.
	Costs []string
	// Statements in the order they must run, on one session when one of
	// them is a script.KindSession.
	Statements []Statement
	// Widened names the integer columns the rendering made BIGINT: an INT
	// or MEDIUMINT AUTO_INCREMENT key for AUTO_RANDOM, and the FOREIGN
	// KEY columns that point at such a key (Options.NoWiden keeps them).
	Widened []string
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

// templates are the parsed templates of sql/ beside this file.
var templates = template.Must(template.New("tidb").Funcs(template.FuncMap{"ident": script.QuoteIdent, "has": slices.Contains[[]string]}).ParseFS(templateFS, "sql/*.sql.tmpl"))

// createView is the data of create_table.sql.tmpl.
type createView struct {
	T              *Table
	IfNotExists    bool
	Clustering     string // CLUSTERED or NONCLUSTERED
	ShardRowIDBits int    // shard-rowid
	PreSplit       int    // shard-rowid; 0 means none
	// DropTableOptions are table options to leave out (AUTO_INCREMENT=N
	// beside AUTO_RANDOM, written as AutoRandomBase instead).
	DropTableOptions []string
	// AutoRandomColumn names the AUTO_RANDOM column (auto-random).
	AutoRandomColumn          string
	AutoRandomBits, RangeBits int
	// AutoIncrement is how the AUTO_RANDOM column keeps AUTO_INCREMENT
	// for the other servers: "/*M! AUTO_INCREMENT */" (MariaDB reads it,
	// TiDB and MySQL skip it) or "AUTO_INCREMENT" (TargetMySQL).
	AutoIncrement string
	// AutoRandomBase is the input's AUTO_INCREMENT=N carried over as TiDB's
	// AUTO_RANDOM_BASE=N and MariaDB's AUTO_INCREMENT=N (0 for none).
	AutoRandomBase uint64
	// PlainAutoIncrementBase writes AUTO_INCREMENT=N in plain text
	// (TargetMySQL) rather than for MariaDB only.
	PlainAutoIncrementBase bool
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
// AUTO_RANDOM replaces, an INT key widened to BIGINT for AUTO_RANDOM,
// bits lowered or an AUTO_INCREMENT=N left out so the IDs have room. It
// returns the errors of Options.Validate and errors wrapping ErrKey,
// ErrConflict, ErrRangeBits and ErrNoRoom. With o.Alter it is RenderAlter.
func Render(t *Table, o Options) (*DDL, error) {
	if o.Alter {
		return RenderAlter(t, o)
	}
	d, err := render(t, o)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", t.Name, err)
	}
	return d, nil
}

// resolve picks the strategy (Choose for auto), drops the options auto
// does not apply to the pick, fills in defaults and validates the result.
func resolve(t *Table, o Options, alter bool) (Options, string, error) {
	if err := o.Validate(); err != nil {
		return o, "", err
	}
	specs := o.Tables
	o.Tables, o.Alter = nil, false
	for _, spec := range specs {
		if spec.matches(t) {
			var err error
			if o, err = spec.apply(o); err != nil {
				return o, "", err
			}
			break
		}
	}
	reason := "chosen with --strategy"
	if o.Strategy == "" || o.Strategy == StrategyAuto {
		o.Strategy, reason = Choose(t)
		if c := keyWidened(t, Options{Strategy: o.Strategy}); c != nil && (o.NoWiden || alter) {
			why := "--no-widen"
			if alter {
				why = "--alter changes no column type"
			}
			o.Strategy, reason = StrategyShardRowID, fmt.Sprintf("%s AUTO_INCREMENT key kept %s (%s; AUTO_RANDOM needs BIGINT)", typeWord(c.Type), typeWord(c.Type), why)
		}
		if o.Strategy == StrategyAutoRandom {
			o.PreSplit, o.NoPreSplit = 0, false
		} else {
			o.RangeBits = 0
		}
	}
	var key *Column
	if pk := t.PrimaryKey; pk != nil && len(pk.Parts) == 1 {
		key = t.Column(pk.Parts[0].Column)
	}
	if alter && o.Strategy == StrategyAutoRandom && o.RangeBits == 0 {
		o.RangeBits = TiDBRangeBits // the only range ALTER … AUTO_RANDOM takes
	}
	o = o.withDefaults(autoRandomColumn(t), key)
	if err := o.Validate(); err != nil {
		return o, "", err
	}
	if err := autoIncrementConflict(t, o.Strategy); err != nil {
		return o, "", err
	}
	return o, reason, nil
}

func render(t *Table, o Options) (*DDL, error) {
	askedBits, askedRange := o.ShardBits != 0, o.RangeBits != 0
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	t = generatedForms(t, o.Target, note)
	t, wide := widenColumns(t, o.widen, note)
	o, reason, err := resolve(t, o, false)
	if err != nil {
		return nil, err
	}
	var widened *Column
	if c := keyWidened(t, o); c != nil {
		var key []string
		t, key = widenColumns(t, map[string]string{strings.ToLower(c.Name): "AUTO_RANDOM needs BIGINT"}, note)
		widened, wide = t.Column(c.Name), append(wide, key...)
	}
	v := createView{T: t, IfNotExists: t.IfNotExists}
	d := &DDL{Table: t, Options: o, Reason: reason, Notes: notes, Widened: wide}
	note = func(format string, args ...any) { d.Notes = append(d.Notes, fmt.Sprintf(format, args...)) }
	if widened != nil {
		d.Costs = append(d.Costs, fmt.Sprintf("%s is BIGINT now, its values up to 2^53 from the first insert: the application must read it as a 64-bit integer (an int32 field overflows), and so must every column that stores it; a script's columns with a FOREIGN KEY to it or named for it are widened with it, a column holding it under another name is not; --no-widen keeps it INT, with the index's last region taking every insert", widened.Name))
	}
	if o.Target == TargetTiDB || o.Target == "" {
		if v.T, err = tidbDefaults(t, note); err != nil {
			return nil, err
		}
	}
	var split []uint64
	var only []Target // servers that read the CREATE as intended; nil for all
	switch o.Strategy {
	case StrategyShardRowID:
		if c := autoRandomColumn(t); c != nil {
			return nil, fmt.Errorf("%w: column %s is AUTO_RANDOM, which needs a clustered key; shard-rowid makes the key NONCLUSTERED (remove AUTO_RANDOM, or use --strategy auto-random)", ErrConflict, c.Name)
		}
		if o, err = shardRowIDRoom(t, o, askedBits, &v, note); err != nil {
			return nil, err
		}
		v.Clustering = "NONCLUSTERED"
		v.ShardRowIDBits = o.ShardBits
		o = splitRule(t, o, note)
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
		if o, err = autoRandomRoom(t, o, c, askedBits, askedRange, note); err != nil {
			return nil, err
		}
		if err := checkIncrementBits(o.ShardBits, o.RangeBits, !c.Unsigned); err != nil {
			return nil, err
		}
		if o.PreSplit > o.ShardBits {
			return nil, fmt.Errorf("%w: PRE_SPLIT_REGIONS=%d above AUTO_RANDOM's %d shard bits (TiDB would silently lower it; allowed: 1–%d)", ErrPreSplit, o.PreSplit, o.ShardBits, o.ShardBits)
		}
		v.Clustering = "CLUSTERED"
		v.AutoRandomColumn, v.AutoRandomBits, v.RangeBits = c.Name, o.ShardBits, o.RangeBits
		o = splitRule(t, o, note)
		if !o.NoPreSplit {
			v.PreSplit = o.PreSplit
		}
		v.AutoIncrement = "/*M! AUTO_INCREMENT */"
		only = []Target{TargetTiDB, TargetMariaDB}
		if o.Target == TargetMySQL {
			v.AutoIncrement, v.PlainAutoIncrementBase = "AUTO_INCREMENT", true
			only = []Target{TargetMySQL, TargetMariaDB}
		}
		if check := checkOn(t, c.Name); check != "" {
			// MariaDB (ERROR 1901) and MySQL (ERROR 3818) refuse a CHECK
			// that reads an AUTO_INCREMENT column.
			if o.Target == TargetMySQL {
				return nil, fmt.Errorf("%w: %s reads %s, and MySQL refuses a CHECK on an AUTO_INCREMENT column (ERROR 3818): check it in the application, or render for TiDB", ErrConflict, check, c.Name)
			}
			v.AutoIncrement, only = "", []Target{TargetTiDB}
			note("%s gets no AUTO_INCREMENT for MariaDB: %s reads it, which MariaDB refuses beside AUTO_INCREMENT (ERROR 1901)", c.Name, check)
		}
		switch {
		case v.AutoIncrement == "":
			if c.AutoIncrement {
				note("AUTO_INCREMENT on %s replaced by AUTO_RANDOM", c.Name)
			}
		case c.AutoIncrement:
			note("AUTO_INCREMENT on %s replaced by AUTO_RANDOM on TiDB (%s keeps it for %s)", c.Name, v.AutoIncrement, otherServers(o.Target))
		default:
			note("%s keeps AUTO_INCREMENT for %s (%s)", c.Name, otherServers(o.Target), v.AutoIncrement)
		}
		v.DropTableOptions = t.AutoIncrementOptions()
		if len(v.DropTableOptions) > 0 {
			v.AutoRandomBase = script.AutoIncrementBase(v.DropTableOptions[len(v.DropTableOptions)-1])
			note("table option %s carried over as AUTO_RANDOM_BASE=%d on TiDB (the key's increment starts there)", v.DropTableOptions[len(v.DropTableOptions)-1], v.AutoRandomBase)
		}
		d.KeyWarnings = autoRandomWarnings(t, c, o.RangeBits)
		d.Costs = append(d.Costs, orderCost(c.Name, "AUTO_RANDOM puts random shard bits above the increment"))
		if safe := jsSafeRange(c); o.RangeBits > safe {
			keep := fmt.Sprintf("--range %d keeps every value exact", safe)
			if v.AutoRandomBase >= 1<<53 {
				keep = fmt.Sprintf("the input's AUTO_INCREMENT=%d starts past it already", v.AutoRandomBase)
			}
			d.Costs = append(d.Costs, fmt.Sprintf("%s reaches 2^%d: past 2^53 a JavaScript number (a browser, JSON.parse) rounds it; %s", c.Name, o.RangeBits-1+boolInt(c.Unsigned), keep))
		}
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
		if o.Target != TargetTiDB {
			split = nil
			note("SPLIT TABLE left out: %s has no regions (--target %s)", o.Target.ServerName(), o.Target)
		}
		v.Clustering = "CLUSTERED"
		d.Costs = append(d.Costs, orderCost(c.Name, "the application rotates its digits"))
	}
	if pk := t.PrimaryKey; pk != nil {
		if (pk.Clustering == script.ClusteringClustered && v.Clustering != "CLUSTERED") || (pk.Clustering == script.ClusteringNonClustered && v.Clustering != "NONCLUSTERED") {
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
	d.Statements = append(d.Statements, Statement{Kind: script.KindCreate, SQL: create, Plain: plain, OnlyOn: only})
	if split != nil {
		s, err := renderSplit(t, split)
		if err != nil {
			return nil, err
		}
		d.Statements = append(d.Statements, s)
	}
	d.Warnings = hotspots(t, o.Strategy)
	if o.Target == TargetTiDB {
		d.Costs = append(d.Costs, fulltextCosts(t)...)
	}
	if n := t.Partitions; n > 1 && v.PreSplit > 0 {
		d.Costs = append(d.Costs, fmt.Sprintf("PRE_SPLIT_REGIONS=%d splits each of the %d partitions: %d regions from the start (pre-split=none in --table leaves it out)", v.PreSplit, n, n<<v.PreSplit))
	}
	d.Options = o
	return d, nil
}

// checkOn names the first CHECK constraint of t that reads the column, or
// "".
func checkOn(t *Table, col string) string {
	for _, u := range computationsOn(t, col) {
		if u.kind == checkKind {
			return u.what
		}
	}
	return ""
}

// otherServers names the servers that read the AUTO_INCREMENT an
// AUTO_RANDOM column keeps for them.
func otherServers(t Target) string {
	if t == TargetMySQL {
		return "MySQL and MariaDB; TiDB refuses the table"
	}
	return "MariaDB"
}

// orderCost says what a key that stops rising in insert order costs.
func orderCost(col, why string) string {
	return fmt.Sprintf("%s no longer rises in insert order (%s): a reader paging with `%s > ? ORDER BY %s` skips rows and a newest-first list by %s is out of order; order such reads by a time column, or keep this key AUTO_INCREMENT with --table NAME=shard-rowid (across several TiDB servers it rises only with AUTO_ID_CACHE 1)", col, why, col, col, col)
}

// jsSafeRange is the widest AUTO_RANDOM range that keeps c's values below
// 2^53.
func jsSafeRange(c *Column) int {
	if c.Unsigned {
		return JSSafeUnsignedRangeBits
	}
	return JSSafeRangeBits
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fulltextCosts names each FULLTEXT index: TiDB 8.5 accepts the clause and
// builds nothing.
func fulltextCosts(t *Table) []string {
	var out []string
	for _, ix := range t.Indexes {
		if ix.Kind == "FULLTEXT KEY" {
			out = append(out, fmt.Sprintf("FULLTEXT KEY %s: TiDB 8.5 accepts it and builds no index, so MATCH … AGAINST fails there; search with an external engine, or drop the index", cmp.Or(ix.Name, "(unnamed)")))
		}
	}
	return out
}

// splitRule applies the MinSplit rule to o's pre-split: a table whose key
// holds fewer values than MinSplit rows (TINYINT, SMALLINT keys), or whose
// expected Rows are fewer, is not pre-split, unless the user asked for a
// pre-split on this table.
func splitRule(t *Table, o Options, note func(string, ...any)) Options {
	if o.splitAsked || o.NoPreSplit || o.PreSplit == 0 {
		return o
	}
	rows, why := o.Rows, fmt.Sprintf("rows=%d expected", o.Rows)
	if rows == 0 {
		rows, why = keyCapacity(t)
	}
	if rows == 0 || rows >= o.MinSplit {
		return o
	}
	o.PreSplit, o.NoPreSplit = 0, true
	note("PRE_SPLIT_REGIONS left out: %s, under --min-split %d (the table fits a region or two; --table %s=%s,pre-split=%d splits it anyway)", why, o.MinSplit, t.Name, o.Strategy, o.ShardBits)
	return o
}

// keyCapacity returns how many rows t's primary key can tell apart when
// every key column is an integer, and says so ("the key (SMALLINT
// UNSIGNED) holds at most 65535 rows"); 0 when that is unknown or more
// than an int64 counts.
func keyCapacity(t *Table) (int64, string) {
	pk := t.PrimaryKey
	if pk == nil {
		return 0, ""
	}
	total := int64(1)
	var types []string
	for _, p := range pk.Parts {
		c := t.Column(p.Column)
		if c == nil || !c.Integer {
			return 0, ""
		}
		n, ok := integerValues[typeWord(strings.ToUpper(c.Type))]
		if !ok {
			return 0, ""
		}
		if n--; !c.Unsigned {
			n /= 2 // the positive half: keys count up from 1
		}
		if total > math.MaxInt64/n {
			return 0, ""
		}
		total *= n
		types = append(types, strings.TrimSpace(typeWord(strings.ToUpper(c.Type))+" "+map[bool]string{true: "UNSIGNED"}[c.Unsigned]))
	}
	return total, fmt.Sprintf("the key (%s) holds at most %d rows", strings.Join(types, ", "), total)
}

// integerValues is how many values each integer type holds, unsigned
// (BIGINT's 2^64 does not fit and is left out: it never caps a table).
var integerValues = map[string]int64{"TINYINT": 1 << 8, "SMALLINT": 1 << 16, "MEDIUMINT": 1 << 24, "INT": 1 << 32, "INTEGER": 1 << 32}

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
