// Package dialect names the SQL family of a database that shardid's
// database-backed counters talk to (worker leases in package lease, Leaf
// segments in package segment, ticket servers in package tickets), asks a
// server which one it is, and holds what those counters ask of every server
// alike: whether it keeps the commits it acknowledged.
//
// The counters speak database/sql only; the application links the driver:
// pgx (github.com/jackc/pgx/v5/stdlib, driver "pgx") for PostgreSQL,
// go-sql-driver/mysql (driver "mysql") for MySQL, MariaDB and TiDB.
//
// The durable-commit check is SQL (sql/commit.sql.tmpl, embedded): the
// fragments Templates adds to a counter's statement templates put it in the
// WHERE of every write that hands out IDs, so a session whose settings
// change after a check is still refused, and CheckCommit runs it on its
// own.
package dialect
