// Package sql holds every SQL text shardid emits, as text/template files
// embedded in the binary: pg/ for PostgreSQL generators, tidb/ for TiDB
// table DDL and bench/ for shardid bench. Go code renders these templates;
// it never builds SQL by pasting strings.
package sql

import "embed"

// PG holds the PostgreSQL templates (pg/*.sql.tmpl).
//
//go:embed pg/*.sql.tmpl
var PG embed.FS

// TiDB holds the TiDB table templates (tidb/*.sql.tmpl): CREATE TABLE per
// strategy, ALTER TABLE, SPLIT TABLE, DROP TABLE and the goose migration
// file around one statement.
//
//go:embed tidb/*.sql.tmpl
var TiDB embed.FS

// Bench holds the statements of shardid bench (bench/*.sql.tmpl): the
// bench's own schemas and tables, the UUID v7 function PostgreSQL users
// write before version 18, the timed queries and inserts, and the TiDB
// tables the tidb package renders per strategy.
//
//go:embed bench/*.sql.tmpl
var Bench embed.FS
