package tidb

import (
	"fmt"
	"strconv"

	"github.com/shardid/shardid/tidb/script"
)

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
	o, reason, err := resolve(t, o, true)
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
		if pk != nil && pk.Clustering == script.ClusteringClustered {
			return nil, fmt.Errorf("render alter %s: %w: SHARD_ROW_ID_BITS needs a NONCLUSTERED key and TiDB cannot uncluster a primary key in place: %s", t.Name, ErrAlterNotAllowed, recreate)
		}
		if pk != nil && pk.Clustering == script.ClusteringDefault {
			return nil, fmt.Errorf("render alter %s: %w: the input does not say whether the primary key is clustered (TiDB clusters it by default); give the table's SHOW CREATE TABLE output, which does", t.Name, ErrAlterNotAllowed)
		}
		if t.ShardRowIDBits > o.ShardBits {
			return nil, fmt.Errorf("render alter %s: %w: lowering SHARD_ROW_ID_BITS from %d to %d (rows already written keep their shard bits; use at least %d)", t.Name, ErrShardBits, t.ShardRowIDBits, o.ShardBits, t.ShardRowIDBits)
		}
		s, err := execute("alter_table.sql.tmpl", alterView{T: t, ShardRowIDBits: o.ShardBits})
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		d.Statements = append(d.Statements, Statement{Kind: script.KindAlter, SQL: s, TiDBOnly: true})
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
		case pk.Clustering != script.ClusteringClustered:
			return nil, fmt.Errorf("render alter %s: %w: AUTO_RANDOM needs a clustered key and the input's key is not declared CLUSTERED (TiDB cannot cluster a key in place; if SHOW CREATE TABLE says CLUSTERED, give that output): %s", t.Name, ErrAlterNotAllowed, recreate)
		case c.AutoRandom:
			return nil, fmt.Errorf("render alter %s: %w: column %s is already AUTO_RANDOM and TiDB does not change AUTO_RANDOM in place: %s", t.Name, ErrAlterNotAllowed, c.Name, recreate)
		case !c.AutoIncrement:
			return nil, fmt.Errorf("render alter %s: %w: TiDB adds AUTO_RANDOM to an existing column only in place of AUTO_INCREMENT, and %s is not AUTO_INCREMENT: %s", t.Name, ErrAlterNotAllowed, c.Name, recreate)
		case c.HasDefault:
			return nil, fmt.Errorf("render alter %s: %w: column %s has a DEFAULT, which AUTO_RANDOM excludes", t.Name, ErrConflict, c.Name)
		case t.ShardRowIDBits > 0:
			return nil, fmt.Errorf("render alter %s: %w: the table has SHARD_ROW_ID_BITS, which AUTO_RANDOM excludes", t.Name, ErrConflict)
		case o.RangeBits != TiDBRangeBits:
			return nil, fmt.Errorf("render alter %s: %w: TiDB does not change the range bits of an existing column (it has %d); leave --range out, or %s", t.Name, ErrRangeBits, TiDBRangeBits, recreate)
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
		d.Statements = append(d.Statements, Statement{Kind: script.KindSession, SQL: set, TiDBOnly: true}, Statement{Kind: script.KindAlter, SQL: s, TiDBOnly: true})
		d.Costs = append(d.Costs, orderCost(c.Name, "AUTO_RANDOM puts random shard bits above the increment"),
			fmt.Sprintf("%s reaches 2^%d: past 2^53 a JavaScript number (a browser, JSON.parse) rounds it; TiDB changes no range in place (a new table with --range %d keeps values exact)", c.Name, TiDBRangeBits-1+boolInt(c.Unsigned), jsSafeRange(c)))
		if o.PreSplit > o.ShardBits {
			return nil, fmt.Errorf("render alter %s: %w: PRE_SPLIT_REGIONS=%d above AUTO_RANDOM's %d shard bits (allowed: 1–%d)", t.Name, ErrPreSplit, o.PreSplit, o.ShardBits, o.ShardBits)
		}
		if o = splitRule(t, o, func(f string, a ...any) { d.Notes = append(d.Notes, fmt.Sprintf(f, a...)) }); !o.NoPreSplit {
			sp, err := renderSplit(t, ShardRowIDSplitPoints(o.PreSplit)) // range 64: the shard bits sit under the sign bit, as _tidb_rowid's
			if err != nil {
				return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
			}
			d.Statements = append(d.Statements, sp)
		}
		d.Options = o
	case StrategyRotatedInt:
		c, err := keyColumn(t, o.Strategy)
		if err != nil {
			return nil, fmt.Errorf("render alter %s: %w", t.Name, err)
		}
		if pk.Clustering != script.ClusteringClustered {
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
	return Statement{Kind: script.KindSplit, SQL: s, TiDBOnly: true}, nil
}
