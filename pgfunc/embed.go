package pgfunc

import "embed"

// templateFS holds the PostgreSQL templates (sql/*.sql.tmpl): the shard's
// migration and its checks, the published body, the grant, the resume and
// the catalog queries. Go code renders them; it never pastes SQL together.
//
//go:embed sql/*.sql.tmpl
var templateFS embed.FS
