// Package rotate rewrites integer IDs by rotating their decimal digits, so
// that IDs made one after another land in many key ranges of a TiDB table
// instead of one.
//
// A Snowflake-style ID arrives in key order: its leading digits come from
// the clock and only the last few change from one ID to the next, so every
// insert goes to the last region of the table, one TiKV store takes all the
// writes and the others idle. Rotate moves the last k decimal digits to just
// after the leading digit:
//
//	k=1: 561632371728711681 → 5 1 6163237172871168   (last digit "1" moves to position 2)
//
// Consecutive IDs differ in their last digits, so after rotation they fall in
// 10^k key ranges (10 for k=1, 100 for k=2, 1000 for k=3), each still
// growing in order inside itself. The table keeps its integer clustered
// primary key; pick k so that 10^k is close to the number of TiKV stores.
//
// Rotate and Unrotate are pure integer arithmetic: no strings, no
// allocations. They keep the number of decimal digits, because the leading
// digit stays in place; a moved block that begins with zero lands behind it
// (…80 → x0…) and never becomes a leading zero. IDs with fewer than k+2
// digits have nothing to move past and are returned unchanged.
//
// RotateUnsigned and UnrotateUnsigned do the same for BIGINT UNSIGNED keys
// and take every uint64, 0 to math.MaxUint64. A 20-digit ID whose rotated
// form would pass math.MaxUint64 (about 15% of them; for k=1, every one
// ending in 9 and some ending in 8) is rotated again, by k digits more
// each time, until it fits (cycle walking, at most 19 steps): a bijection
// of the 20-digit uint64s onto themselves, equal to the digit rotation
// wherever that fits, undone exactly by UnrotateUnsigned. Rotate, for int64 keys, still
// refuses a 19-digit ID whose rotation would pass math.MaxInt64
// (ErrOverflow).
package rotate
