// Package tidb renders TiDB tables that do not send every insert to one
// region, and applies them with goose.
//
// TiDB keeps rows in key order, so a table whose key grows (AUTO_INCREMENT,
// Snowflake IDs, the hidden _tidb_rowid) writes every new row into the last
// region of one TiKV store. The package reads the user's own CREATE TABLE
// statements ([Parse], or [ParseScript] for a schema script or mysqldump)
// with TiDB's parser and renders DDL for one of these strategies from the
// templates in sql/:
//
//   - [StrategyAuto] (the default) picks one of the others per table
//     ([Choose]) and says why; [DDL.Warnings] name the hotspots left.
//   - [StrategyShardRowID]: the primary key becomes NONCLUSTERED, rows are
//     keyed by _tidb_rowid, and SHARD_ROW_ID_BITS / PRE_SPLIT_REGIONS scatter
//     it. Works for any key, or none.
//   - [StrategyAutoRandom]: a clustered BIGINT primary key with AUTO_RANDOM
//     (in place of an AUTO_INCREMENT; an INT or MEDIUMINT key is widened
//     to BIGINT, with the columns of a script that hold it, unless
//     [Options.NoWiden]); [DDL.KeyWarnings] name the expressions that read
//     the key, which see its large values.
//   - [StrategyRotatedInt]: a clustered BIGINT primary key whose values the
//     application rotates (tidb/rotate), plus a SPLIT TABLE statement that
//     starts each rotated-digit range in its own region.
//
// TiDB-only clauses are written in the /*T! … */ and /*T![feature] … */
// forms that TiDB itself prints, so the CREATE TABLE statements also run on
// MariaDB, which reads them as comments and reads the /*M! AUTO_INCREMENT */
// an AUTO_RANDOM key keeps for it; MySQL reads neither, so [TargetMySQL]
// renders its own text ([Target]). Every option is checked against TiDB's
// own rules before any SQL is rendered ([Options.Validate], [Render]); where
// TiDB would silently clamp a value, the package refuses it, and a table
// whose IDs start past the room its shard bits leave (an AUTO_INCREMENT=N,
// the keys of a script's data) gets another rendering or is refused
// ([ErrNoRoom]), so that it takes the inserts the input takes. [DDL.Costs]
// say what a rendering costs the table's readers (keys that stop rising in
// insert order, values past 2^53), [DDL.Warnings] the hotspots left.
//
// [ParseScripts] reads whole schema scripts and dumps; [RenderScript]
// renders every table (steered one by one with [TableSpec]), the FOREIGN
// KEYs that close cycles, the data, views and routines for a target, and
// lists what only a user can apply ([Plan.ByHandText]). [Plan.Migrations]
// (or [Migrations] for tables alone) turns the result into goose
// migrations, one DDL statement per file (TiDB DDL is not transactional),
// data in one transaction a file; a [Migrator] applies them in order over
// github.com/go-sql-driver/mysql with goose's tidb dialect, refuses (never
// adopts) a table that already exists, refuses files rendered for another
// server and collations the server lacks before anything runs, and
// [Migrator.Verify] reports where the server drifted from what was
// applied. Every statement written for a server to run, other than a
// routine's own text, is read back by TiDB's parser.
//
// At run time it needs nothing but a TiDB, MySQL or MariaDB server to apply
// to; rendering needs no server at all.
package tidb
