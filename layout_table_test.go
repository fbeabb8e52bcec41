package shardid

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/shardid/shardid/tools/testsrv"
)

// docLayouts are the layouts the "which layout" tables of docs/layouts.md
// and the package doc compare: the presets and a few specs users bring.
var docLayouts = []struct{ spec, note string }{
	{"instagram", "the default; Instagram's split fills all 64 bits, so the time field's top bit is the sign"},
	{"snowflake", "Twitter's; the node is often 5 bits of datacenter and 5 of worker (NodeID)"},
	{"js53", "every ID exact as a JavaScript Number"},
	{"time:32@1s,shard:8,seq:12", "the 53-bit split of the Snowflake-layout article, on seconds"},
	{"time:28@1s,node:22,seq:13", "Baidu uid-generator's split: many short-lived workers, a short range"},
	{"time:41,node:6,seq:12,route:4", "order IDs carrying a user id's low 4 bits: id % 16 == uid % 16 picks the table of both"},
}

// layoutRow is one layout's line of the table.
type layoutRow struct {
	name, spec, tick, perTick, perSecond, shards, years, end, js, routes, note string
}

func docLayoutRows(tb testing.TB) []layoutRow {
	var rows []layoutRow
	for _, d := range docLayouts {
		l, err := ParseLayout(d.spec)
		if err != nil {
			tb.Fatal(err)
		}
		r := layoutRow{name: d.spec, spec: l.fields(), tick: l.TimeUnit.String(), note: d.note,
			perTick:   thousands(l.MaxSeq() + 1),
			perSecond: thousands((l.MaxSeq() + 1) * int64(time.Second/l.TimeUnit)),
			shards:    thousands(l.MaxShard() + 1),
			years:     fmt.Sprintf("%.1f years", float64(l.End().Sub(l.Epoch))/float64(365.25*24*time.Hour)),
			end:       l.End().Format("2006-01-02"),
			js:        "no", routes: "—"}
		if l.MaxID() <= 1<<53-1 {
			r.js = "yes"
		}
		if l.RouteBits > 0 {
			r.routes = fmt.Sprintf("%s (%d bits; the sequence is shared)", thousands(l.MaxRoute()+1), l.RouteBits)
		}
		rows = append(rows, r)
	}
	return rows
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// layoutTableMarkdown is the table of docs/layouts.md.
func layoutTableMarkdown(rows []layoutRow) string {
	var b strings.Builder
	b.WriteString("| layout | tick | IDs per tick per shard | per second per shard | shards | range | ends (default epoch) | ≤ 2^53−1 (JavaScript) | routes | for |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		name := "`" + r.name + "`"
		if _, preset := presets[r.name]; preset {
			name += " = `" + r.spec + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			name, r.tick, r.perTick, r.perSecond, r.shards, r.years, r.end, r.js, r.routes, r.note)
	}
	return b.String()
}

// layoutTableText is the package doc's table: a preformatted block.
func layoutTableText(rows []layoutRow) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "layout\ttick\tIDs/tick/shard\tIDs/s/shard\tshards\trange\t≤ 2^53-1\troutes")
	for _, r := range rows {
		routes := r.routes
		if i := strings.Index(routes, " ("); i > 0 {
			routes = routes[:i]
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.name, r.tick, r.perTick, r.perSecond, r.shards, r.years, r.js, routes)
	}
	w.Flush()
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out.WriteString("//\t" + strings.TrimRight(line, " ") + "\n")
	}
	return out.String()
}

const (
	mdTableBegin = "<!-- layout table: written by TestLayoutTable (go test -run TestLayoutTable -update .) -->\n"
	mdTableEnd   = "<!-- end of layout table -->\n"
	docTableHead = "//\tlayout "
)

// TestLayoutTable keeps the "which layout" tables of docs/layouts.md and doc.go
// equal to what the layouts say; with -update it rewrites them.
func TestLayoutTable(t *testing.T) {
	rows := docLayoutRows(t)
	sync := func(path string, replace func(string) (string, bool)) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := replace(string(b))
		if !ok {
			t.Fatalf("%s: no layout table found to keep in sync", path)
		}
		if got == string(b) {
			return
		}
		if testsrv.UpdatingGolden() {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s: the layout table is out of date; run go test -run TestLayoutTable -update . and review the diff", path)
	}
	sync("docs/layouts.md", func(s string) (string, bool) {
		i, j := strings.Index(s, mdTableBegin), strings.Index(s, mdTableEnd)
		if i < 0 || j < i {
			return s, false
		}
		return s[:i+len(mdTableBegin)] + layoutTableMarkdown(rows) + s[j:], true
	})
	sync("doc.go", func(s string) (string, bool) {
		i := strings.Index(s, docTableHead)
		if i < 0 {
			return s, false
		}
		j := i
		for j < len(s) && strings.HasPrefix(s[j:], "//\t") {
			j += strings.Index(s[j:], "\n") + 1
		}
		return s[:i] + layoutTableText(rows) + s[j:], true
	})
}

// TestLayoutTableNumbers pins a few of the table's numbers to what the
// layouts are known to give, so the table cannot drift with its code.
func TestLayoutTableNumbers(t *testing.T) {
	want := map[string]layoutRow{
		"instagram":                     {perTick: "1,024", perSecond: "1,024,000", shards: "8,192", years: "34.8 years", end: "2059-11-04", js: "no", routes: "—"},
		"js53":                          {perTick: "256", perSecond: "25,600", shards: "256", years: "43.6 years", js: "yes"},
		"time:32@1s,shard:8,seq:12":     {perTick: "4,096", perSecond: "4,096", years: "136.1 years", js: "yes"},
		"time:28@1s,node:22,seq:13":     {shards: "4,194,304", years: "8.5 years", js: "no"},
		"time:41,node:6,seq:12,route:4": {perTick: "4,096", shards: "64", years: "69.7 years", routes: "16 (4 bits; the sequence is shared)"},
	}
	for _, r := range docLayoutRows(t) {
		w, ok := want[r.name]
		if !ok {
			continue
		}
		for _, f := range []struct{ name, got, want string }{
			{"IDs per tick", r.perTick, w.perTick}, {"per second", r.perSecond, w.perSecond}, {"shards", r.shards, w.shards},
			{"range", r.years, w.years}, {"end", r.end, w.end}, {"JavaScript", r.js, w.js}, {"routes", r.routes, w.routes},
		} {
			if f.want != "" && f.got != f.want {
				t.Errorf("%s: %s %q; want %q", r.name, f.name, f.got, f.want)
			}
		}
	}
}
