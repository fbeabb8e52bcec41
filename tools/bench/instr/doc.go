// Package instr is the load-independent mode of `shardid bench pg`
// (--instructions): the instructions each INSERT costs, counted by
// valgrind's callgrind in a stand-alone backend (postgres --single) whose
// clock libfaketime freezes, so that a busy machine, a laptop and CI print
// the same table.
//
// Run starts a throwaway server from the local PostgreSQL binaries
// (tools/dbserver), creates a table per DEFAULT (bigserial, a PL/pgSQL
// floor, next_id() and next_id_bulk() of a generator pgfunc.Render
// renders, next_ids(n), and any Extra: a body under design, with the SQL
// that sets it up), stops the server and runs each script on a fresh copy
// of its data. A count is the difference of two scripts over the
// statements they differ by, so the backend's start cancels out: prepared
// and simple single-row INSERTs, the same with every draw taking the
// jump (a clock that moves past the window at every reading), and per row of an INSERT ... SELECT.
//
// It needs valgrind, libfaketime and the PostgreSQL server binaries on
// this machine, and returns ErrNotLocal naming what is missing.
package instr
