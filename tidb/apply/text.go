package apply

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/internal/words"
)

// UpReport is what Up returned, as shardid tidb up prints it.
type UpReport struct {
	// Results are Up's results, one per migration.
	Results []Result
	// Stopped leaves the summary line out: Up stopped at an error, which
	// says how far it got. False, the zero value, writes it.
	Stopped bool
}

// WriteText writes r as shardid tidb up prints it: a line per migration
// (OK with its duration, SKIP for a TiDB-only statement recorded without
// running, - for one applied before), then, unless r.Stopped, a count
// of each. It returns the first write error.
func (r UpReport) WriteText(w io.Writer) error {
	var b bytes.Buffer
	for _, res := range r.Results {
		switch res.State() {
		case "skipped":
			fmt.Fprintf(&b, "SKIP  %s (TiDB-only statement, recorded without running: the server is not TiDB)\n", res.Migration.Name)
		case "applied":
			fmt.Fprintf(&b, "OK    %s (%s)\n", res.Migration.Name, res.Duration.Round(1e6))
		default:
			fmt.Fprintf(&b, "-     %s (already applied)\n", res.Migration.Name)
		}
	}
	applied, skipped := UpCount(r.Results)
	n := len(r.Results)
	switch {
	case r.Stopped:
	case applied+skipped == 0:
		fmt.Fprintf(&b, "no migrations to apply (%d already applied)\n", n)
	default:
		fmt.Fprintf(&b, "%d %s: %d applied, %d skipped (TiDB only), %d already applied\n",
			n, words.Plural(n, "migration", "migrations"), applied, skipped, n-applied-skipped)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// StatusReport is what Verify returned, as shardid tidb status prints it.
type StatusReport []Status

// WriteText writes r as shardid tidb status prints it: a line per
// migration (its state, DRIFT and FULL in capitals, when it was applied,
// its name, whether it is TiDB only), under it what drifted, which
// tables are full and what was not checked. It returns the first write
// error.
func (r StatusReport) WriteText(w io.Writer) error {
	var b bytes.Buffer
	for _, s := range r {
		state, at := s.State(), "-"
		if s.Applied {
			at = s.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
		}
		if state == "drift" || state == "full" {
			state = strings.ToUpper(state)
		}
		only := ""
		switch {
		case s.Skipped:
			only = " (TiDB only: recorded without running, the server is not TiDB)"
		case s.Migration.TiDBOnly:
			only = " (TiDB only)"
		}
		fmt.Fprintf(&b, "%-8s %-21s %s%s\n", state, at, s.Migration.Name, only)
		for _, d := range s.Drift {
			fmt.Fprintf(&b, "%-8s %-21s   drift: %s\n", "", "", d)
		}
		for _, d := range s.Full {
			fmt.Fprintf(&b, "%-8s %-21s   full: %s\n", "", "", d)
		}
		for _, d := range s.Unchecked {
			fmt.Fprintf(&b, "%-8s %-21s   not checked: %s\n", "", "", d)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Written is what WriteDir did in a directory.
type Written struct {
	// Dir is the directory.
	Dir string
	// Written and Unchanged are the files written and those already
	// there with the same content, in name order.
	Written, Unchanged []string
}

// WriteDir writes the migrations as files into dir (created if missing),
// keeping the files already there with the same content; force
// overwrites those whose content differs. It returns what it did and
// internal/gooseup.Write's errors.
func WriteDir(dir string, ms []Migration, force bool) (Written, error) {
	res, err := gooseup.Write(dir, Files(ms), force)
	return Written{Dir: dir, Written: res.Written, Unchanged: res.Unchanged}, err
}

// WriteText writes r as shardid tidb gen prints it: a line per file,
// written or unchanged, then the counts and how to apply them. It returns
// the first write error.
func (r Written) WriteText(w io.Writer) error {
	var b bytes.Buffer
	for _, n := range r.Written {
		fmt.Fprintln(&b, "wrote     "+n)
	}
	for _, n := range r.Unchanged {
		fmt.Fprintln(&b, "unchanged "+n)
	}
	fmt.Fprintf(&b, "%d written, %d unchanged in %s; apply with: shardid tidb up --dir %s (or goose -dir %s tidb \"$SHARDID_TIDB_DSN\" up)\n",
		len(r.Written), len(r.Unchanged), r.Dir, r.Dir, r.Dir)
	_, err := w.Write(b.Bytes())
	return err
}
