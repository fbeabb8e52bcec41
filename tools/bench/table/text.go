package table

import (
	"fmt"
	"io"
	"strings"

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/tools/bench"
)

// figure formats a rate or count with three significant digits and a k or
// M suffix.
func figure(v float64) string {
	switch {
	case v >= 1e6:
		return trimFloat(v/1e6) + "M"
	case v >= 1e4:
		return trimFloat(v/1e3) + "k"
	}
	return trimFloat(v)
}

// trimFloat prints v with three significant digits (at least the units).
func trimFloat(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// ratio formats a median multiple and its range: "2.71× [2.60–2.80]".
func ratio(s bench.Stat) string {
	return fmt.Sprintf("%s× [%s–%s]", trimFloat(s.Median), trimFloat(s.Min), trimFloat(s.Max))
}

// spreadOf formats a median figure and its range: "15.2k [14.1k–15.9k]".
func spreadOf(s bench.Stat) string {
	return fmt.Sprintf("%s [%s–%s]", figure(s.Median), figure(s.Min), figure(s.Max))
}

// share formats a median share and its range in percent: "2.1% [1.9–2.5]".
func share(s bench.Stat) string {
	return fmt.Sprintf("%s%% [%s–%s]", trimFloat(100*s.Median), trimFloat(100*s.Min), trimFloat(100*s.Max))
}

// writeReport writes what was measured where (cmd, where, r), then body,
// to w, and returns the first write error.
func writeReport(w io.Writer, cmd, where string, r bench.Run, body func(io.Writer)) error {
	ew := &words.Writer{W: w}
	m := r.Machine
	fmt.Fprintf(ew, "shardid bench %s: %s\n", cmd, r.Server)
	fmt.Fprintf(ew, "on %s\n", where)
	fmt.Fprintf(ew, "client %s %s/%s, %d CPUs, load %s before, %s after; %s, %.0fs\n", m.Go, m.OS, m.Arch, m.CPUs, orNone(m.LoadStart), orNone(m.LoadEnd),
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Seconds)
	fmt.Fprintf(ew, "%d rounds, every body once per round in rotating order; median [min–max] over the rounds, each ratio taken within its round\n", r.Settings.Rounds)
	body(ew)
	return ew.Err
}

// orNone is s, or "?" when it is empty (a load not read).
func orNone(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// wrap writes text in lines of at most width characters.
func wrap(w io.Writer, text string, width int) {
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
