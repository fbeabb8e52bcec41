package tidb

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Choose returns the strategy StrategyAuto picks for t, and why:
//
//   - a column the input already made AUTO_RANDOM: auto-random;
//   - an input that already sets SHARD_ROW_ID_BITS: shard-rowid;
//   - a single-column BIGINT AUTO_INCREMENT primary key without a DEFAULT
//     that no generated column, CHECK, expression key or RANGE/LIST
//     partitioning reads: auto-random, AUTO_RANDOM taking the place of
//     AUTO_INCREMENT (the switch TiDB documents for moving off
//     AUTO_INCREMENT; inserts that leave the key out keep working). An
//     expression reading the key would see AUTO_RANDOM's values, which
//     carry random bits at the top (2^62 and more from the first insert),
//     and fail the insert: `k`*2 overflows, CHECK (`k` < 10000000) fails, a
//     RANGE partitioning has no partition for them;
//   - the same for an INT or MEDIUMINT AUTO_INCREMENT key: auto-random,
//     the key widened to BIGINT (AUTO_RANDOM needs it; Render widens the
//     FOREIGN KEY columns that point at it in a script too), unless
//     Options.NoWiden keeps it under shard-rowid, where its index keeps
//     the hotspot;
//   - anything else (no key, a composite or non-integer key, a TINYINT or
//     SMALLINT AUTO_INCREMENT key, a BIGINT key the application fills):
//     shard-rowid, which fits every table. rotated-int is never picked: it
//     needs the application to rotate its IDs.
func Choose(t *Table) (Strategy, string) {
	if c := autoRandomColumn(t); c != nil {
		return StrategyAutoRandom, fmt.Sprintf("%s is already AUTO_RANDOM", c.Name)
	}
	if t.ShardRowIDBits > 0 {
		return StrategyShardRowID, "the input already sets SHARD_ROW_ID_BITS"
	}
	pk := t.PrimaryKey
	switch {
	case pk == nil:
		return StrategyShardRowID, "no primary key"
	case len(pk.Parts) > 1:
		return StrategyShardRowID, fmt.Sprintf("%d-column primary key", len(pk.Parts))
	case pk.Parts[0].Column == "":
		return StrategyShardRowID, "primary key on an expression"
	}
	c := t.Column(pk.Parts[0].Column)
	var uses []computation
	if c != nil {
		uses = computationsOn(t, c.Name)
	}
	switch {
	case c == nil:
		return StrategyShardRowID, "primary key names no column"
	case !c.Integer:
		return StrategyShardRowID, fmt.Sprintf("%s key", typeWord(c.Type))
	case !c.BigInt && c.AutoIncrement && widenable(c) && !c.HasDefault && len(uses) == 0:
		return StrategyAutoRandom, fmt.Sprintf("%s AUTO_INCREMENT key: widened to BIGINT, AUTO_RANDOM replaces AUTO_INCREMENT (--no-widen keeps it %s, under shard-rowid)", typeWord(c.Type), typeWord(c.Type))
	case !c.BigInt && c.AutoIncrement:
		return StrategyShardRowID, fmt.Sprintf("%s AUTO_INCREMENT key (AUTO_RANDOM needs BIGINT)", typeWord(c.Type))
	case !c.BigInt:
		return StrategyShardRowID, fmt.Sprintf("%s key", typeWord(c.Type))
	case c.AutoIncrement && c.HasDefault:
		return StrategyShardRowID, "BIGINT AUTO_INCREMENT key with a DEFAULT (AUTO_RANDOM excludes DEFAULT)"
	case c.AutoIncrement && len(uses) > 0:
		return StrategyShardRowID, fmt.Sprintf("BIGINT AUTO_INCREMENT key read by %s: under AUTO_RANDOM (keys up to 2^63-1) an insert fails where %s", uses[0].what, uses[0].kind.fails)
	case c.AutoIncrement:
		return StrategyAutoRandom, "BIGINT AUTO_INCREMENT key: AUTO_RANDOM replaces AUTO_INCREMENT"
	}
	return StrategyShardRowID, "BIGINT key filled by the application (rotated-int fits if it rotates its IDs)"
}

// typeWord is the type's name without its length, e.g. VARCHAR.
func typeWord(typ string) string {
	w, _, _ := strings.Cut(strings.TrimPrefix(typ, "NATIONAL "), "(")
	w, _, _ = strings.Cut(w, " ")
	return w
}

