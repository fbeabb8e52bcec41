package tidb

import "embed"

// templateFS holds the TiDB table templates (sql/*.sql.tmpl): CREATE TABLE
// per strategy, ALTER TABLE, SPLIT TABLE, FOREIGN KEY, data session, DROP
// of a view or routine, and the by-hand file.
//
//go:embed sql/*.sql.tmpl
var templateFS embed.FS
