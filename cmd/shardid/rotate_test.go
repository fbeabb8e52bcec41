package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb/rotate"
)

// cli runs one command line over buffers.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = run(context.Background(), env, args)
	return code, out.String(), errb.String()
}

func TestRotateArgs(t *testing.T) {
	code, out, errs := cli(t, "", "rotate", "561632371728711680", "561632371728711681", "42")
	if code != 0 || out != "506163237172871168\n516163237172871168\n42\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = cli(t, "", "rotate", "--digits", "2", "--reverse", "581616323717287116")
	if code != 0 || out != "561632371728711681\n" {
		t.Errorf("--digits 2 --reverse: exit %d, stdout %q", code, out)
	}
}

// Stdin streams: every line converted in order, and --reverse brings the
// input back.
func TestRotateStdinRoundTrip(t *testing.T) {
	var in strings.Builder
	var ids []int64
	for i := range 10000 {
		id := int64(561632371724517376 + i*4194304/3)
		ids = append(ids, id)
		in.WriteString(strconv.FormatInt(id, 10))
		if i%7 == 0 {
			in.WriteString("\r") // CRLF files
		}
		in.WriteString("\n")
	}
	for _, k := range []string{"1", "2", "3"} {
		code, out, errs := cli(t, in.String(), "rotate", "--digits", k)
		if code != 0 {
			t.Fatalf("k=%s: exit %d: %s", k, code, errs)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != len(ids) {
			t.Fatalf("k=%s: %d lines out for %d in", k, len(lines), len(ids))
		}
		kk, _ := strconv.Atoi(k)
		for i, l := range lines {
			want, _ := rotate.Rotate(ids[i], kk)
			if l != strconv.FormatInt(want, 10) {
				t.Fatalf("k=%s line %d: %q; want %d", k, i+1, l, want)
			}
		}
		code, back, errs := cli(t, out, "rotate", "--digits", k, "--reverse")
		if code != 0 || back != strings.ReplaceAll(in.String(), "\r", "") {
			t.Fatalf("k=%s: reverse did not restore the input (exit %d, %s)", k, code, errs)
		}
	}
}

func TestRotateBadInput(t *testing.T) {
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stderrIn string
	}{
		{"digits 0", "", []string{"rotate", "--digits", "0", "123"}, 2, "--digits 0 (allowed 1, 2 or 3)"},
		{"digits 4", "", []string{"rotate", "--digits", "4", "123"}, 2, "--digits 4 (allowed 1, 2 or 3)"},
		{"unknown flag", "", []string{"rotate", "--k", "1"}, 2, "rotate: unknown flag -k (see shardid rotate -h)"},
		{"bad argument", "", []string{"rotate", "12", "x1"}, 2, `argument 2 "x1" is not an ID`},
		{"negative argument", "", []string{"rotate", "-5"}, 2, "rotate: -5 is not an ID (allowed: decimal integers 0-9223372036854775807; IDs are never negative)"},
		{"negative after --", "", []string{"rotate", "--", "-5"}, 2, `argument 1 "-5" is not an ID`},
		{"negative unsigned", "", []string{"rotate", "--unsigned", "-1"}, 2, "rotate: -1 is not an ID (allowed with --unsigned: decimal integers 0-18446744073709551615; IDs are never negative)"},
		{"overflow", "", []string{"rotate", "9223372036854775807"}, 2, "argument 1: rotate 9223372036854775807 by 1 digits: result overflows int64"},
		{"bad line", "123456\n654321\nabc\n1\n", []string{"rotate"}, 2, `stdin line 3: "abc" is not an ID`},
		{"header not first", "123456\nid\n", []string{"rotate"}, 2, `stdin line 2: "id" is not an ID`},
		{"overflow line", "1\n9223372036854775807\n", []string{"rotate"}, 2, "stdin line 2: rotate 9223372036854775807 by 1 digits: result overflows int64"},
		{"negative unsigned line", "-1\n", []string{"rotate", "--unsigned"}, 2, `stdin line 1: "-1" is not an ID (allowed: decimal integers 0-18446744073709551615)`},
	}
	for _, tt := range tests {
		code, out, errs := cli(t, tt.stdin, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.stderrIn) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and one line containing %q", tt.name, code, errs, tt.code, tt.stderrIn)
		}
		if tt.name == "bad line" && out != "162345\n615432\n" {
			t.Errorf("bad line: stdout %q; want the two good lines before it", out)
		}
	}
}