// autoRandomColumn returns the input's AUTO_RANDOM column, or nil.
func autoRandomColumn(t *Table) *Column {
	for i := range t.Columns {
		if t.Columns[i].AutoRandom {
			return &t.Columns[i]
		}
	}
	return nil
}

// hotspots returns a warning for each index that still takes every insert
// at one end under strategy s, and for each that does within the values
// of its leading columns:
//
//   - an index led by a growing column (AUTO_INCREMENT, a time defaulting
//     to now) takes every insert in its last region; one led by a DATETIME
//     or TIMESTAMP the application fills does when that holds the time of
//     the write;
//   - a growing column after the first grows at one end within each value
//     of the columns before it (few values: few hot spots);
//   - under shard-rowid, a single-integer primary key the application
//     fills stays a NONCLUSTERED index: Snowflake IDs, segments and ticket
//     servers fill it with rising values.
//
// A clustered key is the table's rows themselves; under auto-random it no
// longer grows.
func hotspots(t *Table, s Strategy) []string {
	var out []string
	check := func(what string, parts []IndexPart) {
		for i, p := range parts {
			c := t.Column(p.Column)
			if p.Column == "" || c == nil || (c.AutoIncrement && s == StrategyAutoRandom) {
				continue
			}
			why := ""
			switch {
			case c.AutoIncrement:
				why = "is AUTO_INCREMENT"
			case c.Growing:
				why = "defaults to the current time"
			case i == 0 && isWriteTime(c):
				out = append(out, fmt.Sprintf("%s leads with %s, a %s the application fills: if it writes the time of the insert there, the index's last region takes every insert", what, c.Name, typeWord(strings.ToUpper(c.Type))))
				return
			default:
				continue
			}
			if i == 0 {
				out = append(out, fmt.Sprintf("%s leads with %s, which %s: the index's last region takes every insert", what, c.Name, why))
			} else {
				out = append(out, fmt.Sprintf("%s holds %s after %s: %s %s, so rows sharing the leading values are written at one end of the index (a hot spot per value)", what, c.Name, partNames(parts[:i]), c.Name, why))
			}
			return
		}
	}
	if pk := t.PrimaryKey; pk != nil && s == StrategyShardRowID {
		check("the NONCLUSTERED primary key", pk.Parts)
		if len(pk.Parts) == 1 {
			if c := t.Column(pk.Parts[0].Column); c != nil && c.Integer && !c.AutoIncrement && !c.AutoRandom && c.Generated == nil {
				hint := "auto-random or rotated-int keep a BIGINT key spread (--table NAME=…)"
				if !c.BigInt {
					hint = "a BIGINT key could take auto-random or rotated-int (--table NAME=…)"
				}
				out = append(out, fmt.Sprintf("the NONCLUSTERED primary key %s is filled by the application: if it fills it with rising values (Snowflake IDs, segments, a ticket server), the index's last region takes every insert; %s", c.Name, hint))
			}
		}
	}
	for _, ix := range t.Indexes {
		if ix.Kind == "" || ix.Kind == "FULLTEXT KEY" {
			continue
		}
		check("index "+cmp.Or(ix.Name, "(unnamed)"), ix.Parts)
	}
	return out
}

// isWriteTime reports a DATETIME or TIMESTAMP column without a DEFAULT of
// the current time: the application fills it, often with the time of the
// write.
func isWriteTime(c *Column) bool {
	switch typeWord(strings.ToUpper(c.Type)) {
	case "DATETIME", "TIMESTAMP":
		return !c.Growing
	}
	return false
}

// partNames lists the column names of key parts.
func partNames(parts []IndexPart) string {
	var names []string
	for _, p := range parts {
		names = append(names, cmp.Or(p.Column, "("+p.Expr+")"))
	}
	return strings.Join(names, ", ")
}

// exprKind is a kind of expression that TiDB evaluates on every insert.
type exprKind struct {
	// refused says what TiDB does with it when the column it reads is
	// AUTO_INCREMENT, "" when it takes it.
	refused string
	// remedy says what to do instead when refused.
	remedy string
	// fails says how an insert fails when the value read is too large for
	// the expression.
	fails string
}

