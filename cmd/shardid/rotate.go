package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/shardid/shardid/tidb/rotate"
)

// runRotate rewrites IDs given as arguments, or streams them from stdin one
// per line, so existing keys can be converted in bulk. Input that is not
// an ID, or has no rotation (a signed ID whose rotation passes
// 9223372036854775807), exits 2 whether it came as an argument or a
// line of stdin; failing to read or write exits 1.
func runRotate(ctx context.Context, env *cliEnv, args []string) error {
	unsignedAsked := false
	for _, a := range args {
		if a == "--" {
			break
		}
		switch a {
		case "-unsigned", "--unsigned", "-unsigned=true", "--unsigned=true":
			unsignedAsked = true
		case "-unsigned=false", "--unsigned=false":
			unsignedAsked = false
		}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if negativeNumber.MatchString(a) {
			if unsignedAsked {
				return usagef("rotate: %s is not an ID (allowed with --unsigned: decimal integers 0-18446744073709551615; IDs are never negative)", a)
			}
			return usagef("rotate: %s is not an ID (allowed: decimal integers 0-9223372036854775807; IDs are never negative)", a)
		}
	}
	fs := newFlagSet(env, "rotate")
	digits := fs.Int("digits", 1, "number of trailing digits to move after the leading digit: 1, 2 or 3 (10, 100 or 1000 key ranges)")
	reverse := fs.Bool("reverse", false, "undo the rotation (rotated ID back to the original)")
	unsigned := fs.Bool("unsigned", false, "IDs of a BIGINT UNSIGNED key: every one of 0-18446744073709551615 has a rotation (a 20-digit ID whose rotation would pass 2^64-1 is rotated again until it fits; --reverse undoes it)")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if *digits < rotate.MinDigits || *digits > rotate.MaxDigits {
		return usagef("rotate: --digits %d (allowed 1, 2 or 3)", *digits)
	}
	conv := rotate.Converter(*unsigned, *reverse)
	allowed := "decimal integers 0-9223372036854775807; --unsigned takes up to 18446744073709551615"
	if *unsigned {
		allowed = "decimal integers 0-18446744073709551615"
	}
	out := bufio.NewWriter(env.stdout)
	defer out.Flush()

	if fs.NArg() > 0 {
		ids := make([]uint64, fs.NArg())
		for i, a := range fs.Args() {
			id, ok := rotate.ParseID(a, *unsigned)
			if !ok {
				return usagef("rotate: argument %d %q is not an ID (allowed: %s)", i+1, a, allowed)
			}
			ids[i] = id
		}
		for i, id := range ids {
			r, err := conv(id, *digits)
			if err != nil {
				return usagef("rotate: argument %d: %v", i+1, err)
			}
			fmt.Fprintln(out, r)
		}
		return out.Flush()
	}

	stdinHint(env, "rotate")
	sc := bufio.NewScanner(env.stdin)
	buf := make([]byte, 0, 32)
	for line := 1; sc.Scan(); line++ {
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue // blank lines carry no ID
		}
		id, ok := rotate.ParseID(text, *unsigned)
		if !ok && line == 1 && isHeader(text) {
			fmt.Fprintln(out, text) // a header line (e.g. "id") passes through
			continue
		}
		if !ok {
			out.Flush()
			return usagef("rotate: stdin line %d: %q is not an ID (allowed: %s)", line, text, allowed)
		}
		r, err := conv(id, *digits)
		if err != nil {
			out.Flush()
			return usagef("rotate: stdin line %d: %v", line, err)
		}
		buf = strconv.AppendUint(buf[:0], r, 10)
		buf = append(buf, '\n')
		if _, err := out.Write(buf); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("stdin: a line is longer than %d bytes: %w", bufio.MaxScanTokenSize, err)
		}
		return fmt.Errorf("stdin: %w", err)
	}
	return out.Flush()
}

// negativeNumber matches an argument like -5, which the flag package would
// take for an unknown flag.
var negativeNumber = regexp.MustCompile(`^-[0-9]+$`)

// isHeader reports a first stdin line that names a column rather than
// holding a number: it starts with a letter.
func isHeader(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] == '_')
}

// stdinHint tells a user at a terminal that the command waits for IDs on
// stdin, instead of waiting without a word.
func stdinHint(env *cliEnv, cmd string) {
	if f, ok := env.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(env.stderr, "shardid %s: reading IDs from the terminal, one per line; end with Ctrl-D (or give IDs as arguments)\n", cmd)
	}
}