// TestRotateStdinHeaderAndBlanks checks that a header line passes through
// and blank lines are skipped instead of stopping the stream.
func TestRotateStdinHeaderAndBlanks(t *testing.T) {
	code, out, errs := cli(t, "id\n123456\n\n654321\n", "rotate")
	if code != 0 || out != "id\n162345\n615432\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestRotateHelp(t *testing.T) {
	code, out, errs := cli(t, "", "rotate", "-h")
	if code != 0 || !strings.Contains(out, "-digits") || !strings.Contains(out, "-reverse") || errs != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestDecodeStdinHeader checks decode skips a header line and blank lines.
func TestDecodeStdinHeader(t *testing.T) {
	code, out, errs := cli(t, "id\n\n0\n", "decode")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "0\t") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestStdinHintOnlyOnATerminal: the hint that a command waits for IDs on
// stdin is for a terminal; /dev/null (a character device, not a
// terminal) gets none.
func TestStdinHintOnlyOnATerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, cmd := range []string{"decode", "rotate"} {
		var out, errb bytes.Buffer
		e := &cliEnv{stdin: null, stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
		if code := run(context.Background(), e, []string{cmd}); code != 0 || errb.Len() != 0 {
			t.Errorf("%s < %s: exit %d, stderr %q; want 0 and nothing", cmd, os.DevNull, code, errb.String())
		}
	}
}

// TestRotateUnsigned rotates BIGINT UNSIGNED IDs above 2^63 and back, and
// checks that without --unsigned they are refused with a hint at it.
func TestRotateUnsigned(t *testing.T) {
	code, out, errs := cli(t, "", "rotate", "--unsigned", "12345678901234567890", "561632371728711681")
	if code != 0 || out != "10234567890123456789\n516163237172871168\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = cli(t, "10234567890123456789\n", "rotate", "--unsigned", "--reverse")
	if code != 0 || out != "12345678901234567890\n" {
		t.Errorf("--reverse: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = cli(t, "", "rotate", "12345678901234567890")
	if code != 2 || !strings.Contains(errs, "--unsigned takes up to 18446744073709551615") {
		t.Errorf("signed: exit %d, stderr %q", code, errs)
	}
	// Every 20-digit ID has a rotation: the trial's stream of consecutive
	// IDs from 17000000000000000000 (which stopped at its ninth line) goes
	// through and back.
	var in strings.Builder
	for i := range uint64(2000) {
		fmt.Fprintln(&in, uint64(17000000000000000000)+i)
	}
	for _, k := range []string{"1", "3"} {
		code, out, errs = cli(t, in.String(), "rotate", "--unsigned", "--digits", k)
		if code != 0 || strings.Count(out, "\n") != 2000 {
			t.Fatalf("--digits %s: 2000 20-digit IDs: exit %d, %d lines out, stderr %q", k, code, strings.Count(out, "\n"), errs)
		}
		code, back, errs := cli(t, out, "rotate", "--unsigned", "--digits", k, "--reverse")
		if code != 0 || back != in.String() {
			t.Fatalf("--digits %s --reverse did not restore the 2000 IDs (exit %d, %s)", k, code, errs)
		}
	}
	code, out, errs = cli(t, "", "rotate", "--unsigned", "--digits", "3", "12345678901234567890", "18446744073709551615")
	if code != 0 || out != "15678902345678901234\n16158446744073709551\n" {
		t.Errorf("walked: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = cli(t, "", "rotate", "--unsigned", "18446744073709551616")
	if code != 2 || !strings.Contains(errs, "0-18446744073709551615") {
		t.Errorf("above uint64: exit %d, stderr %q", code, errs)
	}
}
