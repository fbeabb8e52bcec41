package table

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/shardid/shardid/tools/bench"
)

// TiDB is a bench tidb run as the CLI shows it: where it ran, the note on
// unistore when it applies, and the report. Its JSON form is the
// document of bench tidb --json.
type TiDB struct {
	// Where names the server measured (its DSN without the password, or
	// the throwaway server).
	Where string `json:"where"`
	// Note is bench.UnistoreNote when the server stores on unistore (see
	// NewTiDB); empty, no note is written.
	Note string `json:"note,omitempty"`
	*bench.TiDBReport
}

// NewTiDB is rep as measured on where, with the unistore note when rep
// ran on unistore.
func NewTiDB(where string, rep *bench.TiDBReport) TiDB {
	t := TiDB{Where: where, TiDBReport: rep}
	if rep != nil && rep.Unistore {
		t.Note = bench.UnistoreNote
	}
	return t
}

// tidbKeyNames name the TiDB tables' strategies.
var tidbKeyNames = map[string]string{
	"auto_increment": "AUTO_INCREMENT",
	"auto_random":    "AUTO_RANDOM",
	"shard_row_id":   "SHARD_ROW_ID_BITS",
	"snowflake":      "Snowflake IDs (app-side)",
	"rotated":        "Snowflake IDs rotated (k=1)",
}

// WriteText writes the report as bench tidb prints it: what ran where,
// the INSERT rates per strategy beside the regions the rows went to, the
// note (wrapped at 100 characters), the IDs a client gets per method and
// how to compare them. A TiDB without a report writes nothing. It returns
// the first write error.
func (t TiDB) WriteText(w io.Writer) error {
	if t.TiDBReport == nil {
		return nil
	}
	return writeReport(w, "tidb", t.Where, t.Run, t.writeTables)
}

// writeTables writes the tables of WriteText, after its header.
func (t TiDB) writeTables(ew io.Writer) {
	rep := t.TiDBReport
	regions := map[string]string{}
	for _, r := range rep.Regions {
		regions[r.Key] = fmt.Sprintf("%d of %d\t%.0f%%", r.Written, r.After, 100*r.Hottest)
	}
	writeInserts(ew, fmt.Sprintf("INSERT, %d clients at once, rows per statement (each its own transaction) per column:\nrows/s for %s, then each table × that; the regions that took the rows (and NONCLUSTERED key entries) over the run", rep.Settings.Clients, tidbKeyNames[firstKey(rep.Insert)]),
		rep.Insert, tidbKeyNames, regions)
	if t.Note != "" {
		fmt.Fprintln(ew)
		wrap(ew, t.Note, 100)
	}
	writeIDRows(ew, rep.Settings, rep.IDs)
	fmt.Fprintln(ew, "\nOther work on the machine widens the ranges; compare ratios, not rates, across machines.")
}

// firstKey is the key of the first phase's first row, the baseline; ""
// when there is none.
func firstKey(phases []bench.InsertPhase) string {
	if len(phases) == 0 || len(phases[0].Keys) == 0 {
		return ""
	}
	return phases[0].Keys[0].Key
}

// writeInserts writes one row per key and a column per phase: the
// baseline's rows/s, the others' multiples of it; extra, when set, adds
// tab-separated columns per key (headed REGIONS WRITTEN, HOTTEST).
func writeInserts(w io.Writer, title string, phases []bench.InsertPhase, names, extra map[string]string) {
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "KEY")
	for _, ph := range phases {
		col := fmt.Sprintf("%d ROWS", ph.RowsPerStatement)
		if ph.RowsPerStatement == 1 {
			col = "1 ROW"
		}
		if ph.SynchronousCommit != "" {
			col += ", SYNC " + strings.ToUpper(ph.SynchronousCommit)
		}
		fmt.Fprintf(tw, "\t%s", col)
	}
	fmt.Fprint(tw, "\tDUPLICATE KEYS")
	if extra != nil {
		fmt.Fprint(tw, "\tREGIONS WRITTEN\tHOTTEST")
	}
	fmt.Fprintln(tw)
	if len(phases) > 0 {
		for i, k := range phases[0].Keys {
			fmt.Fprint(tw, names[k.Key])
			var dups int64
			for _, ph := range phases {
				row := ph.Keys[i]
				dups += row.DuplicateKeys
				if i == 0 {
					fmt.Fprintf(tw, "\t%s/s", spreadOf(row.RowsPerSecond))
				} else {
					fmt.Fprintf(tw, "\t%s", ratio(row.VsBase))
				}
			}
			fmt.Fprintf(tw, "\t%d", dups)
			if extra != nil {
				fmt.Fprintf(tw, "\t%s", extra[k.Key])
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
}
