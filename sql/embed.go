// Package sql holds every SQL text shardid emits, as text/template files
// embedded in the binary: pg/ for PostgreSQL generators and tidb/ for TiDB
// table DDL. Go code renders these templates; it never builds SQL by
// pasting strings.
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
