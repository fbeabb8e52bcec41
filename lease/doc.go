// Package lease leases a shardid.Generator's node id (Snowflake's worker
// id) from a table in a database the application already runs:
// PostgreSQL, MySQL, MariaDB or TiDB, through database/sql (the
// application links the driver: pgx's stdlib or go-sql-driver/mysql).
//
// Acquire claims a free node id (the one this Holder had last, else the
// lowest), renews the lease in the background and binds a Generator that
// stops drawing before the lease could end; Close gives the node id back.
// It needs the lease table (Up or Migrations, or `shardid worker up`) and
// the database at acquire and every few seconds after. List shows the
// table; Fence quarantines every node id of it after a restore
// (`shardid worker fence`).
//
// # How a lease fences its generator
//
// The Generator knows nothing of leases. Acquire makes it with
// shardid.NewGenerator and the two fields of shardid.Settings that are the
// core's seam for this:
//
//   - LastDrawn is the node's last_ms from the table: the latest instant
//     an earlier holder of the node id may have drawn at. The generator's
//     first ID is at a later tick, so it is above every ID drawn before.
//   - Fence is the lease's check, which the generator asks before each
//     draw, with its own lock held, giving the clock's reading and its
//     tick. It lets the draw through while the last successful renewal
//     covers both (until TTL-Margin after the renewal was sent, by the
//     monotonic clock, and up to the last tick the table records this
//     holder may draw at) and records the tick; otherwise it returns why
//     not (ErrExpired, ErrLost, ErrClosed), which Next returns as it is.
//
// The lease keeps its state (that deadline and last tick, the highest tick
// drawn at, whether it is lost or closed) under its own mutex. It never
// writes the Generator's fields and never calls the Generator while
// holding that mutex, so the only lock order is the Generator's, then the
// lease's. Close marks the lease closed, so the fence refuses from then
// on, and records the highest tick the fence let through, the latest the
// generator drew at, as the node's last_ms for the next holder.
//
// An application takes the Generator the lease made (Lease.Generator, or
// Lease.Next); a second generator for the node id made with
// shardid.NewGenerator would draw without the fence (Example_generator).
// A process whose node ids come from elsewhere can fence a Generator the
// same way (shardid's ExampleSettings_fence).
package lease
