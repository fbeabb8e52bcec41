// Package fleet runs PostgreSQL shard generators across many servers from
// one shard map, and proves the invariant that keeps their IDs unique:
// each logical shard id lives in exactly one schema on exactly one server,
// with one layout, epoch and mode everywhere.
//
// A Map is read from a TOML file an operator writes by hand (see Parse for
// its keys). Up, Status and Down run a migrate.Migrator on every server of
// the map at once, schemas within a server with bounded concurrency; a
// server that is down or fails does not stop the others, and a rerun
// finishes the rest. Verify reads every server back, every database on
// each that the role may connect to, and reports each place where the
// live servers break the invariant or differ from the map. Map entries are
// told apart by the running server that answers, not by its data
// directory's system identifier, which a copy keeps: a clone of a mapped
// server is refused by Up and reported by Verify, a standby is reported
// and never counted as a place a shard lives.
//
// At run time it needs the PostgreSQL servers of the map, reached through
// pgx (github.com/jackc/pgx/v5); DSNs may come from environment variables
// so that passwords stay out of the map file, and no error or report ever
// shows a password.
package fleet
