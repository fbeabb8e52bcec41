package tidb

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
)

// Strategy names a way to keep a table's inserts off a single region.
type Strategy string

const (
	// StrategyAuto picks one of the others for each table (see Choose):
	// auto-random for a single BIGINT AUTO_INCREMENT (or AUTO_RANDOM) key
	// that no expression of the table reads, shard-rowid for every other
	// table. It is the default.
	StrategyAuto Strategy = "auto"
	// StrategyShardRowID keys rows by TiDB's hidden _tidb_rowid, scattered
	// by SHARD_ROW_ID_BITS and pre-split by PRE_SPLIT_REGIONS; the primary
	// key (any type, or none) becomes NONCLUSTERED. The measured choice for
	// keys that are not integers: SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4.
	StrategyShardRowID Strategy = "shard-rowid"
	// StrategyAutoRandom makes a single BIGINT primary key clustered and
	// AUTO_RANDOM(S[,R]): TiDB puts S random shard bits under the sign bit.
	// An AUTO_INCREMENT on the key is replaced, as TiDB documents for
	// moving from AUTO_INCREMENT.
	StrategyAutoRandom Strategy = "auto-random"
	// StrategyRotatedInt keeps a clustered BIGINT primary key whose values
	// the application rotates (the last k decimal digits moved behind the
	// first, see tidb/rotate), and pre-splits the table where the rotated
	// digits change.
	StrategyRotatedInt Strategy = "rotated-int"
)

// Strategies lists the strategies, default first.
func Strategies() []Strategy {
	return []Strategy{StrategyAuto, StrategyShardRowID, StrategyAutoRandom, StrategyRotatedInt}
}

