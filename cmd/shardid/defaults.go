package main

// defaultAppLayout is the layout of the app-side generator and its lease
// table when none is given (idgen's --layout): Snowflake's, which the
// library's zero shardid.Settings and lease.Settings use too, so a Go
// program and `shardid idgen` share one lease table without either
// naming a layout. Its 10-bit node field is sized for leased process
// node ids (1,024 at once, 4,096 IDs per millisecond each). The
// database-side generators (pg, demo) keep instagram, whose 13-bit
// shard field numbers database shards.
const defaultAppLayout = "snowflake"
