package shardid

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLayoutValidate(t *testing.T) {
	now := time.Now()
	ok := Instagram()
	cases := []struct {
		name string
		mod  func(*Layout)
		want string
	}{
		{"zero time bits", func(l *Layout) { l.TimeBits = 0 }, "at least 1"},
		{"zero shard bits", func(l *Layout) { l.ShardBits = 0 }, "at least 1"},
		{"zero seq bits", func(l *Layout) { l.SeqBits = 0 }, "at least 1"},
		{"65 bits", func(l *Layout) { l.TimeBits = 42 }, "at most 64"},
		{"65 bits with a route", func(l *Layout) { l.RouteBits = 1 }, "time+shard+sequence+route bits must total at most 64"},
		{"a width past 64 that wraps the sum", func(l *Layout) { l.TimeBits = 1<<64 - 1 }, "at most 64"},
		{"a route width past 64", func(l *Layout) { l.TimeBits, l.RouteBits = 1, 1<<64-30 }, "at most 64"},
		{"unit 0", func(l *Layout) { l.TimeUnit = 0 }, "time unit"},
		{"unit 1.5ms", func(l *Layout) { l.TimeUnit = 1500 * time.Microsecond }, "time unit"},
		{"unit 2s", func(l *Layout) { l.TimeUnit = 2 * time.Second }, "time unit"},
		{"future epoch", func(l *Layout) { l.Epoch = now.Add(time.Hour) }, "future"},
		{"no epoch", func(l *Layout) { l.Epoch = time.Time{} }, "not set"},
		{"pre-1970 epoch", func(l *Layout) { l.Epoch = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC) }, "1970"},
	}
	for _, c := range cases {
		l := ok
		c.mod(&l)
		err := l.Validate()
		if !errors.Is(err, ErrInvalidLayout) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (want ErrInvalidLayout mentioning %q, one line)", c.name, err, c.want)
		}
	}
	for _, name := range LayoutNames() {
		l, _ := LayoutByName(name)
		if err := l.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}

func TestComposeDecompose(t *testing.T) {
	for _, name := range append(LayoutNames(), "time:41,node:6,seq:12,route:4", "time:28@1s,node:22,seq:13", "time:1,shard:1,seq:1,route:60") {
		l, err := ParseLayout(name)
		if err != nil {
			t.Fatal(err)
		}
		at := l.Epoch.Add(time.Duration(min(1234567, l.MaxTicks())) * l.TimeUnit)
		id, err := l.ComposeRoute(at, l.MaxShard(), l.MaxSeq(), l.MaxRoute())
		if err != nil {
			t.Fatal(err)
		}
		p, err := l.Decompose(id)
		if err != nil || !p.Time.Equal(at) || p.Shard != l.MaxShard() || p.Seq != l.MaxSeq() || p.Route != l.MaxRoute() {
			t.Fatalf("%s: %d -> %+v, %v", name, id, p, err)
		}
		if _, err := l.Compose(l.Epoch.Add(-time.Millisecond), 0, 0); !errors.Is(err, ErrTimeRange) {
			t.Errorf("%s: before epoch: %v", name, err)
		}
		if _, err := l.Compose(l.End(), 0, 0); !errors.Is(err, ErrTimeRange) {
			t.Errorf("%s: at the end: %v", name, err)
		}
		if _, err := l.Compose(at, l.MaxShard()+1, 0); !errors.Is(err, ErrShardRange) {
			t.Errorf("%s: shard too big: %v", name, err)
		}
		if _, err := l.Compose(at, 0, l.MaxSeq()+1); !errors.Is(err, ErrSeqRange) {
			t.Errorf("%s: seq too big: %v", name, err)
		}
		if _, err := l.Decompose(-1); !errors.Is(err, ErrNegativeID) {
			t.Errorf("%s: negative id: %v", name, err)
		}
		last, err := l.ComposeTicksRoute(l.MaxTicks(), l.MaxShard(), l.MaxSeq(), l.MaxRoute())
		if err != nil || last != l.MaxID() || last < 0 {
			t.Errorf("%s: last id %d, MaxID %d, %v", name, last, l.MaxID(), err)
		}
	}
	if got := Instagram().End().Sub(DefaultEpoch()); got != (1<<40)*time.Millisecond {
		t.Errorf("instagram time range %v, want 2^40 ms (its top bit is the sign)", got)
	}
}

func TestParsing(t *testing.T) {
	l := Instagram()
	got, err := ParseShards("10-12, 8,0-3", l)
	if err != nil || len(got) != 8 || got[0] != 0 || got[7] != 12 {
		t.Fatalf("ParseShards: %v %v", got, err)
	}
	if _, err := ParseShards("0-3, 8,10-12,3", l); !errors.Is(err, ErrShardList) || err.Error() != `invalid shard list: shard 3 is listed twice, in "0-3" and "3" (list each id once)` {
		t.Errorf("ParseShards with a shard twice: %v", err)
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-", "1,,2", "2,2", "0-3,1-2"} {
		if _, err := ParseShards(bad, l); !errors.Is(err, ErrShardList) {
			t.Errorf("ParseShards(%q): %v; want ErrShardList", bad, err)
		}
	}
	for _, bad := range []string{"0-8192", "8192"} {
		if _, err := ParseShards(bad, l); !errors.Is(err, ErrShardRange) {
			t.Errorf("ParseShards(%q): %v; want ErrShardRange", bad, err)
		}
	}
	if _, err := LayoutByName("twitter"); !errors.Is(err, ErrUnknownLayout) {
		t.Errorf("LayoutByName: %v", err)
	}
	e1, err1 := ParseEpoch("2025-01-01T00:00:00Z")
	e2, err2 := ParseEpoch("1735689600000")
	if err1 != nil || err2 != nil || !e1.Equal(e2) || !e1.Equal(DefaultEpoch()) {
		t.Errorf("ParseEpoch: %v %v %v %v", e1, e2, err1, err2)
	}
	for _, bad := range []string{"yesterday", "-5", "2025-01-01"} {
		if _, err := ParseEpoch(bad); !errors.Is(err, ErrInvalidEpoch) {
			t.Errorf("ParseEpoch(%q): %v", bad, err)
		}
	}
}
