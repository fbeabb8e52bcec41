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

// sink receives every benchmark's sum of results, so the compiler cannot
// drop the calls.
var sink int64

// benchIDs are Snowflake IDs as a table holds them: 512 consecutive IDs
// from the article's range (18 digits) followed by 512 from a later one
// (19 digits, like IDs issued today), so both approaches see both digit
// counts and every iteration a different input. The array type lets
// ids[i&1023] go without a bounds check, for both approaches alike.
func benchIDs() *[1024]int64 {
	var ids [1024]int64
	for i := range 512 {
		ids[i] = 561632371724517376 + int64(i)*4194304/7
		ids[512+i] = 1861632371724517376 + int64(i)*4194304/7
	}
	return &ids
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

// BenchmarkUnrotate undoes rotations, as reading keys back does, so its
// inputs are the rotated benchIDs.
func BenchmarkUnrotate(b *testing.B) {
	for _, k := range []int{1, 2, 3} {
		ids := benchIDs()
		for i, id := range ids {
			r, err := Rotate(id, k)
			if err != nil {
				b.Fatal(err)
			}
			ids[i] = r
		}
		b.Run("k="+strconv.Itoa(k), func(b *testing.B) {
			b.ReportAllocs()
			var s int64
			for i := 0; b.Loop(); i++ {
				r, err := Unrotate(ids[i&1023], k)
				if err != nil {
					b.Fatal(err)
				}
				s += r
			}
			sink = s
		})
	}
}
