package words

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "shards"}, {1, "shard"}, {2, "shards"}, {-1, "shards"}} {
		if got := Plural(c.n, "shard", "shards"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := Plural(1, "counter", "counters"); got != "counter" {
		t.Errorf("Plural(int 1) = %q", got)
	}
}
