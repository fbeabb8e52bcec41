package citus

import (
	"embed"

	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// templateFS holds the statements citus runs (sql/citus.sql.tmpl),
// parsed over pgfunc's templates.
//
//go:embed sql/*.sql.tmpl
var templateFS embed.FS

var templates = sqlt.New(templateFS, "sql/*.sql.tmpl")
