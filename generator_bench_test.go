package shardid

import (
	"testing"
	"time"
)

// The benchmarks run on the real clock: a Snowflake node may hand out at
// most 4096 IDs per millisecond, so ids/ms shows how close the generator
// gets to that ceiling (and ns/op is bounded below by 1ms/4096 ≈ 244ns).
func reportRate(b *testing.B, start time.Time, n int) {
	ms := float64(time.Since(start)) / float64(time.Millisecond)
	b.ReportMetric(float64(n)/ms, "ids/ms")
	b.ReportMetric(100*float64(n)/ms/4096, "%ceiling")
}

func BenchmarkNext(b *testing.B) {
	g, err := NewGenerator(Settings{})
	if err != nil {
		b.Fatal(err)
	}
	benchNext(b, g)
}

// benchNext draws from g on one goroutine for the benchmark's duration and
// reports the rate.
func benchNext(b *testing.B, g *Generator) {
	b.ReportAllocs()
	start := time.Now()
	n := 0
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportRate(b, start, n)
}

func BenchmarkNextParallel(b *testing.B) {
	g, err := NewGenerator(Settings{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := g.Next(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportRate(b, start, b.N)
}

// BenchmarkNextCost measures the generator's own cost per ID (lock, clock
// read, packing) with a clock that moves 1µs per reading, so the sequence
// never runs out and nothing waits.
func BenchmarkNextCost(b *testing.B) {
	t := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	g, err := NewGenerator(Settings{Clock: func() time.Time { t = t.Add(time.Microsecond); return t }})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
