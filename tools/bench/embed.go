package bench

import (
	"embed"
)

// templateFS holds the statements of shardid bench (sql/*.sql.tmpl): the
// bench's own schemas and tables, the UUID v7 function PostgreSQL users
// write before version 18, the timed queries and inserts, and the TiDB
// tables the tidb package renders per strategy.
//
//go:embed sql/*.sql.tmpl
var templateFS embed.FS
