// Package segment hands out IDs from segments of an allocation table,
// Meituan Leaf's segment mode, on PostgreSQL, MySQL, MariaDB or TiDB
// through database/sql: each client takes a range of a tag's ID space in
// one atomic UPDATE and hands it out from memory, loading the next range
// in the background (Segments). IDs are unique across clients, processes
// and restarts, and increase per client.
//
// One client over database/sql serves every dialect; the application
// links the driver (pgx's stdlib for PostgreSQL, go-sql-driver/mysql for
// MySQL, MariaDB and TiDB). The allocation table comes from Up or
// Migrations (or `shardid segment up`), its tags from EnsureTag. A table
// restored from an older copy is found out and fenced by the clients
// (ErrRewound) until ResumeTag (`shardid segment resume`) moves the tags
// past every ID handed out before.
package segment
