package shardid_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
)

// TestExplain: decode's reading of an ID: the fields, the line it prints,
// the warning for an ID from further ahead than any generator runs, and
// what it refuses.
func TestExplain(t *testing.T) {
	l := shardid.Instagram()
	now := time.Now()
	id, err := l.Compose(now, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Explain(" "+itoa(id)+" ", now, time.Hour)
	if err != nil || d.ID != id || d.Shard != 3 || d.Seq != 7 || d.Route != nil || d.Warning != "" {
		t.Fatalf("Explain: %+v, %v", d, err)
	}
	var b strings.Builder
	if err := d.WriteText(&b); err != nil || b.String() != itoa(id)+"\t"+d.Time+"\tshard 3\tseq 7\n" {
		t.Errorf("WriteText: %q, %v", b.String(), err)
	}
	if d, _ = l.Explain(itoa(id), now.Add(-73*time.Hour), time.Hour); !strings.HasPrefix(d.Warning, "its time is 3 days after now") {
		t.Errorf("warning: %q", d.Warning)
	}
	for text, want := range map[string]string{"x": `bad ID "x": want a decimal integer from 0 to`, "-1": "ID -1: "} {
		if _, err := l.Explain(text, now, time.Hour); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Explain(%q): %v, want %q", text, err, want)
		}
	}
	b.Reset()
	if err := (shardid.Decoded{}).WriteText(&b); err != nil || b.String() != "0\t\tshard 0\tseq 0\n" {
		t.Errorf("zero: %q", b.String())
	}
	if shardid.ShardField("time:41,node:6,seq:12") != "node" || shardid.ShardField("instagram") != "shard" {
		t.Error("ShardField")
	}
}

var itoa = func(v int64) string { return strconv.FormatInt(v, 10) }
