package sonyflake

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/sony/sonyflake/v2"
)

// perRound is how many IDs each generator draws per round: about 50 ms
// at the layout's 4,096 IDs per millisecond.
const perRound = 200_000

// cpu is the process's user and system time so far.
func cpu(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// round draws perRound IDs with next and returns the CPU per ID and the
// IDs per millisecond of wall time.
func round(b *testing.B, next func() (int64, error)) (cpuPerID time.Duration, perMs float64) {
	c0, w0 := cpu(b), time.Now()
	for range perRound {
		if _, err := next(); err != nil {
			b.Fatal(err)
		}
	}
	wall := time.Since(w0)
	return (cpu(b) - c0) / perRound, perRound / (float64(wall) / float64(time.Millisecond))
}

func median[T float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkBesideSonyflake: one round of each generator per iteration,
// interleaved so that both meet the same load; medians over the rounds.
func BenchmarkBesideSonyflake(b *testing.B) {
	g, err := shardid.NewGenerator(shardid.Settings{Layout: shardid.Snowflake(), Node: 1})
	if err != nil {
		b.Fatal(err)
	}
	sf, err := sonyflake.New(sonyflake.Settings{TimeUnit: time.Millisecond, BitsSequence: 12, BitsMachineID: 10,
		MachineID: func() (int, error) { return 1, nil }})
	if err != nil {
		b.Fatal(err)
	}
	var gCPU, sCPU []time.Duration
	var gRate, sRate []float64
	for b.Loop() {
		c, r := round(b, g.Next)
		gCPU, gRate = append(gCPU, c), append(gRate, r)
		c, r = round(b, sf.NextID)
		sCPU, sRate = append(sCPU, c), append(sRate, r)
	}
	const ceiling = 4096 // IDs per ms of the layout
	gc, sc, gr, sr := median(gCPU), median(sCPU), median(gRate), median(sRate)
	b.ReportMetric(float64(gc), "shardid-cpu-ns/id")
	b.ReportMetric(float64(sc), "sonyflake-cpu-ns/id")
	b.ReportMetric(float64(gc)/float64(sc), "cpu-ratio")
	b.ReportMetric(gr, "shardid-ids/ms")
	b.ReportMetric(sr, "sonyflake-ids/ms")
	b.ReportMetric(100*gr/ceiling, "shardid-%ceiling")
	b.ReportMetric(100*sr/ceiling, "sonyflake-%ceiling")
}
