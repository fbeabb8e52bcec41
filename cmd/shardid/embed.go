package main

import "embed"

// demoFS holds the demo's statements (sql/demo.sql.tmpl): its schema and
// table, the inserts, the rows it reads back, the burst it counts and the
// drop at the end.
//
//go:embed sql/demo.sql.tmpl
var demoFS embed.FS
