package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestDecodeRouteLayout: the Snowflake-layout article's order IDs decode
// with their route, in text, in JSON (route as a field) and from stdin,
// whether the epoch comes by --epoch, inside the spec or from the
// environment.
func TestDecodeRouteLayout(t *testing.T) {
	const spec = "time:41,node:6,seq:12,route:4"
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flags", nil, []string{"--layout", spec, "--epoch", "0"}},
		{"epoch in the spec", nil, []string{"--layout", spec + ",epoch=1970-01-01T00:00:00Z"}},
		{"environment", map[string]string{"SHARDID_LAYOUT": spec, "SHARDID_EPOCH": "0"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", c.env, append(append([]string{"decode"}, c.args...), "6593741087309889548", "6593741087309889539")...)
			want := "6593741087309889548\t2019-10-26T06:13:01.000Z\tnode 1\tseq 0\troute 12\n" +
				"6593741087309889539\t2019-10-26T06:13:01.000Z\tnode 1\tseq 0\troute 3\n"
			if code != 0 || out != want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
			}
			code, out, errOut = runCLI(t, "6593741087309889548\n", c.env, append(append([]string{"decode"}, c.args...), "--json")...)
			var d map[string]any
			if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || d["route"] != 12.0 || d["shard"] != 1.0 || d["seq"] != 0.0 || d["time"] != "2019-10-26T06:13:01.000Z" {
				t.Fatalf("--json: exit %d, %q (%v), stderr %q", code, out, err, errOut)
			}
		})
	}
	// The same field spelled shard is printed as shard.
	code, out, _ := runCLI(t, "", nil, "decode", "--layout", "time:41,shard:6,seq:12,route:4", "--epoch", "0", "6593741087309889548")
	if want := "6593741087309889548\t2019-10-26T06:13:01.000Z\tshard 1\tseq 0\troute 12\n"; code != 0 || out != want {
		t.Fatalf("decode with shard:6: exit %d %q, want %q", code, out, want)
	}
	// A layout without route bits prints no route, in text or JSON.
	id, _ := shardid.Snowflake().ComposeTicks(5, 7, 9)
	code, out, _ = runCLI(t, "", nil, "decode", "--json", "--layout", "snowflake", fmt.Sprint(id))
	if code != 0 || strings.Contains(out, "route") || !strings.Contains(out, `"shard":7,"seq":9}`) {
		t.Fatalf("decode --json --layout snowflake: exit %d %q", code, out)
	}
}

