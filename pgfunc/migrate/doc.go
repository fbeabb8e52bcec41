// Package migrate applies and removes pgfunc's generators through goose:
// a Migrator (New over a pool, or Open over a DSN, which checks the
// options first) holds one server (an inventory.Server) and the render
// options of the generator it applies. Up installs it in each shard's
// schema, one goose Provider per schema whose version table lives in the
// schema, under the server-wide lock and after reading the whole server
// once; Down and DownInstalled remove it, keeping the counter for the
// next up to carry on from; Status, Survey, Report (all a status shows,
// in one call) and Versions report what is applied. On a Citus coordinator Up and Status go through package citus
// (the generator on every node, docs/citus.md). Each batch returns its pgfunc.Results in the order of the
// shards, with a *pgfunc.PartialError when some failed.
package migrate
