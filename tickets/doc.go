// Package tickets runs Flickr-style ticket servers on MySQL, MariaDB and
// TiDB: every server holds a one-row ticket table per name, draws add the
// server's increment to the row in one autocommit UPDATE, and N servers
// with the same increment and distinct offsets hand out disjoint residue
// classes, so any of them can fail while the others go on.
//
// Two things differ from the published design, each measured on the real
// servers the tests start:
//
//   - The row carries its server's increment and offset and the draw adds
//     the increment itself (UPDATE … SET id = LAST_INSERT_ID(id +
//     increment)), so the guarantee never rests on the server variables
//     auto_increment_increment/offset: any client may change them for its
//     session, and on MySQL and MariaDB a SET GLOBAL is lost at the next
//     restart unless the configuration file says the same, after which the
//     server's AUTO_INCREMENT values fall into another server's class.
//   - REPLACE INTO deletes and re-inserts the row, taking locks on both of
//     the table's indexes; under concurrent draws on InnoDB it waits on
//     locks and deadlocks (see the package benchmarks). The single-row
//     UPDATE by primary key neither deadlocks nor needs the AUTO_INCREMENT
//     lock, and returns the new value in the OK packet: one round trip.
//
// On TiDB the same table works; TiDB's own fit, a SEQUENCE (KindSequence),
// draws without writing a row per ticket. The residue check still holds:
// the client verifies every ticket against its server's class.
//
// A server's data can go back: a data directory replaced by an older copy,
// a dump reloaded, a backup restored. Its counter then hands out again the
// tickets it handed out since that copy. The Client remembers the highest
// ticket it drew from each server and records it, every second, in a class
// table (ClassTable) on every server of the name; a server that hands out a
// ticket not above that, or stands below the record, is left out
// (ErrRewound), the ticket discarded, the rewind reported in the class
// tables for every client and shardid tickets status to see, until Resume
// (shardid tickets resume) moves its counter past what it could have
// handed out.
//
// A server that hangs (a stuck disk, a stopped process) costs a call at
// most its budget before the call goes on to the next server; the budget
// adapts to how fast the server has been answering, so a server slowed by
// load goes on being waited for (Settings.Budget). Afterwards only
// one caller at a time probes a failed server, with a backoff doubling up
// to a second. Every decision of when is timed on the monotonic clock; a
// step of the wall clock is reported. Settings.OnEvent reports
// failovers, servers down, up and slow, rewinds, sequence gaps and clock
// steps; Client.Stats counts them.
//
// It is MySQL-family only: its SQL (LAST_INSERT_ID(expr), backquoted
// names, information_schema, TiDB sequences) has no PostgreSQL form.
// PostgreSQL users have package pgfunc and the segment allocator, package
// segment.
//
// At run time it needs a database/sql MySQL driver registered by the
// application (github.com/go-sql-driver/mysql), one *sql.DB per server, and
// a ticket table (or TiDB sequence) and its class table on each, created by
// Up (shardid tickets up) through goose with a version table of its own
// per name (or by the migrations of Migrations in a goose directory of
// your own). The role that draws needs SELECT, UPDATE on the ticket table (or
// SELECT on the sequence) and SELECT, INSERT, UPDATE on the class table.
package tickets
