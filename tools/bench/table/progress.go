package table

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/shardid/shardid/tools/bench"
)

// Progress returns a bench.Settings.Progress (instr.Settings' too) that
// draws a bar on w when terminal is true (w is a terminal: the caller
// knows) and writes a line per step otherwise, "[ 3/40] round 1/2: what",
// and the function that ends it: the bar full when the run finished, left
// where it stopped otherwise. Call end once, after the run; the lines need
// no end, and write errors are not reported (progress is not the result).
func Progress(w io.Writer, terminal bool) (progress func(bench.Step), end func(finished bool)) {
	if !terminal {
		return func(s bench.Step) {
			fmt.Fprintf(w, "[%*d/%d] round %d/%d: %s\n", len(fmt.Sprint(s.Total)), s.Done+1, s.Total, s.Round, s.Rounds, s.What)
		}, func(bool) {}
	}
	var p *mpb.Progress
	var bar *mpb.Bar
	var total int64
	var what atomic.Value
	what.Store("")
	return func(s bench.Step) {
			if p == nil {
				total = int64(s.Total)
				p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(30))
				bar = p.AddBar(total,
					mpb.PrependDecorators(decor.CountersNoUnit("%d/%d", decor.WCSyncSpace), decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace)),
					mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return what.Load().(string) })))
			}
			what.Store(fmt.Sprintf("round %d/%d: %s", s.Round, s.Rounds, s.What))
			bar.SetCurrent(int64(s.Done))
		}, func(finished bool) {
			if p == nil {
				return
			}
			if finished {
				what.Store("done")
				bar.SetCurrent(total)
			} else {
				bar.Abort(false)
			}
			p.Wait()
		}
}
