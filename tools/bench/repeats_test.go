package bench

import (
	"testing"
)

func TestRepeats(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lists [][]int64
		want  int
	}{
		{"none", nil, 0},
		{"distinct", [][]int64{{1, 2, 3}, {4, 5}}, 0},
		{"across lists", [][]int64{{1, 2, 3}, {3, 4}}, 1},
		{"within a list", [][]int64{{7, 7}}, 1},
		{"k times counts k-1", [][]int64{{7, 7, 7}, {7}}, 3},
		{"negative and zero", [][]int64{{-1, 0}, {0, -1}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Repeats(tc.lists...); got != tc.want {
				t.Errorf("Repeats(%v) = %d, want %d", tc.lists, got, tc.want)
			}
		})
	}
}
