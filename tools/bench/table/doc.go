// Package table renders the reports of package bench and of its
// instructions mode (tools/bench/instr) as `shardid bench` prints them:
// one type per report, beside where it ran (PG, TiDB, Citus, Instr), whose
// WriteText writes the tables and whose JSON form is the document of
// --json; and Progress, the progress line or bar a run draws on stderr.
//
// Figures are given with three significant digits and a k or M suffix, as
// the median [min–max] over the rounds, each ratio taken within its round;
// the text judges nothing (no goals, no verdicts): it gives the figures and
// how to read them.
package table
