// Package citus runs the generator on a Citus cluster (docs/citus.md)
// through its coordinator: every logical shard a distributed schema,
// whose next_id() draws, on whichever node runs it, from that node's own
// counter of the shard in the companion schema <schema>_node. The
// counters split the sequence field between nodes by remainder: each node
// group holds a slot of pgfunc.CitusSlots, given once by the slot ledger
// on the coordinator and never reused, and its counters step by
// pgfunc.CitusSlots from it.
//
// Up gives every node group a slot and installs on every node what
// pgfunc.RenderCitusNode and pgfunc.RenderCitusShard render; Survey reads
// every node's counters and names any that could repeat; Grant grants a
// role what it needs on every node; Shards and Meta complete migrate's
// status on a coordinator, whose shard schemas hold no counter. Each
// returns false (or nil) off Citus, where the callers (migrate.Migrator,
// privilege.Grant) go on as on any server.
//
// The statements it runs are its templates (sql/citus.sql.tmpl), parsed
// over pgfunc's.
package citus
