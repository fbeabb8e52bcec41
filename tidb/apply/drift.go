package apply

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
)

// Verify returns Status, with each applied migration compared against the
// server: a CREATE TABLE whose table is gone or differs (columns, their
// types, the primary key, the indexes and FOREIGN KEYs it created, and on
// TiDB AUTO_RANDOM, SHARD_ROW_ID_BITS and whether the key is clustered),
// a view, a FOREIGN KEY or a routine that is gone. A column's NOT NULL
// and DEFAULT count, and so does an index turned from UNIQUE into a plain
// key of the same name and columns (or back). Each difference is a
// line of Status.Drift; what it cannot compare (a table whose SHOW CREATE
// TABLE TiDB's parser does not read) is a line of Status.Unchecked. On
// TiDB a table whose next row id or AUTO_RANDOM increment is past the
// room its shard bits leave is a line of Status.Full. Data and SPLIT
// TABLE migrations are not compared.
func (m *Migrator) Verify(ctx context.Context) ([]Status, error) {
	st, err := m.Status(ctx)
	if err != nil {
		return nil, err
	}
	target, _, err := m.server(ctx)
	if err != nil {
		return nil, err
	}
	// The indexes a server makes for the FOREIGN KEYs that later
	// migrations add stay when such a key is dropped: not the table's
	// drift.
	m.fkNames = map[string]bool{}
	for _, s := range st {
		if !s.Applied || s.Migration.Kind != script.KindForeignKey {
			continue
		}
		stmts, _ := upStatements(s.Migration.Text)
		for _, stmt := range stmts {
			if parsed, err := script.ParseSQL(parser.New(), stmt); err == nil && len(parsed) == 1 {
				if n, ok := parsed[0].(*ast.AlterTableStmt); ok {
					for _, spec := range n.Specs {
						if spec.Constraint != nil && spec.Constraint.Name != "" {
							m.fkNames[strings.ToLower(n.Table.Name.O+"\x00"+spec.Constraint.Name)] = true
						}
					}
				}
			}
		}
	}
	for i := range st {
		s := &st[i]
		if !s.Applied || s.Skipped {
			continue
		}
		stmts, err := upStatements(s.Migration.Text)
		if err != nil {
			s.Unchecked = append(s.Unchecked, err.Error())
			continue
		}
		for _, stmt := range stmts {
			m.full = nil
			drift, unchecked, err := m.verifyStatement(ctx, stmt, target)
			if err != nil {
				return nil, fmt.Errorf("verify %s: %w", s.Migration.Name, err)
			}
			s.Drift = append(s.Drift, drift...)
			s.Unchecked = append(s.Unchecked, unchecked...)
			s.Full = append(s.Full, m.full...)
		}
	}
	return st, nil
}

// verifyStatement compares what one applied statement made with the
// server.
func (m *Migrator) verifyStatement(ctx context.Context, stmt string, target tidb.Target) (drift, unchecked []string, err error) {
	if verb, typ, name, ok := script.Routine(stmt); ok {
		if verb == "DROP" || target == tidb.TargetTiDB {
			return nil, nil, nil
		}
		drift, err := m.routineDrift(ctx, typ, name)
		return drift, nil, err
	}
	stmts, perr := script.ParseSQL(parser.New(), stmt)
	if perr != nil || len(stmts) != 1 {
		return nil, nil, nil // not a statement shardid checks (data, a file written by hand)
	}
	switch n := stmts[0].(type) {
	case *ast.CreateTableStmt:
		want, err := script.FromCreate(n)
		if err != nil {
			return nil, []string{err.Error()}, nil
		}
		return m.verifyTable(ctx, want, target)
	case *ast.CreateViewStmt:
		ok, err := m.exists(ctx, "SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ?", n.ViewName.Schema.O, n.ViewName.Name.O)
		if err != nil || ok {
			return nil, nil, err
		}
		return []string{fmt.Sprintf("view %s is missing", script.Qualified(n.ViewName))}, nil, nil
	case *ast.AlterTableStmt:
		for _, spec := range n.Specs {
			if spec.Tp != ast.AlterTableAddConstraint || spec.Constraint == nil || spec.Constraint.Tp != ast.ConstraintForeignKey || spec.Constraint.Name == "" {
				continue
			}
			ok, err := m.exists(ctx, "SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ? AND CONSTRAINT_NAME = ?", n.Table.Schema.O, n.Table.Name.O, spec.Constraint.Name)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				drift = append(drift, fmt.Sprintf("FOREIGN KEY %s of %s is missing", spec.Constraint.Name, script.Qualified(n.Table)))
			}
		}
		return drift, nil, nil
	}
	return nil, nil, nil
}

