// Package inventory reads a PostgreSQL server as the pgfunc stages see it:
// a Server is a pool on one of its databases and the way to reach the
// others (Scope); Read reads, once, every generator and counter a down
// kept in every database of the server the role may connect to, templates
// included, and which databases it could not read (Inventory). Up, Down,
// Status, Grant, Resume and Adopt decide from what it read: a shard id
// held twice, another kind of generator (CheckMixed, MixedAt), a template
// database, unreadable databases (Refusal). Census is the report of it;
// Lock takes the server-wide lock that runs which change generators hold;
// Instance, Mark and Marks tell one running server from a copy of it.
//
// The SQL it runs is in pgfunc's templates (sql/catalog.sql.tmpl), which
// the rendered migration's own checks share.
package inventory