// TestLayoutSpecEverywhere: a spec works wherever a preset name does
// (render, decode; the pg and worker commands share the same flags), and
// a bad one is refused in one line naming the flag or variable it came by.
func TestLayoutSpecEverywhere(t *testing.T) {
	l, err := shardid.ParseLayout("time:28@1s,node:22,seq:13")
	if err != nil {
		t.Fatal(err)
	}
	want, err := pgfunc.Render(pgfunc.Shard{Schema: "insta4000000", ID: 4000000}, pgfunc.Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", map[string]string{"SHARDID_LAYOUT": "time:28@1s,node:22,seq:13"}, "pg", "render", "--shard", "4000000")
	if code != 0 || out != string(want) {
		t.Fatalf("pg render with SHARDID_LAYOUT=time:28@1s,node:22,seq:13: exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "-- layout: time:28@1s,shard:22,seq:13 (time 28 bits of 1s since 2025-01-01T00:00:00Z, shard 22 bits, sequence 13 bits)\n") {
		t.Fatalf("the migration's layout line: %.200s", out)
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"pg", "render", "--shard", "1", "--mode", "classic", "--layout", "time:41,node:6,seq:12,route:4"},
			"shardid: --layout: route bits unsupported: layout time:41,shard:6,seq:12,route:4 has 4 route bits; mode classic fills no route field (allowed: mode unique, whose next_id(route) fills it, or a layout without route)\n"},
		{nil, []string{"pg", "gen", "--dir", "x", "--shards", "1", "--mode", "classic-sql", "--layout", "time:41,node:6,seq:12,route:4"}, "shardid: --layout: route bits unsupported"},
		{nil, []string{"pg", "render", "--shard", "1", "--layout", "time:41,shard:13,seq:0"}, "shardid: --layout: invalid layout \"time:41,shard:13,seq:0\": seq:0: a sequence needs at least 1 bit\n"},
		{map[string]string{"SHARDID_LAYOUT": "time:42,shard:13,seq:10"}, []string{"decode", "1"}, "shardid: SHARDID_LAYOUT: invalid layout \"time:42,shard:13,seq:10\": time+shard+sequence bits must total at most 64"},
		{nil, []string{"decode", "--layout", "time:41@1500us,shard:13,seq:10", "1"}, "shardid: --layout: invalid layout \"time:41@1500us,shard:13,seq:10\": time:41@1500us: unit \"1500us\" is not a whole number of milliseconds from 1ms to 1s"},
		{nil, []string{"decode", "--layout", "seq:10,time:41,shard:13", "1"}, "shardid: --layout: invalid layout \"seq:10,time:41,shard:13\": time:41: time must come before seq"},
		{nil, []string{"decode", "--layout", "js53,epoch=0", "--epoch", "1", "1"}, "shardid: --epoch: invalid epoch \"1\": the layout \"js53,epoch=0\" names epoch 1970-01-01T00:00:00Z; give the epoch once\n"},
		{map[string]string{"SHARDID_EPOCH": "1"}, []string{"decode", "--layout", "js53,epoch=0", "1"}, "shardid: SHARDID_EPOCH: invalid epoch \"1\": the layout"},
		{nil, []string{"decode", "--layout", "time:41,shard:13,seq:10,epoch=soon", "1"}, "shardid: --layout: invalid layout \"time:41,shard:13,seq:10,epoch=soon\": epoch=soon: want RFC 3339"},
		{nil, []string{"idgen", "--dsn", "postgres://u@127.0.0.1:1/x", "-n", "1", "--layout", "time:41,node:6,seq:12,route:6"}, "shardid: --layout: invalid layout \"time:41,node:6,seq:12,route:6\": time+shard+sequence+route bits must total at most 64"},
		{nil, []string{"worker", "fence", "--dsn", "postgres://u@127.0.0.1:1/x", "--layout", "time:41,node:6"}, "shardid: --layout: invalid layout \"time:41,node:6\": field seq is missing"},
	} {
		code, out, stderr := runCLI(t, "", c.env, c.args...)
		if code != 2 || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v with %v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.args, c.env, code, out, stderr, c.want)
		}
	}
}

// TestIDGenRouteLayout: idgen leases a node for a spec with route bits
// and prints IDs of that layout (route 0: idgen draws Next); the lease
// table records the route bits, so a generator of the same widths without
// them is refused the table.
func TestIDGenRouteLayout(t *testing.T) {
	t.Parallel()
	dsn := leaseBackends[0].dsn(t)
	if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
		t.Fatal(errOut)
	}
	const spec = "time:41,node:6,seq:12,route:4"
	code, out, errOut := runCLI(t, "", nil, "idgen", "--dsn", dsn, "--layout", spec, "-n", "3000")
	if code != 0 {
		t.Fatalf("idgen --layout %s: exit %d: %s", spec, code, errOut)
	}
	l, _ := shardid.ParseLayout(spec)
	seen := map[string]bool{}
	for _, line := range strings.Fields(out) {
		code, dec, errOut := runCLI(t, "", nil, "decode", "--json", "--layout", spec, line)
		var d struct{ Shard, Seq, Route *int64 }
		if code != 0 || json.Unmarshal([]byte(dec), &d) != nil || d.Route == nil || *d.Route != 0 || *d.Shard < 0 || *d.Shard > l.MaxShard() || seen[line] {
			t.Fatalf("idgen printed %s: decode exit %d %q %s (or a repeat)", line, code, dec, errOut)
		}
		seen[line] = true
		if len(seen) == 20 {
			break // decoding every ID through the CLI is slow; the rest are checked below
		}
	}
	all := strings.Fields(out)
	uniq := map[string]bool{}
	for _, s := range all {
		uniq[s] = true
	}
	if len(all) != 3000 || len(uniq) != 3000 {
		t.Fatalf("idgen printed %d IDs, %d distinct; want 3000", len(all), len(uniq))
	}
	code, _, errOut = runCLI(t, "", nil, "idgen", "--dsn", dsn, "--layout", "time:41,node:6,seq:12", "-n", "1")
	if code != 1 || !strings.Contains(errOut, "ErrLayoutMismatch") && !strings.Contains(errOut, "was leased for layout") {
		t.Fatalf("idgen without the route bits on the same table: exit %d: %s", code, errOut)
	}
	db := testsrv.Open(t, "pgx", dsn)
	var layout string
	if err := db.QueryRow("SELECT layout FROM shardid_worker_lease LIMIT 1").Scan(&layout); err != nil || !strings.HasSuffix(layout, ", 4 route bits") {
		t.Fatalf("the lease row records layout %q, %v; want the route bits in it", layout, err)
	}
}

