package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"

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
	st := rotate.Stream{Digits: *digits, Unsigned: *unsigned, Reverse: *reverse}
	var err error
	if fs.NArg() > 0 {
		err = st.Args(env.stdout, fs.Args())
	} else {
		stdinHint(env, "rotate")
		err = st.Lines(ctx, env.stdin, env.stdout, "stdin")
	}
	var ie *rotate.InputError
	if errors.As(err, &ie) {
		return usagef("rotate: %v", err)
	}
	return err
}

// negativeNumber matches an argument like -5, which the flag package would
// take for an unknown flag.
var negativeNumber = regexp.MustCompile(`^-[0-9]+$`)

// stdinHint tells a user at a terminal that the command waits for IDs on
// stdin, instead of waiting without a word.
func stdinHint(env *cliEnv, cmd string) {
	if f, ok := env.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(env.stderr, "shardid %s: reading IDs from the terminal, one per line; end with Ctrl-D (or give IDs as arguments)\n", cmd)
	}
}
