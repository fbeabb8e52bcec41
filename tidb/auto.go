package tidb

import (
	"fmt"
	"strings"
)

// Choose returns the strategy StrategyAuto picks for t, and why:
//
//   - a column the input already made AUTO_RANDOM: auto-random;
//   - an input that already sets SHARD_ROW_ID_BITS: shard-rowid;
//   - a single-column BIGINT AUTO_INCREMENT primary key without a DEFAULT:
//     auto-random, AUTO_RANDOM taking the place of AUTO_INCREMENT (the
//     switch TiDB documents for moving off AUTO_INCREMENT; inserts that
//     leave the key out keep working);
//   - anything else (no key, a composite or non-integer key, an INT
//     AUTO_INCREMENT key, a BIGINT key the application fills):
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
	switch {
	case c == nil:
		return StrategyShardRowID, "primary key names no column"
	case !c.Integer:
		return StrategyShardRowID, fmt.Sprintf("%s key", typeWord(c.Type))
	case !c.BigInt && c.AutoIncrement:
		return StrategyShardRowID, fmt.Sprintf("%s AUTO_INCREMENT key (AUTO_RANDOM needs BIGINT)", typeWord(c.Type))
	case !c.BigInt:
		return StrategyShardRowID, fmt.Sprintf("%s key", typeWord(c.Type))
	case c.AutoIncrement && c.HasDefault:
		return StrategyShardRowID, "BIGINT AUTO_INCREMENT key with a DEFAULT (AUTO_RANDOM excludes DEFAULT)"
	case c.AutoIncrement:
		return StrategyAutoRandom, "BIGINT AUTO_INCREMENT key: AUTO_RANDOM replaces AUTO_INCREMENT"
	}
	return StrategyShardRowID, "BIGINT key filled by the application (rotated-int fits if it rotates its IDs)"
}

// typeWord is the type's name without its length, e.g. VARCHAR.
func typeWord(typ string) string {
	w, _, _ := strings.Cut(typ, "(")
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
// at one end under strategy s: one whose leading column grows
// (AUTO_INCREMENT, a time defaulting to now). A clustered key is the
// table's rows themselves; under auto-random it no longer grows.
func hotspots(t *Table, s Strategy) []string {
	var out []string
	check := func(what string, parts []IndexPart) {
		if len(parts) == 0 || parts[0].Column == "" {
			return
		}
		c := t.Column(parts[0].Column)
		if c == nil || !c.Growing || (c.AutoIncrement && s == StrategyAutoRandom) {
			return
		}
		why := "is AUTO_INCREMENT"
		if !c.AutoIncrement {
			why = "defaults to the current time"
		}
		out = append(out, fmt.Sprintf("%s leads with %s, which %s: the index's last region takes every insert", what, c.Name, why))
	}
	if pk := t.PrimaryKey; pk != nil && s == StrategyShardRowID {
		check("the NONCLUSTERED primary key", pk.Parts)
	}
	for _, ix := range t.Indexes {
		if ix.Kind == "" {
			continue
		}
		name := ix.Name
		if name == "" {
			name = "(unnamed)"
		}
		check("index "+name, ix.Parts)
	}
	return out
}
