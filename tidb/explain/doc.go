// Package explain says a tidb.Plan in words: what shardid tidb render
// prints on stderr beside the statements (one line per table, the
// strategy chosen and why, then the notes: what changed, what it costs,
// the hotspots left), and the JSON document tidb render --json prints
// instead.
//
// The package only reads a plan; rendering one is package tidb's work
// (tidb.RenderScript).
package explain
