package main

import (
	"bufio"
	"context"
	"strconv"
)

// printIDs streams up to n IDs from next to stdout, one per line, through
// a buffer, and returns how many it printed; it stops early, with the
// error, when next fails or ctx ends.
func printIDs(ctx context.Context, env *cliEnv, n int64, next func(context.Context) (int64, error)) (int64, error) {
	w := bufio.NewWriter(env.stdout) // 4 KiB: a reader sees IDs every ~200 lines
	line := make([]byte, 0, 24)
	var i int64
	for ; i < n; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			break
		}
		id, err := next(ctx)
		if err != nil {
			w.Flush()
			return i, err
		}
		line = append(strconv.AppendInt(line[:0], id, 10), '\n')
		if _, err := w.Write(line); err != nil {
			return i, err
		}
	}
	if err := w.Flush(); err != nil {
		return i, err
	}
	if i < n {
		return i, ctx.Err()
	}
	return i, nil
}
