package table

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/bench/instr"
	"github.com/shardid/shardid/tools/testsrv"
)

// The renderers' text is checked against golden files in testdata (go
// test -update rewrites them): the bytes are the CLI's, so a change shows
// in review as the lines it changes.

// stat is a Stat of median m, range lo to hi.
func stat(m, lo, hi float64) bench.Stat { return bench.Stat{Median: m, Min: lo, Max: hi} }

// testRun is the Run of the reports below.
func testRun() bench.Run {
	return bench.Run{Server: "PostgreSQL 15.20", Settings: bench.Settings{Rounds: 3, Clients: 2, Rows: 5, IDs: 20, Calls: 2000, Batches: 1},
		Machine: bench.Machine{Go: "go1.24", OS: "linux", Arch: "amd64", CPUs: 2, LoadStart: "0.50 0.40 0.30"},
		Started: time.Date(2026, 12, 2, 18, 30, 0, 0, time.FixedZone("CET", 3600)), Seconds: 12.4}
}

// testIDs are the ID rows of the reports below.
var testIDs = []bench.IDRow{{Method: "nextval", PerClient: stat(2e6, 1.5e6, 2.5e6), RoundTripsPer1000: stat(1000, 1000, 1000)},
	{Method: "segments", PerClient: stat(4e6, 3e6, 5e6), VsBase: stat(2, 1.9, 2.1), RoundTripsPer1000: stat(0.5, 0.4, 0.6), Duplicates: 1}}

// testPG is a report of two phases with a peer, CPU read when cpu is set.
func testPG(cpu bool) *bench.PGReport {
	one := stat(1, 1, 1)
	cpuStat := func(v float64) *bench.Stat { s := stat(v, v*0.9, v*1.1); return &s }
	phase := func(protocol, sync string, f float64) bench.PGPhase {
		return bench.PGPhase{Name: protocol + "-" + sync, Protocol: protocol, SynchronousCommit: sync, Keys: []bench.PGInsertRow{
			{Key: "bigserial", RowsPerSecond: stat(15200*f, 14100*f, 15900*f), VsBase: one, CPUPerRow: cpuStat(8200), CPUVsBase: &one},
			{Key: "unique", RowsPerSecond: stat(14000*f, 13000*f, 15000*f), VsBase: stat(0.95, 0.9, 1), DuplicateKeys: 2,
				CPUPerRow: cpuStat(9000), CPUVsBase: cpuStat(1.1), SlowPath: &bench.Stat{Median: 0.021, Min: 0.019, Max: 0.025}},
			{Key: "peer:seq", RowsPerSecond: stat(9000*f, 8000*f, 9500*f), VsBase: stat(2.71, 2.6, 2.8), CPUPerRow: cpuStat(3000), CPUVsBase: cpuStat(0.37)},
		}}
	}
	rep := &bench.PGReport{Run: testRun(),
		Insert: []bench.PGPhase{phase("simple", "off", 1), phase("prepared", "on", 0.1)},
		Planning: []bench.PlanRow{{Key: "bigserial", Micros: stat(12, 11, 13), VsBase: stat(1, 1, 1)},
			{Key: "unique", Micros: stat(13, 12, 14), VsBase: stat(1.08, 1, 1.2)}, {Key: "peer:seq", Micros: stat(40, 30, 50), VsBase: stat(3.3, 3, 4)}},
		CPU: bench.CPUSource{Why: "the server is not on this machine"},
		Cost: []bench.CostRow{{Body: "nextval", NsPerID: stat(250, 240, 260), MustBeUnique: true},
			{Body: "unique", NsPerID: stat(1250, 1200, 1300), VsNextval: stat(5, 4.8, 5.2), MustBeUnique: true},
			{Body: "classic", NsPerID: stat(900, 800, 1000), VsNextval: stat(3.6, 3.2, 4), Duplicates: 3},
			{Body: "peer:seq", NsPerID: stat(260, 250, 270), VsNextval: stat(1.04, 1, 1.1), Duplicates: 1}},
		IDs: testIDs,
	}
	if cpu {
		rep.CPU = bench.CPUSource{Read: true, From: "/proc/PID/stat"}
	}
	rep.Settings.Peers = []bench.Peer{{Name: "seq", Expr: "nextval('theirs')"}}
	return rep
}

