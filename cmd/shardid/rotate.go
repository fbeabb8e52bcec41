package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/shardid/shardid/tidb/rotate"
)

// runRotate rewrites IDs given as arguments, or streams them from stdin one
// per line, so existing keys can be converted in bulk. Input that is not
// an ID, or has no rotation (a signed ID whose rotation passes
// 9223372036854775807), exits 2 whether it came as an argument or a
// line of stdin; failing to read or write exits 1.
func runRotate(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "rotate")
	digits := fs.Int("digits", 1, "number of trailing digits to move after the leading digit: 1, 2 or 3 (10, 100 or 1000 key ranges)")
	reverse := fs.Bool("reverse", false, "undo the rotation (rotated ID back to the original)")
	unsigned := fs.Bool("unsigned", false, "IDs of a BIGINT UNSIGNED key: every one of 0-18446744073709551615 has a rotation (a 20-digit ID whose rotation would pass 2^64-1 is rotated again until it fits; --reverse undoes it)")
	flags, negative := splitNegative(args)
	if err := parseFlags(env, fs, flags); err != nil {
		return err
	}
	if len(negative) > 0 {
		return usagef("rotate: %v", rotate.Stream{Unsigned: *unsigned}.Negative(negative[0]))
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

// stdinHint tells a user at a terminal that the command waits for IDs on
// stdin, instead of waiting without a word.
func stdinHint(env *cliEnv, cmd string) {
	if f, ok := env.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(env.stderr, "shardid %s: reading IDs from the terminal, one per line; end with Ctrl-D (or give IDs as arguments)\n", cmd)
	}
}
