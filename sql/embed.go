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
