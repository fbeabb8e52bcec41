package words

// Nearest returns the one of names that name most likely misspells
// (shard for shards, ldsn for dsn): the one fewest single-letter edits
// away, at most two (one for names of up to four letters), or "" when
// none is that close, two are equally close, or name is too short to
// tell (k). A name equal to one of names is that name.
func Nearest(name string, names []string) string {
	if len(name) < 3 {
		return ""
	}
	limit := 2
	if len(name) <= 4 {
		limit = 1
	}
	best, bestD, tie := "", limit+1, false
	for _, n := range names {
		switch d := distance(name, n); {
		case d < bestD:
			best, bestD, tie = n, d, false
		case d == bestD && n != best:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// distance is the number of single-letter insertions, deletions,
// substitutions and swaps of neighbours (dns for dsn) that turn a into b
// (optimal string alignment distance), in bytes.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
