// Package resume moves, after a restore, a point-in-time recovery or a
// failover, the counter of every generator in mode unique past anything
// the old server could have handed out (Run), so that the server hands
// out none of the old server's IDs again. It runs on a migrate.Migrator's
// server, under the same server-wide lock as Up.
package resume
