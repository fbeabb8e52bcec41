package segment

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/quote"
)

// DefaultTable is the allocation table's name when none is given.
const DefaultTable = "shardid_segments"

// Sentinel errors of the segment allocator and its table; check them with
// errors.Is.
var (
	// ErrInvalidTable is returned when a table name is not [schema.]name
	// with each part a plain lower-case identifier.
	ErrInvalidTable = errors.New("invalid table name")
	// ErrInvalidTag is returned for a tag that is empty, longer than 128
	// bytes, or holds other than letters, digits, _ . : and -.
	ErrInvalidTag = errors.New("invalid segment tag")
	// ErrUnknownTag is returned by New and Segments.Next when the
	// allocation table has no row for the tag.
	ErrUnknownTag = errors.New("unknown segment tag")
	// ErrTagCase is returned by EnsureTag, New and
	// Segments.Next when the allocation table holds the tag spelled with
	// other upper and lower case and finds it by either spelling: a
	// MySQL-family table made without the binary collation of
	// Migrations, where the two spellings would share one counter.
	// Tags compare exactly on every dialect.
	ErrTagCase = errors.New("segment tag differs in case from the table's")
)

// recordSuffix makes the record table's name from the allocation
// table's.
const recordSuffix = "_record"

// RecordTable returns the record table of allocation table table
// (DefaultTable when ""): one row per tag ever created, with the highest
// ID any client recorded taking from it, in a table of its own so that a
// restore of the allocation table alone leaves it. The drawing role needs
// SELECT and UPDATE on it.
func RecordTable(table string) string {
	if table == "" {
		table = DefaultTable
	}
	return table + recordSuffix
}

// historySuffix makes the goose version table's name from the allocation
// table's.
const historySuffix = "_goose_db_version"

// CheckTable returns an error wrapping ErrInvalidTable unless name is
// name or schema.name, each part a lower-case letter or _ then lower-case
// letters, digits and _, not pg_*, the name at most 39 bytes: its record
// table's goose version table (RecordsHistoryTable) appends 24 within
// PostgreSQL's 63. It is the rule every counter's table follows.
func CheckTable(name string) error {
	if err := quote.CheckTable(name, true, len(recordSuffix+historySuffix)); err != nil {
		return fmt.Errorf("%w %q: %v", ErrInvalidTable, name, err)
	}
	return nil
}

var tagRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// CheckTag returns an error wrapping ErrInvalidTag unless tag is 1 to 128
// letters, digits, _ . : or -.
func CheckTag(tag string) error {
	if !tagRE.MatchString(tag) {
		return fmt.Errorf("%w %q: want 1 to 128 letters, digits, _ . : or -", ErrInvalidTag, tag)
	}
	return nil
}

// segmentView is the data of the sql/*.sql.tmpl templates.
type segmentView struct {
	Dialect dialect.Dialect
	Table   string // quoted, possibly schema-qualified
	Record  string // the record table (RecordTable), quoted likewise
	Guard   bool   // alloc refuses a server that may lose acknowledged commits
	// Recorded: alloc also refuses a row below the tag's record (the
	// client could read the record table). Its arg 4 is the tag again.
	Recorded bool
}

//go:embed sql/*.sql.tmpl
var templateFS embed.FS

// segmentTemplates holds the parsed sql/*.sql.tmpl templates twice: with
// PostgreSQL's numbered placeholders and with the MySQL family's "?".
var segmentTemplates = map[bool]*template.Template{
	true:  parseSegmentTemplates(func(n int) string { return fmt.Sprintf("$%d", n) }),
	false: parseSegmentTemplates(func(int) string { return "?" }),
}

func parseSegmentTemplates(arg func(int) string) *template.Template {
	t := template.Must(template.New("segment").Funcs(template.FuncMap{"arg": arg}).ParseFS(templateFS, "sql/*.sql.tmpl"))
	return template.Must(dialect.Templates(t))
}

// render executes one named segment template for v.
func (v segmentView) render(name string) (string, error) {
	var b bytes.Buffer
	if err := segmentTemplates[v.Dialect == dialect.Postgres].ExecuteTemplate(&b, name, v); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// newSegmentView checks the dialect and table name and quotes the name.
func newSegmentView(d dialect.Dialect, table string) (segmentView, error) {
	if table == "" {
		table = DefaultTable
	}
	if _, err := dialect.Parse(string(d)); err != nil {
		return segmentView{}, err
	}
	if err := CheckTable(table); err != nil {
		return segmentView{}, err
	}
	ansi := d == dialect.Postgres
	return segmentView{Dialect: d, Table: quote.Table(table, ansi), Record: quote.Table(RecordTable(table), ansi), Guard: d != dialect.TiDB}, nil
}

// IsZero reports whether r records no rewind.
func (r Rewind) IsZero() bool { return r.Time.IsZero() && r.Seen == 0 && r.Found == 0 }
