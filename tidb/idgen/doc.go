// Package idgen makes Snowflake-style IDs in the application, for TiDB
// tables with an integer primary key (TiDB has no stored functions to make
// them in the database).
//
// A Generator packs the time in ticks since the layout's epoch, a node id
// and a per-tick sequence into one int64, following a pgfunc.Layout (the
// same type that drives the PostgreSQL generators and decoders; Snowflake's
// 41/10/12 by default). When the sequence runs out within a tick it waits
// for the next tick. When the clock steps back by at most MaxBackwardStep it
// waits twice the step and tries again; a bigger step is an error naming
// the offset (Meituan Leaf's policy).
//
// Such IDs arrive in key order and make one hot region in TiKV. Setting
// Settings.RotateDigits rewrites each ID with rotate.Rotate before it is
// returned, so consecutive IDs land in 10^k key ranges; Generator.Decompose
// undoes the rotation before taking an ID apart.
//
// All configuration lives in the Settings value: the clock and the sleep
// function are fields, so tests drive time without sleeping.
package idgen
