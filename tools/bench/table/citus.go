package table

import (
	"fmt"
	"io"

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/tools/bench"
)

// Citus is a bench pg run on a Citus cluster as the CLI shows it: where
// it ran and the report. Its JSON form is the document of bench pg --json
// on Citus.
type Citus struct {
	// Where names the coordinator measured (its DSN without the
	// password, or the throwaway cluster).
	Where string `json:"where"`
	*bench.CitusReport
}

// NewCitus is rep as measured on where.
func NewCitus(where string, rep *bench.CitusReport) Citus {
	return Citus{Where: where, CitusReport: rep}
}

// WriteText writes the report as bench pg prints it on Citus: what ran
// where, one line per entry node and protocol (rows/s of next_id() and of
// bigserial, and the time per INSERT as a multiple of bigserial's), and
// the IDs that repeated. A Citus without a report writes nothing. It
// returns the first write error.
func (c Citus) WriteText(w io.Writer) error {
	rep := c.CitusReport
	if rep == nil {
		return nil
	}
	ew := &words.Writer{W: w}
	s := rep.Settings
	fmt.Fprintf(ew, "shardid bench pg on Citus: %s\n%d clients × %d single-row INSERTs per table and round, %d rounds (medians)\n\n", c.Where, s.Clients, s.Rows, s.Rounds)
	fmt.Fprintf(ew, "%-12s %-9s %14s %14s %12s\n", "ENTRY", "PROTOCOL", "NEXT_ID ROWS/S", "BIGSERIAL R/S", "× BIGSERIAL")
	for _, r := range rep.Rows {
		fmt.Fprintf(ew, "%-12s %-9s %14.0f %14.0f %11.2fx\n", r.Entry, r.Protocol, r.NextID, r.Bigserial, r.Latency)
	}
	fmt.Fprintf(ew, "\n× bigserial: time per INSERT keyed by DEFAULT next_id() as a multiple of bigserial's in the same round. Repeated IDs: %d\n", rep.Repeats)
	return ew.Err
}
