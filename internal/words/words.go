// Package words holds the wording helpers every package's reports share,
// so that a sentence reads the same whichever package prints it.
package words

// Plural returns one when n is 1 and many otherwise: the wording of a
// count, e.g. Plural(n, "shard", "shards").
func Plural[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