// ParseStrategy returns the strategy with that name ("" means
// StrategyAuto), or an error wrapping ErrInvalidStrategy.
func ParseStrategy(s string) (Strategy, error) {
	if s == "" {
		return StrategyAuto, nil
	}
	for _, st := range Strategies() {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("%w %q (allowed: auto, shard-rowid, auto-random, rotated-int)", ErrInvalidStrategy, s)
}

// Limits TiDB puts on the options, from TiDB's source (v8.5):
//   - SHARD_ROW_ID_BITS: pkg/ddl clamps values above 15
//     (shardRowIDBitsMax) without an error, and keeps PRE_SPLIT_REGIONS at
//     most SHARD_ROW_ID_BITS, again silently; this package refuses both.
//   - AUTO_RANDOM(S, R): pkg/meta/autoid has AutoRandomShardBitsMax = 15,
//     AutoRandomRangeBitsMin = 32, AutoRandomRangeBitsMax = 64 and
//     AutoRandomIncBitsMin = 27: the bits left for the increment, R - S
//     minus the sign bit of a signed column (autoid.NewShardIDFormat),
//     must be at least 27, else "auto_random ID space is too small".
//   - ALTER … MODIFY to AUTO_RANDOM: pkg/ddl (checkAndApplyAutoRandomBits)
//     refuses to change the range bits ("alter the range bits of
//     auto_random column is not supported"); a column that had none has
//     the default 64.
const (
	// MaxShardBits is the largest SHARD_ROW_ID_BITS and AUTO_RANDOM shard
	// bit count.
	MaxShardBits = 15
	// MinRangeBits and MaxRangeBits bound AUTO_RANDOM's range bits.
	MinRangeBits, MaxRangeBits = 32, 64
	// MinIncrementBits is the fewest bits TiDB leaves for AUTO_RANDOM's
	// increment: range bits minus shard bits minus the sign bit of a
	// signed column.
	MinIncrementBits = 27
	// JSSafeRangeBits keeps AUTO_RANDOM values of a signed BIGINT below
	// 2^53, the largest integer a JavaScript number holds exactly (one of
	// the 54 bits is the sign bit, always 0); JSSafeUnsignedRangeBits does
	// for a BIGINT UNSIGNED key.
	JSSafeRangeBits, JSSafeUnsignedRangeBits = 54, 53
	// MaxRotateDigits is the largest number of rotated digits: 10^3 key
	// ranges already wrote slower than 10 in the measurement this project
	// starts from.
	MaxRotateDigits = 3
)

// Defaults the zero values of Options stand for.
const (
	// DefaultShardRowIDBits is the measured SHARD_ROW_ID_BITS (16 shards).
	DefaultShardRowIDBits = 4
	// DefaultAutoRandomBits is TiDB's own AUTO_RANDOM default (32 shards).
	DefaultAutoRandomBits = 5
	// DefaultRangeBits is the range a new AUTO_RANDOM key gets: 54, so its
	// values stay below 2^53 and a JavaScript number (a browser, JSON.parse)
	// reads them exactly; 53 for a BIGINT UNSIGNED key.
	DefaultRangeBits = JSSafeRangeBits
	// TiDBRangeBits is the range TiDB gives AUTO_RANDOM(S) written without
	// one, and the only one ALTER … MODIFY … AUTO_RANDOM takes.
	TiDBRangeBits = 64
	// DefaultAutoRandomPreSplit is PRE_SPLIT_REGIONS for an AUTO_RANDOM
	// table (at most its shard bits): 16 regions, as shard-rowid's default.
	DefaultAutoRandomPreSplit = 4
	// DefaultMinSplit is the fewest rows a table must be able to hold to be
	// pre-split: about a region's worth. A key of TINYINT or SMALLINT
	// (at most 65,535 values) keeps its table below it.
	DefaultMinSplit = 1_000_000
	// DefaultRotateDigits is the measured winner: one rotated digit, ten
	// key ranges.
	DefaultRotateDigits = 1
	// DefaultIDDigits is the decimal length of a Snowflake-style ID today.
	DefaultIDDigits = 19
)

// Options chooses a strategy and its numbers. Every zero value means the
// documented default, never "none": the zero Options picks a strategy per
// table (StrategyAuto) with the measured numbers. A field that does not
// belong to the chosen strategy must stay zero.
type Options struct {
	// Strategy; "" means StrategyAuto.
	Strategy Strategy
	// ShardBits is SHARD_ROW_ID_BITS (shard-rowid) or AUTO_RANDOM's S
	// (auto-random), 1–15; auto applies it to whichever it picks. Zero
	// means DefaultShardRowIDBits (4) or DefaultAutoRandomBits (5), or,
	// for a column the input already made AUTO_RANDOM(S), the input's S.
	ShardBits int
	// PreSplit is PRE_SPLIT_REGIONS (shard-rowid and auto-random),
	// 1–ShardBits: TiDB splits the new table into 2^PreSplit regions. Zero
	// means ShardBits for shard-rowid, DefaultAutoRandomPreSplit (at most
	// ShardBits) for auto-random; either only for a table that can reach
	// MinSplit rows.
	PreSplit int
	// NoPreSplit leaves PRE_SPLIT_REGIONS out (shard-rowid, auto-random);
	// PreSplit must then be zero.
	NoPreSplit bool
	// MinSplit is the fewest rows a table must be able to hold to be
	// pre-split when PreSplit is zero: a key whose integer type holds
	// fewer values (TINYINT, SMALLINT) caps it, and Rows says it for one
	// table. Zero means DefaultMinSplit; 1 pre-splits every table.
	MinSplit int64
	// Rows is how many rows the table is expected to reach (a per-table
	// option, TableSpec); zero means unknown, which the MinSplit rule
	// takes as enough.
	Rows int64
	// RangeBits is AUTO_RANDOM's R (auto-random), 32–64, leaving at least
	// MinIncrementBits for the increment. Zero means DefaultRangeBits (54,
	// or 53 for a BIGINT UNSIGNED key: JavaScript-safe) for a new
	// AUTO_RANDOM key, the input's own R for a key already AUTO_RANDOM
	// (TiDBRangeBits when it gave none), and TiDBRangeBits for RenderAlter.
	RangeBits int
	// Digits is k, the number of rotated digits (rotated-int), 1–3; the
	// table is split into 10^k key ranges per leading digit. Zero means 1.
	Digits int
	// IDDigits is D, the decimal length of the IDs (rotated-int), k+1–19
	// (20 for UNSIGNED). Zero means 19.
	IDDigits int
	// Lead is the leading decimal digit of the IDs (rotated-int), 1–9. Zero
	// splits for every leading digit 1–9 (9·10^k ranges).
	Lead int
	// Target is the server the text is for; "" means TargetTiDB.
	Target Target
	// NoWiden keeps an INT or MEDIUMINT AUTO_INCREMENT key INT: auto
	// then renders it shard-rowid (its index keeps the hotspot), and
	// auto-random refuses it. By default such a key is widened to BIGINT
	// for AUTO_RANDOM, with the FOREIGN KEY columns that point at it.
	NoWiden bool
	// Tables steer single tables of a script (RenderScript); each must
	// name a table of the script, and the fields above apply to every
	// table none names. Render and RenderAlter take the one that names
	// their table, if any.
	Tables []TableSpec
	// Alter renders ALTER TABLE for existing tables (RenderAlter; the
	// input is their SHOW CREATE TABLE output) instead of CREATE TABLE
	// (RenderScript); the scripts' other statements are then left out,
	// and noted.
	Alter bool

	// splitAsked marks a PreSplit or NoPreSplit the user gave for this
	// table (TableSpec): the MinSplit rule does not override it.
	splitAsked bool
	// widen names the columns RenderScript widens to BIGINT because a
	// FOREIGN KEY points from them at a widened key (lower-case name →
	// why).
	widen map[string]string
	// dataKeys are the keys the script's data gives the table's
	// AUTO_INCREMENT column (RenderScript), the keys RenderScript gives
	// the rows that leave it out counted as one past the largest.
	dataKeys []uint64
}

// Sentinel errors returned by Options.Validate, Render and RenderAlter.
var (
	// ErrInvalidStrategy is returned by ParseStrategy and Options.Validate
	// for an unknown strategy.
	ErrInvalidStrategy = errors.New("invalid strategy")
	// ErrShardBits is returned by Options.Validate when SHARD_ROW_ID_BITS or
	// AUTO_RANDOM's shard bits are outside 1–15.
	ErrShardBits = errors.New("shard bits out of range")
	// ErrPreSplit is returned by Options.Validate when PRE_SPLIT_REGIONS is
	// negative, above SHARD_ROW_ID_BITS, or set beside NoPreSplit.
	ErrPreSplit = errors.New("PRE_SPLIT_REGIONS out of range")
	// ErrRangeBits is returned by Options.Validate, Render and RenderAlter
	// when AUTO_RANDOM's range bits are outside 32–64, leave fewer than
	// MinIncrementBits for the increment, or (RenderAlter) differ from the
	// 64 an existing column has.
	ErrRangeBits = errors.New("AUTO_RANDOM range bits out of range")
	// ErrDigits is returned by Options.Validate and Render when the rotated
	// digit count, the ID length or the leading digit is out of range.
	ErrDigits = errors.New("rotated digits out of range")
	// ErrOptionNotApplicable is returned by Options.Validate when a field
	// of another strategy is set.
	ErrOptionNotApplicable = errors.New("option does not apply to the strategy")
	// ErrKey is returned by Render and RenderAlter when the table's primary
	// key does not suit the strategy: auto-random and rotated-int need a
	// single BIGINT column key.
	ErrKey = errors.New("primary key does not suit the strategy")
	// ErrConflict is returned by Render and RenderAlter when the input
	// carries something the strategy cannot coexist with: AUTO_RANDOM next
	// to a DEFAULT or SHARD_ROW_ID_BITS; SHARD_ROW_ID_BITS on a clustered
	// key; AUTO_RANDOM on a nonclustered key; a generated column, CHECK or
	// expression key reading a column the strategy keeps AUTO_INCREMENT
	// (TiDB refuses that table).
	ErrConflict = errors.New("conflicting table options")
	// ErrAlterNotAllowed is returned by RenderAlter when TiDB cannot make
	// the change on an existing table; the message says what to do instead.
	ErrAlterNotAllowed = errors.New("TiDB cannot alter the existing table this way")
)

// withDefaults returns o, for a strategy other than auto, with zero fields
// replaced by their defaults; a column already AUTO_RANDOM in the input
// (ar, may be nil) lends its own bits, and an UNSIGNED key (key, may be
// nil) gets the unsigned JavaScript-safe range.
func (o Options) withDefaults(ar, key *Column) Options {
	if o.Target == "" {
		o.Target = TargetTiDB
	}
	if o.MinSplit == 0 {
		o.MinSplit = DefaultMinSplit
	}
	switch o.Strategy {
	case StrategyShardRowID:
		if o.ShardBits == 0 {
			o.ShardBits = DefaultShardRowIDBits
		}
		if o.PreSplit == 0 && !o.NoPreSplit {
			o.PreSplit = o.ShardBits
		}
	case StrategyAutoRandom:
		if o.ShardBits == 0 && ar != nil {
			o.ShardBits = ar.AutoRandomShardBits
		}
		if o.RangeBits == 0 && ar != nil {
			o.RangeBits = cmp.Or(ar.AutoRandomRangeBits, TiDBRangeBits)
		}
		if o.ShardBits == 0 {
			o.ShardBits = DefaultAutoRandomBits
		}
		if o.RangeBits == 0 {
			o.RangeBits = DefaultRangeBits
			if key != nil && key.Unsigned {
				o.RangeBits = JSSafeUnsignedRangeBits
			}
		}
		if o.PreSplit == 0 && !o.NoPreSplit {
			o.PreSplit = min(DefaultAutoRandomPreSplit, o.ShardBits)
		}
	case StrategyRotatedInt:
		if o.Digits == 0 {
			o.Digits = DefaultRotateDigits
		}
		if o.IDDigits == 0 {
			o.IDDigits = DefaultIDDigits
		}
	}
	return o
}

// Validate checks the options on their own (Render also checks them
// against the table). It returns errors wrapping ErrInvalidStrategy,
// ErrInvalidTarget,
// ErrShardBits, ErrPreSplit, ErrRangeBits, ErrDigits and
// ErrOptionNotApplicable.
func (o Options) Validate() error {
	s, err := ParseStrategy(string(o.Strategy))
	if err != nil {
		return err
	}
	var foreign []string
	set := func(name string, v int) {
		if v != 0 {
			foreign = append(foreign, name)
		}
	}
	noPreSplit := 0
	if o.NoPreSplit {
		noPreSplit = 1
	}
	switch s {
	case StrategyAuto:
		set("rotated digits", o.Digits)
		set("ID digits", o.IDDigits)
		set("leading digit", o.Lead)
	case StrategyShardRowID:
		set("range bits", o.RangeBits)
		set("rotated digits", o.Digits)
		set("ID digits", o.IDDigits)
		set("leading digit", o.Lead)
	case StrategyAutoRandom:
		set("rotated digits", o.Digits)
		set("ID digits", o.IDDigits)
		set("leading digit", o.Lead)
	case StrategyRotatedInt:
		set("shard bits", o.ShardBits)
		set("pre-split", o.PreSplit+noPreSplit)
		set("range bits", o.RangeBits)
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%w: %s cannot take %s", ErrOptionNotApplicable, s, strings.Join(foreign, ", "))
	}
	if _, err := ParseTarget(string(o.Target)); err != nil {
		return err
	}
	if o.MinSplit < 0 {
		return fmt.Errorf("%w: --min-split %d (allowed: 1 or more rows; 0 means %d)", ErrPreSplit, o.MinSplit, DefaultMinSplit)
	}
	if o.Rows < 0 {
		return fmt.Errorf("%w: rows=%d (allowed: 1 or more; 0 means unknown)", ErrPreSplit, o.Rows)
	}
	if o.ShardBits < 0 || o.ShardBits > MaxShardBits {
		return fmt.Errorf("%w: %d (allowed: 1–%d; 0 means the default)", ErrShardBits, o.ShardBits, MaxShardBits)
	}
	shard := o.ShardBits
	if shard == 0 {
		shard = DefaultShardRowIDBits
		if s == StrategyAutoRandom {
			shard = DefaultAutoRandomBits
		}
	}
	switch {
	case o.PreSplit < 0:
		return fmt.Errorf("%w: PRE_SPLIT_REGIONS=%d (allowed: 1–%d, at most SHARD_ROW_ID_BITS; 0 means SHARD_ROW_ID_BITS; NoPreSplit for none)", ErrPreSplit, o.PreSplit, shard)
	case o.PreSplit > shard:
		return fmt.Errorf("%w: PRE_SPLIT_REGIONS=%d above SHARD_ROW_ID_BITS=%d (TiDB would silently lower it; allowed: 1–%d)", ErrPreSplit, o.PreSplit, shard, shard)
	case o.PreSplit > 0 && o.NoPreSplit:
		return fmt.Errorf("%w: PRE_SPLIT_REGIONS=%d and no pre-split both asked for", ErrPreSplit, o.PreSplit)
	}
	if o.RangeBits != 0 {
		if o.RangeBits < MinRangeBits || o.RangeBits > MaxRangeBits {
			return fmt.Errorf("%w: %d (allowed: %d–%d; 0 means %d, JavaScript-safe)", ErrRangeBits, o.RangeBits, MinRangeBits, MaxRangeBits, DefaultRangeBits)
		}
		bits := o.ShardBits
		if bits == 0 {
			bits = DefaultAutoRandomBits
		}
		if err := checkIncrementBits(bits, o.RangeBits, false); err != nil { // Render checks the sign bit
			return err
		}
	}
	if s == StrategyRotatedInt {
		d := o.withDefaults(nil, nil)
		if d.Digits < 1 || d.Digits > MaxRotateDigits {
			return fmt.Errorf("%w: %d rotated digits (allowed: 1–%d)", ErrDigits, d.Digits, MaxRotateDigits)
		}
		if d.IDDigits <= d.Digits || d.IDDigits > 20 {
			return fmt.Errorf("%w: IDs of %d digits with %d rotated (allowed: %d–20 digits)", ErrDigits, d.IDDigits, d.Digits, d.Digits+1)
		}
		if d.Lead < 0 || d.Lead > 9 {
			return fmt.Errorf("%w: leading digit %d (allowed: 1–9, or 0 for all)", ErrDigits, d.Lead)
		}
	}
	return nil
}

// checkIncrementBits applies TiDB's AutoRandomIncBitsMin rule: range bits
// minus shard bits minus the sign bit (signed columns) must leave 27.
func checkIncrementBits(shard, rangeBits int, signed bool) error {
	inc := rangeBits - shard
	sign := ""
	if signed {
		inc--
		sign = " minus the sign bit"
	}
	if inc < MinIncrementBits {
		return fmt.Errorf("%w: AUTO_RANDOM(%d, %d) leaves %d increment bits (range%s minus shard bits; TiDB needs at least %d: use a range of at least %d or fewer shard bits)",
			ErrRangeBits, shard, rangeBits, inc, sign, MinIncrementBits, MinIncrementBits+shard+(rangeBits-shard-inc))
	}
	return nil
}