// TestPGUpSpecLayout: pg up, status and down take a spec as they take a
// preset, resume takes its shard ids, and decode reads the generator's IDs
// with the same spec.
func TestPGUpSpecLayout(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	env := map[string]string{"SHARDID_PG_DSN": dsn, "SHARDID_LAYOUT": "time:28@1s,node:22,seq:13"}
	if code, out, errOut := runCLI(t, "", env, "pg", "up", "--shards", "4000000,4194303"); code != 0 {
		t.Fatalf("pg up: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "", env, "pg", "status", "--shards", "4000000,4194303"); code != 0 {
		t.Fatalf("pg status: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "", env, "pg", "status", "--shards", "4000000", "--layout", "time:28@1s,node:22,seq:12"); code != 1 || !strings.Contains(out, "differs from the requested options") {
		t.Fatalf("pg status with another split: exit %d\n%s", code, out)
	}
	// resume reads each generator's layout from its schema, so it takes
	// shard ids past the presets' shard bits.
	if code, out, errOut := runCLI(t, "", env, "pg", "resume", "--apply", "--shards", "4194303", "--lead", "5s"); code != 0 || !strings.Contains(out, "1 counter: ") {
		t.Fatalf("pg resume: exit %d\n%s%s", code, out, errOut)
	}
	db := openPG(t, dsn)
	var id int64
	if err := db.QueryRow("SELECT insta4194303.next_id()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", env, "decode", fmt.Sprint(id))
	if code != 0 || !strings.Contains(out, "\tnode 4194303\tseq ") || strings.Contains(out, "route") {
		t.Fatalf("decode %d: exit %d %q %s", id, code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "", env, "pg", "down", "--shards", "4000000"); code != 0 {
		t.Fatalf("pg down: exit %d\n%s%s", code, out, errOut)
	}
}

// TestDecodeTheirIDs: IDs other generators made, decoded with their
// layouts written as specs: a tweet (Twitter's Snowflake, epoch
// 1288834974657) and the snowflake Discord's API documentation takes apart
// (42 bits of ms since 2015, 5 bits of worker and 5 of process, 12 of
// increment: worker 1, process 0 is node 32).
func TestDecodeTheirIDs(t *testing.T) {
	for _, c := range []struct{ layout, id, want string }{
		{"snowflake,epoch=1288834974657", "1585841080431321088", "1585841080431321088\t2022-10-28T03:49:11.734Z\tshard 330\tseq 0\n"},
		{"time:42,node:10,seq:12,epoch=2015-01-01T00:00:00Z", "175928847299117063", "175928847299117063\t2016-04-30T11:18:25.796Z\tnode 32\tseq 7\n"},
	} {
		if code, out, errOut := runCLI(t, "", nil, "decode", "--layout", c.layout, c.id); code != 0 || out != c.want {
			t.Errorf("decode --layout %s %s: exit %d %q %s; want %q", c.layout, c.id, code, out, errOut, c.want)
		}
	}
}
