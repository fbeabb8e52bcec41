// Package privilege gives an application role exactly what drawing IDs
// from pgfunc's generators needs, takes back anything more, and checks the
// role's effective privileges (Grant), on a Citus coordinator on every
// node through package citus; Dangers lists the privileges any
// role holds that let it break a generator (move a counter back, fake the
// jump bookkeeping, hold a lock jumps wait for). CheckRole validates a
// role name.
package privilege
