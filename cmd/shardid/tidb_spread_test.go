package main

import (
	"strings"
	"testing"
)

func TestTiDBSpread(t *testing.T) {
	code, out, errs := cli(t, "", "tidb", "spread", "--writes", "200000", "--window", "20000", "--split-rows", "64")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The steady-state table: raw keys put every write in one region,
	// rotation by k digits in 10^k, 4 shard bits in 16.
	want := map[string]string{"snowflake": "1", "rotate k=1": "10", "rotate k=2": "100", "shard S=4": "16"}
	for src, written := range want {
		found := false
		for _, l := range strings.Split(out, "\n") {
			// name…, regions, taking writes, hottest, effective
			f := strings.Fields(l)
			if len(f) >= 5 && strings.Join(f[:len(f)-4], " ") == src && f[len(f)-3] == written {
				found = true
			}
		}
		if !found {
			t.Errorf("no table row %q taking writes in %s regions:\n%s", src, written, out)
		}
	}
	if !strings.Contains(out, "▁▁▁▁▁▁▁▁▁▁") {
		t.Errorf("chart missing the flat raw line:\n%s", out)
	}
}

func TestTiDBSpreadBadFlags(t *testing.T) {
	for _, tt := range []struct{ args, msg string }{
		{"--rate 0", "rate 0 (allowed 1-1000000000"},
		{"--window 0", "window 0 (allowed 1 to writes"},
		{"--writes 10 --window 20", "window 20 (allowed 1 to writes, 10)"},
		{"--split-rows 1", "split-rows 1 (allowed ≥ 2)"},
		{"--shard-bits 16", "shard-bits 16 (allowed 1-15)"},
		{"--batch -1", "batch -1 (allowed ≥ 1"},
		{"extra", `unexpected argument "extra"`},
	} {
		args := append([]string{"tidb", "spread"}, strings.Fields(tt.args)...)
		code, _, errs := cli(t, "", args...)
		if code != 2 || !strings.Contains(errs, tt.msg) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.msg)
		}
	}
}
