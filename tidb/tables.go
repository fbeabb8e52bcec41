package tidb

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shardid/shardid/tidb/script"
)

// ErrTableSpec is returned by ParseTableSpec, ParseTableSpecs and
// RenderScript for a per-table option that is malformed, names no table
// of the scripts, or steers a table another option steers too.
var ErrTableSpec = errors.New("invalid per-table option")

// TableSpec steers one table: its strategy and numbers, in place of the
// options every other table gets. It is written NAME=STRATEGY[,KEY=VALUE…]
// (shardid tidb render --table, or a line of --tables FILE), e.g.
// "xxl_job_log=shard-rowid" or "sys_config=shard-rowid,pre-split=none".
type TableSpec struct {
	// Name is the table, as the script names it (schema.name when it
	// qualifies it); matched without regard to case.
	Name string
	// Options are the strategy ("" keeps the one given for every table)
	// and the numbers this spec sets (zero: not set).
	Options Options
	// Source says where the spec came from, for messages: "--table" or
	// "FILE:LINE".
	Source string

	rangeSet bool // Options.RangeBits was given
}

// tableSpecKeys are the KEY=VALUE options a TableSpec takes.
const tableSpecKeys = "shard-bits, pre-split (N or none), range, digits, id-digits, lead, rows"

// ParseTableSpec reads NAME=STRATEGY[,KEY=VALUE…], where KEY is one of
// shard-bits, pre-split (a number or none), range, digits, id-digits,
// lead and rows (the rows the table is expected to reach, for the
// --min-split rule). It returns errors wrapping ErrTableSpec.
func ParseTableSpec(s string) (TableSpec, error) {
	name, rest, ok := strings.Cut(strings.TrimSpace(s), "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return TableSpec{}, fmt.Errorf("%w %q: want NAME=STRATEGY[,KEY=VALUE…] (e.g. orders=shard-rowid,pre-split=none)", ErrTableSpec, s)
	}
	for _, part := range strings.Split(name, ".") {
		if err := script.CheckIdent("table", strings.Trim(part, "`")); err != nil {
			return TableSpec{}, fmt.Errorf("%w %q: %v", ErrTableSpec, s, err)
		}
	}
	spec := TableSpec{Name: strings.ReplaceAll(name, "`", "")}
	fields := strings.Split(rest, ",")
	strategy := strings.TrimSpace(fields[0])
	if strategy != "" {
		st, err := ParseStrategy(strategy)
		if err != nil {
			return TableSpec{}, fmt.Errorf("%w %q: %v", ErrTableSpec, s, err)
		}
		spec.Options.Strategy = st
	}
	o := &spec.Options
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return TableSpec{}, fmt.Errorf("%w %q: %q is not KEY=VALUE (keys: %s)", ErrTableSpec, s, f, tableSpecKeys)
		}
		if !slices.Contains(strings.Split(tableSpecKeys, ", "), k) && k != "pre-split" {
			return TableSpec{}, fmt.Errorf("%w %q: unknown key %q (keys: %s)", ErrTableSpec, s, k, tableSpecKeys)
		}
		if k == "pre-split" && v == "none" {
			o.NoPreSplit, o.splitAsked = true, true
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return TableSpec{}, fmt.Errorf("%w %q: %s=%s is not a number of 1 or more", ErrTableSpec, s, k, v)
		}
		small := int(min(n, 1<<20))
		switch k {
		case "shard-bits":
			o.ShardBits = small
		case "pre-split":
			o.PreSplit, o.splitAsked = small, true
		case "range":
			o.RangeBits, spec.rangeSet = small, true
		case "digits":
			o.Digits = small
		case "id-digits":
			o.IDDigits = small
		case "lead":
			o.Lead = small
		case "rows":
			o.Rows = n
		default:
			return TableSpec{}, fmt.Errorf("%w %q: unknown key %q (keys: %s)", ErrTableSpec, s, k, tableSpecKeys)
		}
	}
	check := spec.Options
	if check.Strategy == "" {
		check.Strategy = StrategyAuto
	}
	if err := check.Validate(); err != nil {
		return TableSpec{}, fmt.Errorf("%w %q: %v", ErrTableSpec, s, err)
	}
	return spec, nil
}

// ParseTableSpecs reads a --tables file: one TableSpec a line; blank lines
// and lines starting with # are skipped, and so is text after a # that
// follows a space. name is the file's name for messages. It returns errors
// wrapping ErrTableSpec that name the line.
func ParseTableSpecs(name, text string) ([]TableSpec, error) {
	var out []TableSpec
	for i, line := range strings.Split(strings.TrimPrefix(text, "\uFEFF"), "\n") {
		if c := strings.Index(line, " #"); c >= 0 {
			line = line[:c]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		spec, err := ParseTableSpec(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		spec.Source = fmt.Sprintf("%s:%d", name, i+1)
		out = append(out, spec)
	}
	return out, nil
}

// apply returns o steered by the spec: its strategy in place of o's (the
// numbers of o that do not belong to it dropped, as auto does), then the
// numbers the spec sets. The result is validated.
func (s TableSpec) apply(o Options) (Options, error) {
	t := s.Options
	if t.Strategy != "" && t.Strategy != o.Strategy {
		o.Strategy = t.Strategy
		switch t.Strategy {
		case StrategyShardRowID:
			o.RangeBits, o.Digits, o.IDDigits, o.Lead = 0, 0, 0, 0
		case StrategyAutoRandom:
			o.Digits, o.IDDigits, o.Lead = 0, 0, 0
		case StrategyRotatedInt:
			o.ShardBits, o.PreSplit, o.NoPreSplit, o.RangeBits = 0, 0, false, 0
		}
	}
	if t.ShardBits != 0 {
		o.ShardBits = t.ShardBits
	}
	if t.splitAsked {
		o.PreSplit, o.NoPreSplit, o.splitAsked = t.PreSplit, t.NoPreSplit, true
	}
	if s.rangeSet {
		o.RangeBits = t.RangeBits
	}
	if t.Digits != 0 {
		o.Digits = t.Digits
	}
	if t.IDDigits != 0 {
		o.IDDigits = t.IDDigits
	}
	if t.Lead != 0 {
		o.Lead = t.Lead
	}
	if t.Rows != 0 {
		o.Rows = t.Rows
	}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("%w %s: %v", ErrTableSpec, s.Name, err)
	}
	return o, nil
}

// matches reports whether the spec names t: its qualified name, or its
// bare name when the spec gives no schema.
func (s TableSpec) matches(t *Table) bool {
	if strings.Contains(s.Name, ".") {
		return strings.EqualFold(s.Name, t.QualifiedName())
	}
	return strings.EqualFold(s.Name, t.Name)
}
