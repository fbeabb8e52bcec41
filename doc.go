// Package shardid is the dependency-free core of the shardid toolkit: the
// Layout of a 64-bit ID (time, shard and sequence fields, and optionally a
// route field), its presets (Instagram, Snowflake, JS53) and spec grammar
// (ParseLayout), Compose and Decompose, shard lists and their overlaps, and
// an application-side Generator for processes that make IDs themselves.
//
// It imports only the standard library, and neither database/sql nor os,
// so an application that wants IDs (or wants to decode the IDs a database
// made) links nothing else. The Generator needs nothing at run time but a
// clock: it reads time.Now unless Settings.Clock says otherwise. What
// keeps IDs in a database lives in packages of its own: lease (node ids
// leased from a table), segment (Meituan Leaf's segments), tickets
// (Flickr's ticket servers), pgfunc and tidb.
//
// # Fencing a generator
//
// A Generator needs a node id no other live generator uses, and it cannot
// know on its own whether it still has one. Two fields of Settings are the
// seam through which whatever hands out node ids keeps that promise, as
// sonyflake's Settings.MachineID and CheckMachineID are its:
//
//   - LastDrawn is the latest instant an earlier holder of the node id may
//     have drawn at; the generator's first ID is at a later tick, so it is
//     above every ID drawn before;
//   - Fence is asked before every draw, with the generator's lock held,
//     with the clock's reading and its tick; nil lets the draw through, an
//     error refuses it and Next returns that error as it is. The highest
//     tick a Fence let through is the latest the generator drew at, which
//     the supplier records for the next holder.
//
// The Generator holds no reference to the supplier, and the supplier
// never touches the Generator's state: it keeps its own, under its own
// lock, taken inside the Generator's. Package lease supplies both from a
// table in a database the application already runs (lease.Acquire builds
// the Generator; Lease.Generator hands it out); a process whose node ids
// come from elsewhere (a StatefulSet ordinal checked against etcd, say)
// can supply its own (ExampleSettings_fence).
//
// # Layouts
//
// A Layout is written as a spec: the form ParseLayout reads and
// Layout.String writes, and what the CLI's --layout, SHARDID_LAYOUT and the
// shard map's layout key take. It is a preset name, or the field widths
// from the top with the time unit and, optionally, the epoch:
//
//	instagram                                  a preset: instagram (pg's default), snowflake (the
//	                                           Generator's and leases' default), js53
//	snowflake,epoch=2019-01-01T00:00:00Z       a preset with another epoch
//	time:41,shard:13,seq:10                    ticks of 1 ms (the default unit) since DefaultEpoch
//	time:28@1s,node:22,seq:13                  ticks of 1 s; node is another name for shard
//	time:37@10ms,shard:8,seq:8,epoch=1546300800000
//	time:41,node:6,seq:12,route:4,epoch=0      4 route bits below the sequence
//
// The fields come in the order time, shard (or node: one field, which
// String calls shard), seq, then the optional route; each is at least 1
// bit wide and together they take at most 64 bits (a 64-bit split gives
// the time field's top bit to the sign, as Instagram's does). The unit is
// a whole number of milliseconds from 1ms to 1s, what the SQL generators
// count in. The epoch, RFC 3339 or Unix milliseconds, comes last, and is
// neither before 1970 nor in the future. A preset prints as its name (the
// shortest spec that says it, and what its users typed), anything else as
// its fields; the epoch follows only when it is not DefaultEpoch.
// ParseLayout refuses anything else in one line naming the part at fault
// and what is allowed.
//
// A route field holds a key's low bits, so an ID can be routed by itself
// to where its key lives: Generator.NextFor(uid) puts uid mod 2^RouteBits
// there, and RouteOf(id) == RouteOf(uid). The route labels IDs and adds
// none: a generator's 2^SeqBits IDs per tick are shared by every route, so
// a layout that makes room for route bits takes them from the time, shard
// or sequence widths it would otherwise have (the order-ID spec above has
// 4 route bits where Snowflake has 4 more node bits). Package pgfunc's
// mode unique fills it with next_id(route) and reads it with
// id_route(id); its classic modes refuse such a layout
// (pgfunc.ErrRouteUnsupported).
//
// # Which layout
//
// How many IDs one shard makes per tick and per second before its
// generator waits for (or, in pgfunc's mode unique, borrows) the next
// tick, how many shards there are, how long the time field lasts from
// DefaultEpoch, whether every ID is exact as a JavaScript Number, and the
// routes; docs/layouts.md has the same table (TestLayoutTable keeps both):
//
//	layout                         tick  IDs/tick/shard  IDs/s/shard  shards     range        ≤ 2^53-1  routes
//	instagram                      1ms   1,024           1,024,000    8,192      34.8 years   no        —
//	snowflake                      1ms   4,096           4,096,000    1,024      69.7 years   no        —
//	js53                           10ms  256             25,600       256        43.6 years   yes       —
//	time:32@1s,shard:8,seq:12      1s    4,096           4,096        256        136.1 years  yes       —
//	time:28@1s,node:22,seq:13      1s    8,192           8,192        4,194,304  8.5 years    no        —
//	time:41,node:6,seq:12,route:4  1ms   4,096           4,096,000    64         69.7 years   no        16
//
// The database-side generators build on the same Layout: package pgfunc
// renders per-schema PostgreSQL next_id() functions and applies them with
// goose; package tidb renders TiDB tables without write hotspots; package
// tidb/rotate rewrites integer IDs so consecutive ones spread over TiKV
// regions: rotate.Rotate(id, 1) of each id that g.Next returns, as
// Example_rotate shows. Package lease leases a Generator's node id from
// PostgreSQL, MySQL, MariaDB or TiDB; package segment hands out IDs from
// segments of an allocation table there (Meituan Leaf's segment mode);
// package tickets runs Flickr-style ticket servers on the MySQL family;
// package dialect holds what those three share.
package shardid
