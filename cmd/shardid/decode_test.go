package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tidb/rotate"
)

// TestDecodeNegativeID: a negative number among decode's arguments is an
// ID refused as one (exit 2, "negative id"), not an unknown flag; IDs
// beside it and flags after it are read as usual.
func TestDecodeNegativeID(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"decode", "-1"}, {"decode", "--layout", "js53", "-1"}, {"decode", "-7", "--json"}} {
		code, out, errOut := runCLI(t, "", nil, args...)
		if code != 2 || !strings.Contains(errOut, "negative id") || strings.Contains(errOut, "unknown flag") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 refusing the negative ID", args, code, out, errOut)
		}
	}
	if code, out, errOut := runCLI(t, "", nil, "decode", "--json", "1024"); code != 0 || !strings.Contains(out, `"id":1024`) {
		t.Fatalf("decode --json 1024: exit %d %q %q", code, out, errOut)
	}
}

// TestDecodeWarnsOfFutureIDs: an ID whose time lies further ahead than
// any generator's lead (a rotated ID, say) decodes with a one-line
// warning on stderr, and a "warning" in --json, exit 0; an ID of now and
// one a lead ahead decode without one.
func TestDecodeWarnsOfFutureIDs(t *testing.T) {
	l := shardid.Instagram()
	now, _ := l.Compose(time.Now(), 3, 0)
	ahead, _ := l.Compose(time.Now().Add(futureSlack-time.Minute), 3, 0)
	code, out, errOut := runCLI(t, "", nil, "decode", fmt.Sprint(now), fmt.Sprint(ahead))
	if code != 0 || strings.Count(out, "\n") != 2 || errOut != "" {
		t.Fatalf("IDs of now and within a lead: exit %d\n%s%s", code, out, errOut)
	}
	// The ID of now whose last digit is 9: rotating it puts the 9 second
	// from the top, weeks ahead.
	for seq := int64(1); now%10 != 9; seq++ {
		now, _ = l.Compose(time.Now(), 3, seq)
	}
	rotated, err := rotate.Rotate(now, 1)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", nil, "decode", fmt.Sprint(rotated))
	if code != 0 || strings.Count(out, "\n") != 1 || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, fmt.Sprintf("ID %d: its time is ", rotated)) || !strings.Contains(errOut, "shardid rotate --reverse") {
		t.Fatalf("a rotated ID: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "decode", "--json", fmt.Sprint(rotated))
	var d decoded
	if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &d) != nil || !strings.Contains(d.Warning, "after now") {
		t.Fatalf("a rotated ID, --json: exit %d\n%s%s", code, out, errOut)
	}
}
