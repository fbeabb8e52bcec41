// Package spread measures how a stream of primary keys spreads its writes
// over TiKV regions.
//
// It feeds keys from a Source (raw Snowflake IDs made by shardid.Generator on a
// simulated clock, the same IDs digit-rotated by k = 1, 2 or 3, or random
// shard bits in the top S bits as SHARD_ROW_ID_BITS and AUTO_RANDOM place
// them) into a key space that starts as one region and splits the way TiKV
// splits it: a region that passes SplitRows rows splits at its median key.
// For each window of writes it reports how many regions took writes and the
// hottest region's share, attributing every write to the regions as they
// stood when the window began (a split takes effect for the next window, as
// it would for PD's scheduling).
//
// Runs are deterministic: the clock is simulated and the random shard bits
// come from a seeded generator.
//
// The result the digit-rotation article measured on a real cluster shows up
// as numbers: raw Snowflake IDs put every write of a window into one region;
// rotating the last k digits spreads them over about 10^k regions; S shard
// bits spread them over 2^S.
package spread
