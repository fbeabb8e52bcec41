package table

import (
	"io"

	"github.com/shardid/shardid/tools/bench/instr"
)

// Instr is a bench pg --instructions run as the CLI shows it: the command
// line that counted and the report. Its JSON form is the document of
// bench pg --instructions --json.
type Instr struct {
	// Command is the command line that measured the report.
	Command string `json:"command"`
	*instr.Report
}

// WriteText writes the report as bench pg --instructions prints it
// (instr.Report.WriteText, under the command line). An Instr without a
// report writes nothing. It returns the write error.
func (in Instr) WriteText(w io.Writer) error {
	if in.Report == nil {
		return nil
	}
	return in.Report.WriteText(w, in.Command)
}
