// Package pgfunc renders per-schema PostgreSQL ID generators: the options
// and modes of a generator, the metadata it records, and the goose
// migration that installs it (Render, Files); and it holds what the
// packages that apply them share: the per-shard Result of a batch
// operation, the one PartialError a batch returns when some shards failed
// while the others' results stand, and the sentinel errors a shard is
// refused with.
//
// A logical shard is a PostgreSQL schema. For each one, pgfunc renders from
// the templates in the sql module directory a sequence, a next_id() function
// and SQL decode helpers (id_timestamp, id_shard, id_seq, min_id), all inside
// that schema, as a goose migration whose version table lives in the same
// schema, so that pg_dump -n moves a shard together with its history and
// its sequence's high-water mark.
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
// Options.Validate says, in one line, why options do not render.
//
// The stages that run generators on a server are packages of their own,
// each reading the server once through package inventory and passing what
// it read on:
//
//   - inventory reads a server: every generator, kept counter and
//     database of it (Server.Read, Census, Discover), and takes the
//     server-wide lock;
//   - migrate applies and removes generators through goose (migrate.Migrator.Up,
//     Down, DownInstalled) and reports them (Status, Survey, Versions);
//   - privilege grants an application role exactly what drawing IDs needs
//     (Grant) and lists what lets a role break a generator (Dangers);
//   - resume moves counters past what an old server handed out, after a
//     restore or a failover (Run);
//   - adopt replaces a next_id() shardid did not make by shardid's (Run);
//   - citus runs the generator on a Citus cluster through its coordinator
//     (Up, Survey, Grant), installing on every node what RenderCitusNode
//     and RenderCitusShard render; migrate and privilege call into it;
//   - fleet runs them over a map of servers.
//
// At run time it needs PostgreSQL 14 or later (the SQL functions have
// SQL-standard bodies) and a database/sql PostgreSQL driver.
package pgfunc
