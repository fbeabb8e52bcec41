package bench

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// regionKey is a position in TiDB's key space, read from a region
// boundary as SHOW TABLE … REGIONS prints it: t_<table>_ (the table's
// prefix), t_<table>_i_<index>_… (an index's keys) or t_<table>_r_<handle>
// (a row with an integer handle).
type regionKey struct {
	table int64
	part  int   // 0: the table prefix alone; 1: index; 2: record
	bare  bool  // part 1 or 2 without an index id or handle
	id    int64 // index id or handle
	more  bool  // bytes after the index id (column values) or handle
}

// parseRegionKey reads a region boundary.
func parseRegionKey(s string) (regionKey, error) {
	bad := fmt.Errorf("region boundary %q: not a key of a table with integer row keys", s)
	rest, ok := strings.CutPrefix(s, "t_")
	if !ok {
		return regionKey{}, bad
	}
	tid, rest, _ := strings.Cut(rest, "_")
	var k regionKey
	var err error
	if k.table, err = strconv.ParseInt(tid, 10, 64); err != nil {
		return regionKey{}, bad
	}
	switch {
	case rest == "":
		return k, nil
	case rest == "i" || rest == "i_":
		k.part, k.bare = 1, true
	case rest == "r" || rest == "r_":
		k.part, k.bare = 2, true
	case strings.HasPrefix(rest, "i_"):
		k.part = 1
		id, values, _ := strings.Cut(rest[2:], "_")
		k.more = values != ""
		if k.id, err = strconv.ParseInt(id, 10, 64); err != nil {
			return regionKey{}, bad
		}
	case strings.HasPrefix(rest, "r_"):
		k.part = 2
		if k.id, err = strconv.ParseInt(rest[2:], 10, 64); err != nil {
			return regionKey{}, bad
		}
	default:
		// A key TiDB does not pretty-print: the bytes after the table
		// prefix in hex, "_r" or "_i" then a memcomparable int64 (sign
		// bit flipped), maybe more bytes.
		b, err := hex.DecodeString(rest)
		if err != nil || len(b) < 10 || b[0] != '_' || (b[1] != 'r' && b[1] != 'i') {
			return regionKey{}, bad
		}
		k.part = 2
		if b[1] == 'i' {
			k.part = 1
		}
		k.id = int64(binary.BigEndian.Uint64(b[2:10]) ^ 1<<63)
		k.more = len(b) > 10
	}
	return k, nil
}

// compare orders keys as TiKV does: by table, the prefix before index
// keys before records, then by index id (its prefix before its values) or
// handle.
func (a regionKey) compare(b regionKey) int {
	if c := cmp.Compare(a.table, b.table); c != 0 {
		return c
	}
	if c := cmp.Compare(a.part, b.part); c != 0 || a.part == 0 {
		return c
	}
	// A bare prefix sorts before the keys under it, an index id alone
	// before the same index's keys with values.
	if c := cmp.Compare(flag(!a.bare), flag(!b.bare)); c != 0 || a.bare {
		return c
	}
	if c := cmp.Compare(a.id, b.id); c != 0 {
		return c
	}
	return cmp.Compare(flag(a.more), flag(b.more))
}

// flag is 1 for true, 0 for false.
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// region is one region's key range; an empty boundary is open.
type region struct {
	start, end       regionKey
	openStart, openE bool
}

// contains reports whether k lies in the region.
func (r region) contains(k regionKey) bool {
	return (r.openStart || r.start.compare(k) <= 0) && (r.openE || k.compare(r.end) < 0)
}

// regionsOf returns the regions SHOW TABLE … REGIONS lists for table, in
// key order.
func regionsOf(ctx context.Context, db *sql.DB, table string) ([]region, error) {
	q, err := render("regions", table)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("regions of %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	startCol, endCol := slices.Index(cols, "START_KEY"), slices.Index(cols, "END_KEY")
	if startCol < 0 || endCol < 0 {
		return nil, fmt.Errorf("regions of %s: no START_KEY and END_KEY among %v", table, cols)
	}
	var out []region
	vals := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		var r region
		if s := string(vals[startCol]); s == "" {
			r.openStart = true
		} else if r.start, err = parseRegionKey(s); err != nil {
			return nil, err
		}
		if s := string(vals[endCol]); s == "" {
			r.openE = true
		} else if r.end, err = parseRegionKey(s); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b region) int {
		switch {
		case a.openStart:
			return -1
		case b.openStart:
			return 1
		}
		return a.start.compare(b.start)
	})
	return out, nil
}

// spread counts the key writes of rows (row handles of table tid) and, for
// a table keyed by TiDB's hidden row id, one PRIMARY index entry per row
// (index id 1) per region, and returns how many regions took writes and
// the busiest one's share. The index entries are counted in the region
// holding the start of the index: exact unless that index's own range has
// been split.
func spread(regions []region, tid int64, handles []int64, index bool) (written int, hottest float64, err error) {
	counts := make([]int64, len(regions))
	find := func(k regionKey) error {
		// The region k falls in is the last one starting at or before it.
		i := sort.Search(len(regions), func(i int) bool {
			return !regions[i].openStart && regions[i].start.compare(k) > 0
		}) - 1
		if i < 0 || !regions[i].contains(k) {
			return fmt.Errorf("no region of the table holds key %+v", k)
		}
		counts[i]++
		return nil
	}
	for _, h := range handles {
		if err := find(regionKey{table: tid, part: 2, id: h}); err != nil {
			return 0, 0, err
		}
	}
	if index {
		i := regionKey{table: tid, part: 1, id: 1, more: true}
		for range handles {
			if err := find(i); err != nil {
				return 0, 0, err
			}
		}
	}
	var total, most int64
	for _, c := range counts {
		if c > 0 {
			written++
		}
		total += c
		most = max(most, c)
	}
	if total == 0 {
		return 0, 0, nil
	}
	return written, float64(most) / float64(total), nil
}
