// Package shardid is the dependency-free core of the shardid toolkit: the
// Layout of a 64-bit ID (time, shard and sequence fields), its presets
// (Instagram, Snowflake, JS53), Compose and Decompose, shard lists, an
// application-side Generator for processes that make IDs themselves, and
// Segments, a segment allocator (Meituan Leaf's segment mode) over
// database/sql.
//
// It imports only the standard library and the module's own SQL templates
// (package sql, standard library only itself), so an application that wants
// IDs (or wants to decode the IDs a database made) links nothing else. The
// Generator needs nothing at run time but a clock: it reads time.Now unless
// Settings.Clock says otherwise. Segments needs a database/sql driver that
// the application registers (pgx for PostgreSQL, go-sql-driver/mysql for
// MySQL, MariaDB and TiDB) and the allocation table, created by the
// migration SegmentMigrations renders (applied with goose, or shardid
// segment up). The allocator lives here rather than in a package of its own
// because it is dialect-neutral: one client, over database/sql, serves
// PostgreSQL and the MySQL family, and the application picks the driver.
//
// A Generator needs a node id no other live generator uses. AcquireLease
// leases one from a table in a database the application already runs
// (PostgreSQL, MySQL, MariaDB or TiDB, through database/sql; the
// application links the driver: pgx's stdlib or go-sql-driver/mysql) and
// binds a Generator that stops drawing before its lease could end. That
// needs the lease table (LeaseMigrations, or `shardid worker up`) and the
// database at acquire and every few seconds after.
//
// The database-side generators build on the same Layout: package pgfunc
// renders per-schema PostgreSQL next_id() functions and applies them with
// goose; package tidb renders TiDB tables without write hotspots; package
// tidb/rotate rewrites integer IDs so consecutive ones spread over TiKV
// regions (rotate.Rotate(g.Next())); package tidb/tickets runs Flickr-style
// ticket servers on the MySQL family.
package shardid
