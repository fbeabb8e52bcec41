// Package tidb renders TiDB tables that do not send every insert to one
// region, and applies them with goose.
//
// TiDB keeps rows in key order, so a table whose key grows (AUTO_INCREMENT,
// Snowflake IDs, the hidden _tidb_rowid) writes every new row into the last
// region of one TiKV store. The package reads the user's own CREATE TABLE
// statements ([Parse], or [ParseScript] for a schema script or mysqldump)
// with TiDB's parser and renders DDL for one of these strategies from the
// templates in sql/tidb:
//
//   - [StrategyAuto] (the default) picks one of the others per table
//     ([Choose]) and says why; [DDL.Warnings] name the hotspots left.
//   - [StrategyShardRowID]: the primary key becomes NONCLUSTERED, rows are
//     keyed by _tidb_rowid, and SHARD_ROW_ID_BITS / PRE_SPLIT_REGIONS scatter
//     it. Works for any key, or none.
//   - [StrategyAutoRandom]: a clustered BIGINT primary key with AUTO_RANDOM
//     (in place of an AUTO_INCREMENT); [DDL.KeyWarnings] name the
//     expressions that read the key, which see its large values.
//   - [StrategyRotatedInt]: a clustered BIGINT primary key whose values the
//     application rotates (tidb/rotate), plus a SPLIT TABLE statement that
//     starts each rotated-digit range in its own region.
//
// TiDB-only clauses are written in the /*T! … */ and /*T![feature] … */
// forms that TiDB itself prints, so the CREATE TABLE statements also run on
// MySQL and MariaDB, which read them as comments. Every option is checked
// against TiDB's own rules before any SQL is rendered ([Options.Validate],
// [Render]); where TiDB would silently clamp a value, the package refuses it.
//
// [Migrations] turns rendered tables into goose migrations, one statement
// per file (TiDB DDL is not transactional); a [Migrator] applies them in
// order over github.com/go-sql-driver/mysql with goose's tidb dialect, and
// refuses (never adopts) a table that already exists.
//
// At run time it needs nothing but a TiDB, MySQL or MariaDB server to apply
// to; rendering needs no server at all.
package tidb
