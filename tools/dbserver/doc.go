// Package dbserver starts throwaway database servers from the binaries
// installed on the machine, for tests, benchmarks and the demo, and does to
// them what operators and machines do to production servers:
//
//   - PostgreSQL (StartPG): initdb'd in a fresh temporary directory, with
//     base backups, restores, clones and streaming standbys (pg.go,
//     pg_clone.go, pg_replica.go);
//   - MariaDB (StartMariaDB): Debian's mariadb-server, with crashes, pauses,
//     data directories copied and put back, dumps reloaded
//     (mariadb.go, mariadb_fault.go);
//   - TiDB (StartTiDB, StartTiDBOnDisk): TiDB's own tidb-server with its
//     embedded unistore engine (tidb.go, tidb_ondisk.go);
//   - Citus (StartCitus): a coordinator and workers, each a PostgreSQL of
//     StartPG's kind with the Citus extension preloaded, every database
//     made on it a Citus cluster of its own, with nodes added, drained,
//     removed and pointed at a restored copy (citus.go);
//   - one table dumped and restored with the database's own tools, the
//     way an operator restores a table from an older backup (TakeTable,
//     RestoreTable in tabledump.go);
//   - what the harnesses share: free ports, processes, waiting for a MySQL
//     server to answer (proc.go).
//
// Every server listens on a free loopback port and is removed with its
// directory by Stop. Nothing is mocked: callers talk to real servers.
// Tests get shared servers through tools/testsrv, which starts them on
// first use; this package imports no package of the module, so every test
// may use it.
package dbserver