// testTiDB is a report of two phases, on unistore when unistore is set.
func testTiDB(unistore bool) *bench.TiDBReport {
	rows := func(f float64) []bench.InsertRow {
		return []bench.InsertRow{{Key: "auto_increment", RowsPerSecond: stat(3000*f, 2900*f, 3100*f), VsBase: stat(1, 1, 1)},
			{Key: "auto_random", RowsPerSecond: stat(3300*f, 3200*f, 3400*f), VsBase: stat(1.1, 1, 1.2), DuplicateKeys: 1},
			{Key: "rotated", RowsPerSecond: stat(3150*f, 3000*f, 3300*f), VsBase: stat(1.05, 1, 1.1)}}
	}
	run := testRun()
	run.Server = "TiDB v8.5.1"
	return &bench.TiDBReport{Run: run, Unistore: unistore,
		Insert: []bench.InsertPhase{{Name: "single", RowsPerStatement: 1, Keys: rows(1)}, {Name: "batch", RowsPerStatement: 100, SynchronousCommit: "on", Keys: rows(30)}},
		Regions: []bench.TableRegions{{Key: "auto_increment", Before: 1, After: 1, Written: 1, Hottest: 1},
			{Key: "auto_random", Before: 1, After: 4, Written: 4, Hottest: 0.31}, {Key: "rotated", Before: 1, After: 3, Written: 3, Hottest: 0.4}},
		IDs: []bench.IDRow{{Method: "auto_increment", PerClient: stat(900, 800, 950), RoundTripsPer1000: stat(1000, 1000, 1000)},
			{Method: "tickets", PerClient: stat(1200, 1100, 1300), VsBase: stat(1.33, 1.2, 1.4), RoundTripsPer1000: stat(1000, 1000, 1000)},
			{Method: "leased", PerClient: stat(5e6, 4e6, 6e6), VsBase: stat(5555, 5000, 6000), RoundTripsPer1000: stat(0.01, 0, 0.02)}},
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// checkText checks what r writes against testdata/name.txt, and that it
// returns a failing writer's error.
func checkText(t *testing.T, name string, write func(w io.Writer) error) {
	t.Helper()
	var b strings.Builder
	if err := write(&b); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	testsrv.CheckGolden(t, filepath.Join("testdata", name+".txt"), []byte(b.String()))
	if err := write(failWriter{}); err == nil || err.Error() != "disk full" {
		t.Errorf("%s on a failing writer: %v, want its error", name, err)
	}
}

// TestPG: the tables of bench pg, with CPU read and not, a peer named
// by its expression, duplicate keys and repeats beside their rows, and
// bigserial (no slow path) left out of the slow-path table.
func TestPG(t *testing.T) {
	checkText(t, "pg", PG{Where: "a throwaway server on 127.0.0.1:5432 (/usr/lib/postgresql/15/bin, fsync on)", PGReport: testPG(true)}.WriteText)
	checkText(t, "pg_nocpu", PG{Where: "postgres://bench:xxxxx@db/x", PGReport: testPG(false)}.WriteText)
}

// TestTiDB: the tables of bench tidb, the regions beside each strategy,
// and the unistore note only when the report ran there.
func TestTiDB(t *testing.T) {
	checkText(t, "tidb_unistore", NewTiDB("a throwaway server on 127.0.0.1:4000", testTiDB(true)).WriteText)
	checkText(t, "tidb", NewTiDB("root:xxxxx@tcp(db:4000)/", testTiDB(false)).WriteText)
	if n := NewTiDB("x", testTiDB(false)).Note; n != "" {
		t.Errorf("note %q off unistore", n)
	}
	if n := NewTiDB("x", testTiDB(true)).Note; n != bench.UnistoreNote {
		t.Errorf("note %q on unistore", n)
	}
	// The --json document: where and the note first, then the report's
	// fields; no note off unistore.
	for unistore, want := range map[bool]string{true: `{"where":"x","note":"One unistore server`, false: `{"where":"x","server":"TiDB v8.5.1",`} {
		if doc, err := json.Marshal(NewTiDB("x", testTiDB(unistore))); err != nil || !strings.HasPrefix(string(doc), want) {
			t.Errorf("JSON on unistore %v: %.80s, %v; want %s…", unistore, doc, err, want)
		}
	}
}

// TestCitus: one line per entry node and protocol, the repeats counted.
func TestCitus(t *testing.T) {
	checkText(t, "citus", Citus{Where: "a throwaway Citus cluster, coordinator on 127.0.0.1:5432 (fsync on)", CitusReport: &bench.CitusReport{
		Settings: bench.Settings{Rounds: 3, Clients: 2, Rows: 5},
		Rows: []bench.CitusRow{{Entry: "coordinator", Protocol: "simple", NextID: 1234.4, Bigserial: 1500, Latency: 1.215},
			{Entry: "worker", Protocol: "prepared", NextID: 20000, Bigserial: 21000, Latency: 1.05}}}}.WriteText)
}

// TestInstr: the instructions table under the command line that
// counted, and the JSON document's command beside the report's fields.
func TestInstr(t *testing.T) {
	in := Instr{Command: "shardid bench pg --instructions", Report: &instr.Report{Server: "PostgreSQL 15.20", Valgrind: "valgrind-3.19.0"}}
	var b strings.Builder
	if err := in.WriteText(&b); err != nil || !strings.HasPrefix(b.String(), "shardid bench pg --instructions\nPostgreSQL 15.20; valgrind-3.19.0 (callgrind); ") {
		t.Errorf("wrote %q, %v", b.String(), err)
	}
	doc, err := json.Marshal(in)
	if err != nil || !strings.HasPrefix(string(doc), `{"command":"shardid bench pg --instructions","server":"PostgreSQL 15.20",`) {
		t.Errorf("JSON %s, %v", doc, err)
	}
}

// TestEmpty: a type without a report writes nothing; an empty report
// writes its headings and empty tables, and does not fail.
func TestEmpty(t *testing.T) {
	for name, write := range map[string]func(w io.Writer) error{
		"PG": PG{}.WriteText, "TiDB": TiDB{}.WriteText, "Citus": Citus{}.WriteText, "Instr": Instr{}.WriteText, "NewTiDB(nil)": NewTiDB("x", nil).WriteText,
	} {
		var b strings.Builder
		if err := write(&b); err != nil || b.Len() != 0 {
			t.Errorf("%s{}: wrote %q, %v; want nothing", name, b.String(), err)
		}
	}
	for name, write := range map[string]func(w io.Writer) error{
		"PG": PG{PGReport: &bench.PGReport{}}.WriteText, "TiDB": TiDB{TiDBReport: &bench.TiDBReport{}}.WriteText, "Citus": Citus{CitusReport: &bench.CitusReport{}}.WriteText,
	} {
		var b strings.Builder
		if err := write(&b); err != nil || !strings.Contains(b.String(), "\n") {
			t.Errorf("empty %s report: wrote %q, %v", name, b.String(), err)
		}
		if name != "Citus" && !strings.Contains(b.String(), "IDs for a client, 0 clients at once") {
			t.Errorf("empty %s report lacks the IDs table:\n%s", name, b.String())
		}
	}
}

// TestProgress: off a terminal, one line per step, numbered to the width
// of the total; its end does nothing. On a terminal, the bar's end
// returns, finished or not, started or not (mpb draws nothing on a buffer,
// so only that is checked).
func TestProgress(t *testing.T) {
	var b strings.Builder
	progress, end := Progress(&b, false)
	progress(bench.Step{Done: 0, Total: 12, Round: 1, Rounds: 2, What: "server-side cost of nextval()"})
	progress(bench.Step{Done: 11, Total: 12, Round: 2, Rounds: 2, What: "IDs from segments"})
	end(true)
	if want := "[ 1/12] round 1/2: server-side cost of nextval()\n[12/12] round 2/2: IDs from segments\n"; b.String() != want {
		t.Errorf("progress lines %q, want %q", b.String(), want)
	}
	for _, finished := range []bool{true, false} {
		progress, end = Progress(io.Discard, true)
		progress(bench.Step{Done: 1, Total: 3, Round: 1, Rounds: 1, What: "INSERT"})
		end(finished)
	}
	_, end = Progress(io.Discard, true)
	end(false) // never started: nothing to end
}
