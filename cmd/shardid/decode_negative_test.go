package main

import (
	"strings"
	"testing"
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
