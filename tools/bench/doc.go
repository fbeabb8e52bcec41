// Package bench measures every ID generator shardid offers side by side on
// one server, against what the server has natively, for `shardid bench`:
//
//   - RunPG: single-row INSERTs into tables keyed by bigserial and by a
//     DEFAULT of each next_id() mode (next_id_bulk() too), UUID v4 and v7
//     and any SQL expression the user adds (Peer), with the simple query
//     protocol and prepared statements, synchronous_commit off and on:
//     rows per second, the server processes' CPU time per row (read from
//     /proc when the server runs on this machine), the share of rows whose
//     draw took mode unique's slow path (its jump counters), and the time
//     to plan each INSERT (EXPLAIN (SUMMARY ON)); the server-side cost per
//     ID of nextval(), next_id(), next_id_bulk(), next_ids(n), the classic
//     modes, Instagram's published body, the UUIDs and the peers; and IDs
//     per client and round trips per 1,000 IDs of segments and a leased
//     app-side generator against nextval().
//   - RunTiDB: INSERT throughput and the regions the writes touched for
//     AUTO_INCREMENT, AUTO_RANDOM, SHARD_ROW_ID_BITS and rotated Snowflake
//     keys (tables rendered by package tidb), and tickets, segments and a
//     leased generator against an AUTO_INCREMENT insert.
//
// Every round runs every body once, in an order that rotates from round to
// round, and each ratio is taken within a round, so load that comes and goes
// on the machine hits the baseline and the others alike; a report gives the
// median and the range over the rounds. Every ID drawn is checked for
// repeats, and a generator that must never repeat one (mode unique, the
// native sequences, segments, tickets, leased generators, UUIDs) makes the
// run fail with ErrDuplicates after the report is complete.
//
// At run time it needs the server to measure: PostgreSQL 13 or later
// (gen_random_uuid), or TiDB. It works only in schemas (PostgreSQL) or a
// database (TiDB) it creates itself, refuses to start when one of them
// already exists, and drops them when it ends, also when it fails or is
// cancelled. The role needs the right to create schemas (a database on
// TiDB); nothing else on the server is read or written, apart from the
// catalog lookups migrate.Migrator makes to keep shard ids unique.
package bench
