// Package sql holds the SQL texts of the database-backed counters, as
// text/template files embedded in the binary: lease/ for worker-id leases,
// segment/ for the segment allocator, dialect/ for the checks those two
// share and tickets/ for ticket servers. The PostgreSQL generators, the
// TiDB tables and the bench embed theirs beside their code. Go code
// renders these templates; it never builds SQL by pasting strings.
package sql

import "embed"

// Lease holds the worker-id lease templates (lease/*.sql.tmpl), one file per
// dialect family: the lease table's goose migration and the statements that
// acquire, renew, release and list leases.
//
//go:embed lease/*.sql.tmpl
var Lease embed.FS

// Segment holds the segment allocator's templates (segment/*.sql.tmpl):
// the allocation table's goose migration per dialect and the statements
// the allocator runs.
//
//go:embed segment/*.sql.tmpl
var Segment embed.FS

// Dialect holds what the database-backed counters ask of every server
// alike (dialect/*.sql.tmpl): whether its commits are durable.
//
//go:embed dialect/*.sql.tmpl
var Dialect embed.FS

// Tickets holds the ticket server templates (tickets/*.sql.tmpl): a ticket
// table's goose migration, the draw and the read-back of its settings.
//
//go:embed tickets/*.sql.tmpl
var Tickets embed.FS
