package bench

import (
	"testing"
)

// TestSpread reads region boundaries as TiDB 8.5 prints them (taken from
// SHOW TABLE … REGIONS of a SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 table,
// id 114, on unistore) and places rows and index entries in them.
func TestSpread(t *testing.T) {
	bounds := [][2]string{
		{"t_114_i_1_", "t_114_r_576460752303423488"},
		{"t_114_r_576460752303423488", "t_114_r_1152921504606846976"},
		{"t_114_r_1152921504606846976", "t_116_"},
	}
	var regions []region
	for _, b := range bounds {
		s, err := parseRegionKey(b[0])
		if err != nil {
			t.Fatal(err)
		}
		e, err := parseRegionKey(b[1])
		if err != nil {
			t.Fatal(err)
		}
		regions = append(regions, region{start: s, end: e})
	}
	cases := []struct {
		handles []int64
		index   bool
		written int
		hottest float64
	}{
		{[]int64{1, 2, 3, 4}, false, 1, 1},                                         // all in the first region
		{[]int64{1, 576460752303423488, 1152921504606846976, 9e18}, false, 3, 0.5}, // boundaries belong to the region they start
		{[]int64{576460752303423489, 1152921504606846977}, true, 3, 0.5},           // the PRIMARY index lives in the first region
	}
	for _, c := range cases {
		w, h, err := spread(regions, 114, c.handles, c.index)
		if err != nil || w != c.written || h != c.hottest {
			t.Errorf("%v index=%v: %d regions, hottest %.2f, %v; want %d, %.2f", c.handles, c.index, w, h, err, c.written, c.hottest)
		}
	}
	// A key outside every region is an error, not a silent miss.
	if _, _, err := spread(regions[1:], 114, []int64{5}, false); err == nil {
		t.Error("a row before the first region was counted")
	}
	if k, err := parseRegionKey("t_122_5f7284064976a8dd0000"); err != nil || k != (regionKey{table: 122, part: 2, id: 290000000000000000}) {
		t.Errorf("hex record key: %+v, %v", k, err)
	}
	for _, bad := range []string{"", "x_1_", "t_a_", "t_1_q_5", "t_1_r_x", "t_1_i_y_", "t_1_5f72", "t_1_5f7a8000000000000008"} {
		if _, err := parseRegionKey(bad); err == nil {
			t.Errorf("parseRegionKey(%q) accepted", bad)
		}
	}
	// The order of TiKV's keys: table prefix < index prefix < index keys < records.
	// Keys TiDB prints in hex (the bytes after the table prefix) sort the
	// same: 5f72 is "_r", then the handle with its sign bit flipped.
	order := []string{"t_5_", "t_5_i", "t_5_i_1_", "t_5_i_1_0380", "t_5_i_2_", "t_5_r", "t_5_r_-3", "t_5_r_7",
		"t_5_5f728000000000000008", "t_5_5f72800000000000000800", "t_5_r_9", "t_6_"}
	for i := 1; i < len(order); i++ {
		a, _ := parseRegionKey(order[i-1])
		b, _ := parseRegionKey(order[i])
		if a.compare(b) >= 0 || b.compare(a) <= 0 {
			t.Errorf("%s should sort before %s", order[i-1], order[i])
		}
	}
}
