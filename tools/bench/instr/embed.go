package instr

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// templateFS holds the statements of the instruction count
// (sql/instr.sql.tmpl): its tables, the floor, and the lines of the
// stand-alone backend's scripts.
//
//go:embed sql/*.sql.tmpl
var templateFS embed.FS

// templates are the parsed statements.
var templates = template.Must(template.ParseFS(templateFS, "sql/*.sql.tmpl"))

// render executes the named statement template; a failure names it.
func render(name string, data any) (string, error) {
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}
