package apply

import (
	"bytes"
	"embed"
	"strings"
	"text/template"

	"github.com/shardid/shardid/tidb/script"
)

// templateFS holds the goose migration file around one step and the DROP
// TABLE of a table's Down (sql/*.sql.tmpl).
//
//go:embed sql/*.sql.tmpl
var templateFS embed.FS

// templates are the parsed templates of sql/ beside this file.
var templates = template.Must(template.New("apply").Funcs(template.FuncMap{"ident": script.QuoteIdent}).ParseFS(templateFS, "sql/*.sql.tmpl"))

func execute(name string, data any) (string, error) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	return strings.TrimSpace(buf.String()), nil
}
