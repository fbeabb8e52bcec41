// Package adopt replaces a next_id() that shardid did not make (Instagram's
// published PL/pgSQL body, or bigserial-like keys) by shardid's generator
// for the same layout, epoch and shard id (Run): it parses the old body
// (the parser touches no database), infers the layout from its constants,
// checks it against the IDs stored, and switches in one transaction per
// schema, with Up's server-wide checks. Its statements are in
// sql/adopt.sql.tmpl beside it.
package adopt
