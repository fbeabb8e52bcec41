package tidb

import "embed"

// templateFS holds the TiDB table templates (sql/*.sql.tmpl): CREATE TABLE
// per strategy, ALTER TABLE, SPLIT TABLE, DROP TABLE and the goose
// migration file around one statement.
//
//go:embed sql/*.sql.tmpl
var templateFS embed.FS
