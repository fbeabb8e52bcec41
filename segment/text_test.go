package segment_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/segment"
)

// TestCheckTagRange: each bad step or start is refused with what is
// allowed, wrapping the sentinel segment up maps to its flag; 0 keeps.
func TestCheckTagRange(t *testing.T) {
	for _, c := range []struct {
		step, start int64
		kind        error
		text        string
	}{
		{0, 0, nil, ""},
		{segment.MaxTagStep, segment.MaxTagStart(segment.MaxTagStep), nil, ""},
		{-1, -1, segment.ErrStepOutOfRange, "-1 is out of range (allowed: 1-1000000000, or 0 to keep)"},
		{segment.MaxTagStep + 1, 0, segment.ErrStepOutOfRange, "1000000001 is out of range"},
		{0, -5, segment.ErrStartOutOfRange, "-5 is out of range (allowed: 1 or more, or 0)"},
		{10, segment.MaxTagStart(10) + 1, segment.ErrStartOutOfRange, "leaves less than one step (10 IDs) below the largest ID; the largest start for step 10 is 9223372036854775798"},
	} {
		err := segment.CheckTagRange(c.step, c.start)
		if c.kind == nil && err != nil || c.kind != nil && (!errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text)) {
			t.Errorf("CheckTagRange(%d, %d) = %v, want %v %q", c.step, c.start, err, c.kind, c.text)
		}
	}
}

// TestWriteText: the lines segment up, status and resume print, from
// values built here (no database), the zero survey included.
func TestWriteText(t *testing.T) {
	var b strings.Builder
	check := func(what string, err error, want ...string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", what, w, b.String())
			}
		}
		b.Reset()
	}
	check("up", segment.UpResult{Table: "ids", Server: "pg", Dialect: "postgres", Applied: true}.WriteText(&b), "allocation table ids on pg (postgres): created\n")
	check("up records", segment.UpResult{Table: "ids", Server: "my", Dialect: "mysql", Records: true}.WriteText(&b), "record table ids_record on my (mysql): already there\n")

	a := segment.Tag{Tag: "orders", Step: 1000, MaxID: 0}
	check("created", segment.Ensured{After: a}.WriteText(&b), "tag orders: created, step 1000, first ID 1\n")
	check("unchanged", segment.Ensured{Before: &a, After: a}.WriteText(&b), "tag orders: already there, unchanged (step 1000, IDs handed out up to 0)\n")
	moved := segment.Tag{Tag: "orders", Step: 50, MaxID: 99}
	check("moved", segment.Ensured{Before: &a, After: moved}.WriteText(&b), "tag orders: step 1000 → 50, IDs handed out up to 0 → 99\n")
	fenced := moved
	fenced.Fenced, fenced.LastRewind = true, segment.Rewind{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Seen: 120, Found: 99}
	if err := (segment.Ensured{After: fenced}).Err(); err == nil || !strings.Contains(err.Error(), "tag orders is FENCED: a client found the table rewound at 2026-01-02T03:04:05Z") {
		t.Errorf("fenced: %v", err)
	}
	if err := (segment.Ensured{After: moved}).Err(); err != nil {
		t.Errorf("not fenced: %v", err)
	}

	check("zero survey", segment.Survey{}.WriteText(&b), "TAG                      HANDED OUT UP TO     STEP       LAST SEGMENT TAKEN\n")
	if err := (segment.Survey{}).Unsafe(); err != nil {
		t.Errorf("zero survey: %v", err)
	}
	sv := segment.Survey{Tags: []segment.Tag{moved, fenced}, Records: map[string]int64{"orders": 150, "gone": 7}}
	check("survey", sv.WriteText(&b),
		fmt.Sprintf("%-24s %-20d %-10d %s\n", "orders", 99, 50, "0001-01-01T00:00:00Z"),
		"  last rewind 2026-01-02T03:04:05Z: a client found the table at 99 after taking IDs up to 120; FENCED",
		"  BELOW ITS RECORD: clients recorded IDs up to 150; the table was restored from an older copy (shardid segment resume --tag orders)\n",
		"gone                     MISSING: created before, clients recorded IDs up to 7; the table was restored from an older copy (shardid segment up --tag gone --start 8 or more)\n")
	if err := sv.Unsafe(); err == nil || err.Error() != "3 tags cannot hand out IDs safely: orders (below its record), orders (fenced, below its record), gone (missing)" {
		t.Errorf("unsafe: %v", err)
	}

	r := segment.TagResult{Tag: "orders", Before: fenced, After: segment.Tag{Tag: "orders", MaxID: 1120}}
	check("resumed", r.WriteText(&b, nil), "tag orders: IDs handed out up to 99 → 1120 (clients reported IDs up to 120); fence lifted; next ID 1121 (to repeat this exactly: --tag orders --to 1121)\n")
	r = segment.TagResult{Tag: "x", Err: errors.New("no\nway")}
	check("failed", r.WriteText(&b, func(s string) string { return strings.ReplaceAll(s, "\n", " | ") }), "tag x: FAILED: no | way\n")
}

// TestResumeNames: the tags to resume, or why there are none.
func TestResumeNames(t *testing.T) {
	if _, err := (segment.Survey{Table: "ids"}).ResumeNames(); err == nil || err.Error() != "allocation table ids holds no tag: nothing to resume" {
		t.Errorf("empty: %v", err)
	}
	denied := errors.New("denied")
	if _, err := (segment.Survey{Tags: []segment.Tag{{Tag: "a"}}, RecordsErr: denied}).ResumeNames(); err != denied {
		t.Errorf("records unread: %v", err)
	}
	if names, err := (segment.Survey{Tags: []segment.Tag{{Tag: "a"}}, Records: map[string]int64{"b": 1}}).ResumeNames(); err != nil || strings.Join(names, ",") != "a,b" {
		t.Errorf("names: %v, %v", names, err)
	}
}
