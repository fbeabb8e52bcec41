// Package sqlt holds what the pgfunc packages share to run SQL: the
// template set pgfunc/sql parses (its catalog, checks, grant and resume
// templates define names the others call), each stage package's own
// templates parsed over it, and the quoting of identifiers and literals
// that every rendered statement uses. Go code renders templates; it never
// pastes SQL together.
package sqlt

import (
	"fmt"
	"github.com/shardid/shardid/internal/quote"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"text/template"
)

// base is pgfunc's template set, registered by pgfunc when it loads.
var (
	baseMu sync.Mutex
	base   *template.Template
)

// SetBase registers t as the set every Set parses its own templates over
// and Query renders from; pgfunc calls it once, as it loads.
func SetBase(t *template.Template) {
	baseMu.Lock()
	defer baseMu.Unlock()
	base = t
}

// Query renders the named template of the base set.
func Query(name string, data any) (string, error) {
	baseMu.Lock()
	t := base
	baseMu.Unlock()
	if t == nil {
		return "", fmt.Errorf("render %s query: no templates registered", name)
	}
	return execute(t, name, data)
}

// Set is a stage package's templates (its sql/*.sql.tmpl) parsed over the
// base set, so that they may call the names it defines.
type Set struct {
	fsys    fs.FS
	pattern string
	once    sync.Once
	t       *template.Template
	err     error
}

// New returns the Set of the files of fsys matching pattern; they are
// parsed on first use, over the base set.
func New(fsys fs.FS, pattern string) *Set { return &Set{fsys: fsys, pattern: pattern} }

// Query renders the named template of the set.
func (s *Set) Query(name string, data any) (string, error) {
	s.once.Do(func() {
		baseMu.Lock()
		b := base
		baseMu.Unlock()
		if b == nil {
			s.err = fmt.Errorf("no base templates registered")
			return
		}
		t, err := b.Clone()
		if err == nil {
			t, err = t.ParseFS(s.fsys, s.pattern)
		}
		s.t, s.err = t, err
	})
	if s.err != nil {
		return "", fmt.Errorf("render %s query: %w", name, s.err)
	}
	return execute(s.t, name, data)
}

func execute(t *template.Template, name string, data any) (string, error) {
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s query: %w", name, err)
	}
	return b.String(), nil
}

// Ident quotes a PostgreSQL identifier.
func Ident(s string) string { return quote.Ident(s, true) }

// Literal quotes a PostgreSQL string literal (standard_conforming_strings on).
func Literal(s string) string { return quote.Literal(s) }

// JumpName is the name of shard id's jump function, next_id()'s slow path.
// It carries the shard id because next_id()'s body names it and PostgreSQL
// resolves a function name by looking through every function of that name
// in every schema: with one name shared by 8,192 shards, creating each
// next_id() cost a scan of all the others (12 ms a shard at 4,000 shards),
// while a shard id is unique on a server.
func JumpName(shard int64) string { return "next_id_jump_" + strconv.FormatInt(shard, 10) }

// ReserveName is the name of shard id's reservation, next_ids()'s one
// step; it carries the shard id for the reason JumpName does.
func ReserveName(shard int64) string { return "next_id_reserve_" + strconv.FormatInt(shard, 10) }