// routineDrift reports a trigger, procedure, function or event that is
// gone.
func (m *Migrator) routineDrift(ctx context.Context, typ, name string) ([]string, error) {
	schema, bare := "", name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema, bare = name[:i], name[i+1:]
	}
	var q string
	args := []any{schema, bare}
	switch typ {
	case "TRIGGER":
		q = "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TRIGGER_NAME = ?"
	case "EVENT":
		q = "SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND EVENT_NAME = ?"
	default:
		q = "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND ROUTINE_NAME = ? AND ROUTINE_TYPE = ?"
		args = append(args, typ)
	}
	ok, err := m.exists(ctx, q, args...)
	if err != nil || ok {
		return nil, err
	}
	return []string{fmt.Sprintf("%s %s is missing", strings.ToLower(typ), name)}, nil
}

// exists runs a COUNT(*) query and reports a count above zero.
func (m *Migrator) exists(ctx context.Context, q string, args ...any) (bool, error) {
	var n int
	if err := m.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// verifyTable compares a created table with the server's.
func (m *Migrator) verifyTable(ctx context.Context, want *script.Table, target tidb.Target) (drift, unchecked []string, err error) {
	name := "`" + want.Name + "`"
	if want.Schema != "" {
		name = "`" + want.Schema + "`." + name
	}
	var tn, create string
	err = m.db.QueryRowContext(ctx, "SHOW CREATE TABLE "+name).Scan(&tn, &create)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1146 {
		return []string{fmt.Sprintf("table %s is missing", want.QualifiedName())}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	got, err := script.Parse(create)
	if err != nil {
		return nil, []string{fmt.Sprintf("table %s not compared: TiDB's parser does not read the server's SHOW CREATE TABLE (%v)", want.QualifiedName(), err)}, nil
	}
	drift = tableDiff(want, got, target == tidb.TargetTiDB, m.fkNames)
	if target == tidb.TargetTiDB {
		full, err := m.tableFull(ctx, name, got)
		if err != nil {
			return nil, nil, err
		}
		m.full = append(m.full, full...)
	}
	return drift, nil, nil
}

// tableFull says, for a TiDB table (got, as the server shows it), when
// its next row id is past the room SHARD_ROW_ID_BITS leaves it, or the
// next AUTO_RANDOM increment past the room AUTO_RANDOM(S, R) leaves it:
// every insert then fails (ERROR 1467, ERROR 8059).
func (m *Migrator) tableFull(ctx context.Context, name string, got *script.Table) ([]string, error) {
	rows, err := m.db.QueryContext(ctx, "SHOW TABLE "+name+" NEXT_ROW_ID")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var db, table, col, next, typ string
		if err := rows.Scan(&db, &table, &col, &next, &typ); err != nil {
			return nil, err
		}
		n, err := strconv.ParseUint(next, 10, 64)
		if err != nil {
			continue
		}
		switch typ {
		case "_TIDB_ROWID":
			if b := got.ShardRowIDBits; b > 0 && n >= 1<<(63-b) {
				out = append(out, fmt.Sprintf("%s cannot take an insert: its next row id %d is past the 2^%d SHARD_ROW_ID_BITS=%d leaves (ERROR 1467); recreate it with fewer shard bits or no AUTO_INCREMENT=N table option", got.QualifiedName(), n, 63-b, b))
			}
		case "AUTO_RANDOM":
			c := got.Column(col)
			if c == nil {
				continue
			}
			s, r := cmp.Or(c.AutoRandomShardBits, tidb.DefaultAutoRandomBits), cmp.Or(c.AutoRandomRangeBits, tidb.TiDBRangeBits)
			if inc := r - s - signBit(c); inc < 64 && n >= 1<<inc {
				out = append(out, fmt.Sprintf("%s cannot take an insert leaving %s out: its next AUTO_RANDOM increment %d is past the 2^%d AUTO_RANDOM(%d, %d) leaves (ERROR 8059); recreate it with a wider range or fewer shard bits", got.QualifiedName(), c.Name, n, inc, s, r))
			}
		}
	}
	return out, rows.Err()
}

// tableDiff lists how got (the server's table) differs from want (what
// the migration created): columns by name, order, type, NOT NULL and
// DEFAULT; whether each index is UNIQUE; the primary
// key; the indexes and named FOREIGN KEYs of want; on TiDB the layout
// (AUTO_RANDOM, SHARD_ROW_ID_BITS, clustered or not). Extra FOREIGN KEYs,
// and the indexes a server makes for a FOREIGN KEY, are not differences:
// a later migration adds them.
func tableDiff(want, got *script.Table, tidb bool, fkNames map[string]bool) []string {
	var out []string
	add := func(format string, args ...any) {
		out = append(out, want.QualifiedName()+": "+fmt.Sprintf(format, args...))
	}
	var wantCols, gotCols []string
	for _, c := range want.Columns {
		wantCols = append(wantCols, strings.ToLower(c.Name))
	}
	for _, c := range got.Columns {
		gotCols = append(gotCols, strings.ToLower(c.Name))
	}
	for _, c := range want.Columns {
		g := got.Column(c.Name)
		switch {
		case g == nil:
			add("column %s is missing", c.Name)
		case normType(c.Type, tidb) != normType(g.Type, tidb):
			add("column %s is %s, the migration made it %s", c.Name, normType(g.Type, tidb), normType(c.Type, tidb))
		case tidb && c.AutoRandom != g.AutoRandom:
			add("column %s is %sAUTO_RANDOM, the migration made it %s", c.Name, map[bool]string{false: "not "}[g.AutoRandom], map[bool]string{true: "AUTO_RANDOM", false: "not"}[c.AutoRandom])
		default:
			wantNN, gotNN := c.NotNull || inPrimaryKey(want, c.Name), g.NotNull || inPrimaryKey(got, g.Name)
			if wantNN != gotNN {
				add("column %s is %s, the migration made it %s", c.Name, nullWord(gotNN), nullWord(wantNN))
			}
			if wd, gd := columnDefault(c, wantNN), columnDefault(*g, gotNN); !sameDefault(wd, gd) {
				add("column %s has %s, the migration gave it %s", c.Name, defaultWord(gd), defaultWord(wd))
			}
		}
	}
	for _, c := range got.Columns {
		if want.Column(c.Name) == nil {
			add("column %s was added", c.Name)
		}
	}
	if !slices.Equal(wantCols, gotCols) && len(out) == 0 {
		add("columns are in another order (%s)", strings.Join(gotCols, ", "))
	}
	if keyCols(want.PrimaryKey) != keyCols(got.PrimaryKey) {
		add("primary key is (%s), the migration made it (%s)", keyCols(got.PrimaryKey), keyCols(want.PrimaryKey))
	} else if tidb && want.PrimaryKey != nil && got.PrimaryKey != nil && want.PrimaryKey.Clustering != script.ClusteringDefault && got.PrimaryKey.Clustering != want.PrimaryKey.Clustering {
		add("primary key is no longer %s", map[script.Clustering]string{script.ClusteringClustered: "CLUSTERED", script.ClusteringNonClustered: "NONCLUSTERED"}[want.PrimaryKey.Clustering])
	}
	for _, ix := range want.Indexes {
		switch {
		case ix.Kind == "FULLTEXT KEY" && tidb: // TiDB 8.5 builds none
		case ix.Kind != "":
			gi := indexNamed(got, ix.Name)
			if ix.Name == "" {
				continue
			}
			if gi == nil {
				add("index %s is missing", ix.Name)
			} else if partCols(gi.Parts) != partCols(ix.Parts) {
				add("index %s is on (%s), the migration made it on (%s)", ix.Name, partCols(gi.Parts), partCols(ix.Parts))
			} else if (gi.Kind == "UNIQUE KEY") != (ix.Kind == "UNIQUE KEY") {
				add("index %s is %s, the migration made it %s", ix.Name, indexWord(gi.Kind), indexWord(ix.Kind))
			}
		case ix.References != "" && ix.Name != "":
			if !slices.ContainsFunc(got.Indexes, func(g script.Index) bool { return g.References != "" && strings.EqualFold(g.Name, ix.Name) }) {
				add("FOREIGN KEY %s is missing", ix.Name)
			}
		}
	}
	var unnamed []string // the columns of want's indexes without a name, which the server names
	for _, ix := range want.Indexes {
		if ix.Kind != "" && ix.Name == "" {
			unnamed = append(unnamed, partCols(ix.Parts))
		}
	}
	for _, gi := range got.Indexes {
		if gi.Kind == "" || gi.Name == "" || indexNamed(want, gi.Name) != nil {
			continue
		}
		if i := slices.Index(unnamed, partCols(gi.Parts)); i >= 0 {
			unnamed = slices.Delete(unnamed, i, i+1)
			continue
		}
		if fkNames[strings.ToLower(want.Name+"\x00"+gi.Name)] || slices.ContainsFunc(got.Indexes, func(g script.Index) bool {
			return g.References != "" && (strings.EqualFold(g.Name, gi.Name) || partCols(g.Parts) == partCols(gi.Parts))
		}) {
			continue // the index a FOREIGN KEY needs, or needed
		}
		add("index %s was added", gi.Name)
	}
	if tidb && want.ShardRowIDBits != got.ShardRowIDBits {
		add("SHARD_ROW_ID_BITS is %d, the migration set %d", got.ShardRowIDBits, want.ShardRowIDBits)
	}
	return out
}

// inPrimaryKey reports a column of t's primary key (NOT NULL whether
// written or not).
func inPrimaryKey(t *script.Table, col string) bool {
	return t.PrimaryKey != nil && slices.ContainsFunc(t.PrimaryKey.Parts, func(p script.IndexPart) bool { return strings.EqualFold(p.Column, col) })
}

func nullWord(notNull bool) string {
	if notNull {
		return "NOT NULL"
	}
	return "NULL-able"
}

func indexWord(kind string) string {
	if kind == "UNIQUE KEY" {
		return "UNIQUE"
	}
	return "a plain " + kind + " (not UNIQUE)"
}

// columnDefault is a column's DEFAULT as compared: its own, NULL for a
// NULL-able column without one (servers print DEFAULT NULL there), ""
// for none.
func columnDefault(c script.Column, notNull bool) string {
	switch {
	case c.Default != "":
		return c.Default
	case !notNull && !c.AutoIncrement && c.Generated == nil:
		return "NULL"
	}
	return ""
}

// sameDefault compares two defaults: equal, or two numbers of one value
// (DECIMAL '0' prints as 0.0000, FLOAT '0.00' as 0).
func sameDefault(a, b string) bool {
	if a == b {
		return true
	}
	x, errx := strconv.ParseFloat(strings.Trim(a, "'"), 64)
	y, erry := strconv.ParseFloat(strings.Trim(b, "'"), 64)
	return errx == nil && erry == nil && x == y
}

func defaultWord(d string) string {
	if d == "" {
		return "no DEFAULT"
	}
	return "DEFAULT " + d
}

// typeWidth matches an integer (or YEAR) display width, e.g. "(11)".
var typeWidth = regexp.MustCompile(`^(TINYINT|SMALLINT|MEDIUMINT|INT|INTEGER|BIGINT|YEAR)\(\d+\)`)

// typeCharset matches the character set and collation a type may carry.
var typeCharset = regexp.MustCompile(` (CHARACTER SET|CHARSET|COLLATE) \S+`)

// normType makes two printings of one column type compare equal: no
// integer display width, character set or collation; MariaDB's JSON is a
// LONGTEXT.
func normType(t string, tidb bool) string {
	t = strings.ToUpper(strings.TrimSpace(t))
	t = typeCharset.ReplaceAllString(t, "")
	t = typeWidth.ReplaceAllString(t, "$1")
	t = strings.TrimPrefix(strings.Replace(t, "INTEGER", "INT", 1), "NATIONAL ")
	t = strings.TrimSuffix(t, " BINARY") // CHAR(n) BINARY: a binary collation, which is not compared
	switch {
	case t == "CHAR":
		t = "CHAR(1)"
	case !tidb && t == "JSON":
		t = "LONGTEXT"
	}
	return t
}

func keyCols(pk *script.PrimaryKey) string {
	if pk == nil {
		return ""
	}
	return partCols(pk.Parts)
}

func partCols(parts []script.IndexPart) string {
	var out []string
	for _, p := range parts {
		s := strings.ToLower(p.Column)
		if p.Column == "" {
			s = "(" + p.Expr + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func indexNamed(t *script.Table, name string) *script.Index {
	for i := range t.Indexes {
		if t.Indexes[i].Kind != "" && strings.EqualFold(t.Indexes[i].Name, name) {
			return &t.Indexes[i]
		}
	}
	return nil
}

// upStatements returns the statements between "-- +goose Up" and
// "-- +goose Down": each StatementBegin/End block, or the whole section
// when there is none.
func upStatements(text string) ([]string, error) {
	_, up, ok := strings.Cut(text, "-- +goose Up\n")
	if !ok {
		return nil, errors.New("no -- +goose Up")
	}
	up, _, _ = strings.Cut(up, "-- +goose Down")
	var out []string
	for {
		_, rest, ok := strings.Cut(up, "-- +goose StatementBegin\n")
		if !ok {
			break
		}
		stmt, after, _ := strings.Cut(rest, "-- +goose StatementEnd")
		out = append(out, strings.TrimSuffix(strings.TrimSpace(stmt), ";"))
		up = after
	}
	if len(out) == 0 {
		if s := strings.TrimSuffix(strings.TrimSpace(up), ";"); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// signBit is 1 for a signed column, whose sign bit AUTO_RANDOM leaves out.
func signBit(c *script.Column) int {
	if c.Unsigned {
		return 0
	}
	return 1
}
