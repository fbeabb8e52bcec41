package rotate

import (
	"strconv"
	"testing"
)

// rotateString is the published approach, written here as the baseline and
// as a reference for the fuzz test: format the ID, cut and paste the
// digits, parse it back.
func rotateString(id int64, k int) (int64, error) {
	s := strconv.FormatInt(id, 10)
	if len(s) < k+2 {
		return id, nil
	}
	return strconv.ParseInt(s[:1]+s[len(s)-k:]+s[1:len(s)-k], 10, 64)
}

var sink int64

// benchIDs are consecutive Snowflake IDs from the article's range, so both
// approaches see the digit counts a real table sees.
func benchIDs() []int64 {
	ids := make([]int64, 1024)
	for i := range ids {
		ids[i] = 561632371724517376 + int64(i)*4194304/7
	}
	return ids
}

func BenchmarkRotate(b *testing.B) {
	ids := benchIDs()
	for _, k := range []int{1, 2, 3} {
		b.Run("arith/k="+strconv.Itoa(k), func(b *testing.B) {
			b.ReportAllocs()
			var s int64
			for i := 0; b.Loop(); i++ {
				r, err := Rotate(ids[i&1023], k)
				if err != nil {
					b.Fatal(err)
				}
				s += r
			}
			sink = s
		})
		b.Run("string/k="+strconv.Itoa(k), func(b *testing.B) {
			b.ReportAllocs()
			var s int64
			for i := 0; b.Loop(); i++ {
				r, err := rotateString(ids[i&1023], k)
				if err != nil {
					b.Fatal(err)
				}
				s += r
			}
			sink = s
		})
	}
}

func BenchmarkUnrotate(b *testing.B) {
	ids := benchIDs()
	b.ReportAllocs()
	var s int64
	for i := 0; b.Loop(); i++ {
		r, err := Unrotate(ids[i&1023], 1)
		if err != nil {
			b.Fatal(err)
		}
		s += r
	}
	sink = s
}
