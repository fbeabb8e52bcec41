package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/shardid/shardid/internal/words"
)

// outputWriter is a command's stdout. It remembers the first write that
// failed (a full disk, a closed pipe), so that run reports it whether or
// not the command looked at what its writes returned, and after it writes
// nothing more: the output is cut at a line the command wrote whole or in
// part, never resumed past a gap.
type outputWriter struct{ words.Writer }

// check reports a failed write after the command returned err and exitCode
// printed err and gave code: one more line on stderr and a failing exit
// status, unless err already was the write error. A command's own error
// keeps its exit status.
func (o *outputWriter) check(env *cliEnv, err error, code int) int {
	if o == nil || o.Err == nil || errors.Is(err, o.Err) {
		return code
	}
	why := o.Err
	var pe *os.PathError
	if errors.As(why, &pe) {
		why = pe.Err
	}
	fmt.Fprintf(env.stderr, "shardid: writing output: %s\n", env.line(why.Error()))
	return max(code, 1)
}
