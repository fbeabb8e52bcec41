package shardid

import (
	"testing"
	"time"
)

// BenchmarkCompose packs an instant, shard and sequence into an ID.
func BenchmarkCompose(b *testing.B) {
	l := Instagram()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	var sink int64
	for i := 0; b.Loop(); i++ {
		id, err := l.Compose(at, int64(i&8191), int64(i&1023))
		if err != nil {
			b.Fatal(err)
		}
		sink ^= id
	}
	_ = sink
}

// BenchmarkDecompose takes an ID apart.
func BenchmarkDecompose(b *testing.B) {
	l := Instagram()
	id, err := l.Compose(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), 5, 7)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var sink int64
	for i := int64(0); b.Loop(); i++ {
		p, err := l.Decompose(id + i&1023)
		if err != nil {
			b.Fatal(err)
		}
		sink ^= p.Seq
	}
	_ = sink
}
