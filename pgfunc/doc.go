// Package pgfunc renders, applies and decodes per-schema PostgreSQL ID
// generators.
//
// A logical shard is a PostgreSQL schema. For each one, pgfunc renders from
// the templates in the sql module directory a sequence, a next_id() function
// and SQL decode helpers (id_timestamp, id_shard, id_seq, min_id), all inside
// that schema, and applies them as a goose migration whose version table
// lives in the same schema, so that pg_dump -n moves a shard together with
// its history and its sequence's high-water mark.
//
// The ID layout is a Layout value (Instagram's 41/13/10 by default, or any
// split shardid.ParseLayout reads, such as time:28@1s,shard:22,seq:13). A
// layout with a route field (time:41,node:6,seq:12,route:4) needs
// ModeUnique, which adds next_id(route), stamping the key's low bits as
// the route, and id_route(id); the classic modes refuse it with
// ErrRouteUnsupported. The
// default generator mode, ModeUnique, never returns the same ID twice for a
// shard; ModeClassic and ModeClassicSQL are the lock-free published design,
// faster but with duplicates past 2^SeqBits IDs per tick (see Mode).
//
// A Migrator looks after the whole server it applies to: every database
// of it, templates included, for shard ids held twice, other kinds of
// generator (Overlap, in package shardid, decides whether two kinds can
// meet) and counters a down kept; the rendered migration repeats the
// checks it can make within its own database, for the stock goose CLI.
//
// Grant gives an application role exactly what drawing IDs needs and
// checks it; Dangers lists the privileges that let a role break a
// generator.
//
// At run time it needs PostgreSQL 14 or later (the SQL functions have
// SQL-standard bodies) and a database/sql PostgreSQL driver.
package pgfunc
