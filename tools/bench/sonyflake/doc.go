// Package sonyflake measures shardid's Generator beside sony/sonyflake v2
// at the same layout (41 bits of 1 ms ticks, 10 machine bits, 12 sequence
// bits), in a module of its own so that sonyflake stays out of shardid's
// go.mod. It holds only a benchmark:
//
//	go test -C tools/bench/sonyflake -run '^$' -bench BesideSonyflake -benchtime 15x .
//
// Each round draws the same number of IDs from each generator, one after
// the other, as fast as one goroutine asks for them, and measures the CPU
// the process spent per ID (getrusage) and the IDs per millisecond of wall
// time against the layout's 4,096; the figures reported are the medians
// over the rounds and the ratios of shardid's to sonyflake's.
package sonyflake
