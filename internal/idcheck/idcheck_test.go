package idcheck

import "testing"

func TestRepeats(t *testing.T) {
	for _, c := range []struct {
		lists [][]int64
		want  int
	}{
		{nil, 0},
		{[][]int64{{1, 2, 3}, {4, 5}}, 0},
		{[][]int64{{1, 2, 3}, {3, 4}}, 1},
		{[][]int64{{7, 7}}, 1},
		{[][]int64{{7, 7, 7}, {7}}, 3},
		{[][]int64{{-1, 0}, {0, -1}}, 2},
	} {
		if got := Repeats(c.lists...); got != c.want {
			t.Errorf("Repeats(%v) = %d, want %d", c.lists, got, c.want)
		}
	}
}
