package instr

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCounts runs the instruction count with a small N and two
// repeats, next_id() and an extra beside bigserial, and checks what a count
// must be whatever the body: every row there, bigserial's count
// positive, every count finite and equal in both repeats (callgrind
// counts, the machine's load plays no part), the frozen clock keeping
// every counted draw on the fast path and the stepped clock sending every
// one to the jump. It asserts no speed.
func TestCounts(t *testing.T) {
	if _, err := osexec.LookPath("valgrind"); err != nil && !testsrv.InCI() {
		t.Skip("valgrind is not installed (CI installs it)")
	}
	if testing.Short() {
		t.Skip("runs a stand-alone backend under callgrind about 70 times")
	}
	extra := filepath.Join(t.TempDir(), "floor2.sql")
	setup := "-- a second floor, in a schema of its own\n-- default: floor2.f()\n" +
		"CREATE SCHEMA floor2;\nCREATE SEQUENCE floor2.s;\n" +
		"CREATE FUNCTION floor2.f() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN nextval('floor2.s'); END $$;\n"
	if err := os.WriteFile(extra, []byte(setup), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := ParseExtra("floor2=" + extra)
	if err != nil {
		t.Fatal(err)
	}
	// A backend's start varies by some thousand instructions from one run
	// to the next (the difference of two scripts leaves that over N): N =
	// 50 keeps that within 1% at little cost, the start dominating.
	const n = 50
	rep, err := Run(context.Background(), Settings{Executes: n, Repeats: 2,
		Only: []string{"next_id"}, Extras: []Extra{x}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out, "go test"); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	want := []string{"bigserial", "next_id", "extra:floor2"}
	if len(rep.Rows) != len(want) {
		t.Fatalf("%d rows, want %d (%v)", len(rep.Rows), len(want), want)
	}
	if !strings.HasPrefix(rep.Valgrind, "valgrind-") || !strings.Contains(rep.Server, "PostgreSQL") {
		t.Errorf("report names valgrind %q, server %q", rep.Valgrind, rep.Server)
	}
	for i, r := range rep.Rows {
		if r.Name != want[i] {
			t.Errorf("row %d is %s, want %s", i, r.Name, want[i])
		}
		counts := map[string]*Count{"prepared": r.Prepared, "every draw jumps": r.Jumping, "simple": r.Simple, "per row": r.PerRow}
		for form, c := range counts {
			if c == nil {
				t.Errorf("%s: no %s count", r.Name, form)
				continue
			}
			v := c.Instructions
			if math.IsNaN(v.Median) || math.IsInf(v.Median, 0) || v.Min <= 0 || v.Max <= 0 {
				t.Errorf("%s, %s: count %+v, want finite and positive", r.Name, form, v)
			}
			// The same script, the same instructions: both repeats agree
			// but for what varies in a backend's start (divided by N; the
			// default N of 200 puts it well within the 0.5%).
			if c.Spread > 0.01 {
				t.Errorf("%s, %s: repeats differ by %.2f%% (%+v)", r.Name, form, 100*c.Spread, v)
			}
			if r.Name == "bigserial" && (c.VsBase != 1 || v.Median <= 0) {
				t.Errorf("bigserial, %s: %+v × %.2f, want a positive count, × 1", form, v, c.VsBase)
			}
			// Slow paths, where the generator's jump counters tell: none
			// counted with the frozen clock, every draw with the stepped clock.
			switch {
			case r.Name != "next_id" && r.Name != "next_id_bulk":
			case form == "every draw jumps" && c.SlowPath != n:
				t.Errorf("%s, every draw jumps: %d jumps among %d counted draws, want every one", r.Name, c.SlowPath, n)
			case form != "every draw jumps" && c.SlowPath != 0:
				t.Errorf("%s, %s: %d jumps among the counted draws, want none (clock frozen)", r.Name, form, c.SlowPath)
			}
		}
	}
}

// TestMissing: a missing valgrind or libfaketime is named in
// one line, before any server starts.
func TestMissing(t *testing.T) {
	for _, s := range []Settings{
		{Valgrind: "/nonexistent/valgrind"},
		{Valgrind: "/bin/true", FakeTime: "/nonexistent/libfaketime.so.1"},
	} {
		_, err := Run(context.Background(), s)
		if !errors.Is(err, ErrNotLocal) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line wrapping ErrNotLocal", s, err)
		}
		t.Log(err)
	}
	for _, s := range []Settings{{Executes: 501}, {Repeats: 11}, {Only: []string{"bigserial"}}, {Only: []string{"uuid"}}} {
		if _, err := Run(context.Background(), s); !errors.Is(err, bench.ErrInvalidSettings) {
			t.Errorf("%+v: %v, want bench.ErrInvalidSettings", s, err)
		}
	}
	if _, err := ParseExtra("x=/nonexistent.sql"); !errors.Is(err, bench.ErrInvalidSettings) {
		t.Errorf("extra of a missing file: %v, want bench.ErrInvalidSettings", err)
	}
}

func TestMain(m *testing.M) { testsrv.Main(m) }
