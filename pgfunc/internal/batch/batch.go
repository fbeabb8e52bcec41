// Package batch runs one step for every shard of a batch operation, a few
// at a time, and collects the pgfunc.Result of each.
package batch

import (
	"fmt"
	"sync"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// DefaultParallel is how many shards a batch runs at once unless its
// caller says otherwise (migrate.DefaultParallel).
const DefaultParallel = 4

// Run runs do for every shard, parallel at a time (each schema has its own
// goose lock, so they do not wait for one another), calls each (if not
// nil) as shards finish, one call at a time, and returns the results in
// the order of shards; do also says why nothing was applied ("current"
// when it says nothing).
func Run(parallel int, shards []pgfunc.Shard, each func(pgfunc.Result), do func(pgfunc.Shard) (bool, string, error)) []pgfunc.Result {
	out := make([]pgfunc.Result, len(shards))
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range min(parallel, len(shards)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sh := shards[i]
				start := time.Now()
				applied, note, err := do(sh)
				if err != nil {
					err = fmt.Errorf("schema %s: %w", sh.Schema, err)
				} else if !applied && note == "" {
					note = "current"
				}
				out[i] = pgfunc.Result{Shard: sh, Applied: applied, Note: note, Duration: time.Since(start), Err: err}
				if each != nil {
					mu.Lock()
					each(out[i])
					mu.Unlock()
				}
			}
		}()
	}
	for i := range shards {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Schemas lists the shards' schemas.
func Schemas(shards []pgfunc.Shard) []string {
	out := make([]string, len(shards))
	for i, sh := range shards {
		out[i] = sh.Schema
	}
	return out
}