// The kinds, as TiDB 8.5 treats them (checked by TestTiDBExpressionsOnTheKey
// and TestTiDBChecksOnTheKey).
var (
	generatedKind = &exprKind{"TiDB refuses (ERROR 3109, as MySQL does)", "compute it in a view or in the application", "its arithmetic overflows (ERROR 1690)"}
	checkKind     = &exprKind{"TiDB refuses (ERROR 3818, as MySQL does) when tidb_enable_check_constraint is ON, and ignores like every CHECK when it is OFF (the default)", "check it in the application", "the CHECK rejects it (ERROR 3819, when tidb_enable_check_constraint is ON)"}
	keyPartKind   = &exprKind{"TiDB refuses (ERROR 3754, as MySQL does)", "index a column the application fills", generatedKind.fails}
	partitionKind = &exprKind{"", "", "no partition takes it (ERROR 1526)"}
)

// computation is an expression of a table that reads a given column.
type computation struct {
	// what names it, e.g. "generated column c (`id`*2)".
	what string
	kind *exprKind
}

// computationsOn lists the expressions of t that read the named column:
// generated columns, CHECK constraints, expression key parts and RANGE or
// LIST partitioning. Each is evaluated on every insert, so it sees the
// key's values, however large.
func computationsOn(t *Table, name string) []computation {
	reads := func(cols []string) bool {
		return slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, name) })
	}
	var out []computation
	for _, c := range t.Columns {
		if g := c.Generated; g != nil && reads(g.Reads) {
			out = append(out, computation{fmt.Sprintf("generated column %s (%s)", c.Name, g.SQL), generatedKind})
		}
		for _, e := range c.Checks {
			if reads(e.Reads) {
				out = append(out, computation{fmt.Sprintf("CHECK (%s) of column %s", e.SQL, c.Name), checkKind})
			}
		}
	}
	for _, ix := range t.Indexes {
		if ix.Check != nil && reads(ix.Check.Reads) {
			out = append(out, computation{fmt.Sprintf("CHECK (%s)", ix.Check.SQL), checkKind})
		}
		for _, p := range ix.Parts {
			if reads(p.Reads) {
				out = append(out, computation{fmt.Sprintf("expression key %s (%s)", cmp.Or(ix.Name, "(unnamed)"), p.Expr), keyPartKind})
			}
		}
	}
	if p := t.RangePartition; p != nil && reads(p.Reads) {
		out = append(out, computation{fmt.Sprintf("RANGE/LIST partitioning by (%s)", p.SQL), partitionKind})
	}
	return out
}

// autoIncrementConflict returns an error wrapping ErrConflict when an
// expression reads an AUTO_INCREMENT column that strategy s keeps
// AUTO_INCREMENT: TiDB refuses such a CREATE TABLE. Only auto-random, which
// replaces AUTO_INCREMENT on the key, makes it one TiDB takes.
func autoIncrementConflict(t *Table, s Strategy) error {
	var key string
	if pk := t.PrimaryKey; pk != nil && len(pk.Parts) == 1 {
		key = pk.Parts[0].Column
	}
	for _, c := range t.Columns {
		if !c.AutoIncrement {
			continue
		}
		replaced := s == StrategyAutoRandom && strings.EqualFold(c.Name, key)
		for _, u := range computationsOn(t, c.Name) {
			if u.kind.refused == "" || replaced {
				continue
			}
			hint := ""
			if c.BigInt && strings.EqualFold(c.Name, key) {
				hint = "; or use --strategy auto-random if it holds for keys up to 2^63-1 (AUTO_RANDOM is no AUTO_INCREMENT)"
			}
			return fmt.Errorf("%w: %s reads AUTO_INCREMENT column %s, which %s: %s, or fill %s from the application%s",
				ErrConflict, u.what, c.Name, u.kind.refused, u.kind.remedy, c.Name, hint)
		}
	}
	return nil
}

// autoRandomWarnings warns of each expression that reads the AUTO_RANDOM
// key c: its values carry random shard bits at the top, so they reach
// 2^(R-1) (2^R unsigned) from the first insert, enough to overflow
// arithmetic (ERROR 1690), fail a CHECK or miss every partition. The
// expression may well be fine (a modulo, a string); that is for the user
// to judge, so it is a warning.
func autoRandomWarnings(t *Table, c *Column, rangeBits int) []string {
	top := rangeBits
	if !c.Unsigned {
		top--
	}
	var out []string
	for _, u := range computationsOn(t, c.Name) {
		out = append(out, fmt.Sprintf("%s reads %s, whose AUTO_RANDOM values run up to 2^%d-1 from the first insert (random shard bits at the top): an insert fails where %s", u.what, c.Name, top, u.kind.fails))
	}
	return out
}
