package instr

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/testsrv"
)

// testReport is a report of three rows: bigserial, next_id with jumps
// counted, and an extra with no per-row count.
func testReport() *Report {
	count := func(m, vs, spread float64, jumps int64) *Count {
		return &Count{Instructions: bench.Stat{Median: m, Min: m * 0.999, Max: m * 1.001}, Spread: spread, VsBase: vs, SlowPath: jumps}
	}
	return &Report{Server: "PostgreSQL 15.20", Valgrind: "valgrind-3.19.0", Settings: Settings{Executes: 50, Repeats: 2},
		Started: time.Date(2026, 12, 2, 15, 36, 0, 0, time.UTC), Seconds: 80,
		Rows: []Row{
			{Name: "bigserial", Default: "nextval('t_id_seq')", Prepared: count(40000, 1, 0.0001, -1), Jumping: count(40100, 1, 0, -1), Simple: count(90000, 1, 0.0002, -1), PerRow: count(9000, 1, 0, -1)},
			{Name: "next_id", Default: "shardid.next_id()", Prepared: count(95461, 2.39, 0.00002, 0), Jumping: count(140000, 3.49, 0.001, 50), Simple: count(150000, 1.67, 0.0003, 0), PerRow: count(60000, 6.67, 0, 0)},
			{Name: "extra:x", Default: "x.f()", Prepared: count(50000, 1.25, 0.02, -1)},
		}}
}

// TestWriteText: the table as bench pg --instructions prints it (golden
// testdata/text.txt; -update rewrites it): a missing count as "-", the
// jumps beside a count that took them, the largest spread of a row; a
// report without rows writes the head alone; a write error is returned.
func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := testReport().WriteText(&b, "shardid bench pg --instructions"); err != nil {
		t.Fatal(err)
	}
	testsrv.CheckGolden(t, filepath.Join("testdata", "text.txt"), b.Bytes())
	b.Reset()
	if err := (&Report{}).WriteText(&b, "cmd"); err != nil || !strings.HasSuffix(b.String(), "SPREAD\n") {
		t.Errorf("empty report: %v, wrote\n%s", err, b.String())
	}
	if err := testReport().WriteText(failWriter{}, "cmd"); err == nil || err.Error() != "disk full" {
		t.Errorf("on a failing writer: %v, want its error", err)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
