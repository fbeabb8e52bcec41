package main

import (
	"encoding/json"
	"io"
	"reflect"
)

// jsonFlag defines --json on fs, in the words every command uses.
func jsonFlag(fs *flagSet) *bool {
	return fs.Bool("json", false, "print one JSON document instead of text")
}

// writeJSON writes v as one indented JSON document and a newline: the one
// writer of every command's --json. Nil slices anywhere in v are written
// as [] (a list with nothing in it), never null, so a reader can range
// over every list without checking.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return enc.Encode(nil)
	}
	return enc.Encode(emptyLists(rv).Interface())
}

// emptyLists returns a copy of v in which every nil slice (other than
// bytes), in fields, elements and map values at any depth, is an empty
// one.
func emptyLists(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v // bytes: a base64 string (json.RawMessage: a document), not a list
		}
		if v.IsNil() {
			return reflect.MakeSlice(v.Type(), 0, 0)
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(emptyLists(v.Index(i)))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(emptyLists(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		e := emptyLists(v.Elem())
		out := reflect.New(v.Type()).Elem()
		out.Set(e)
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(emptyLists(v.Field(i)))
			}
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), emptyLists(it.Value()))
		}
		return out
	}
	return v
}

// jsonReport is the --json document of a command that reports state or
// results: what it found or did (rows, one object per shard, server or
// tag), what it noticed (notes), what is wrong (problems: the command's
// error, which also makes it exit non-zero), and its totals. Every list
// is [] when empty. A nil *jsonReport (no --json) ignores every call.
type jsonReport struct {
	Command  string         `json:"command"`
	OK       bool           `json:"ok"`
	Rows     []any          `json:"rows"`
	Notes    []string       `json:"notes"`
	Problems []string       `json:"problems"`
	Totals   map[string]any `json:"totals"`

	out io.Writer // the command's real stdout
}

// startReport returns, when on, a report for the command called name and
// an env whose stdout discards the command's text (its tables and
// progress), so that the JSON document is all it prints; when off, nil
// and env as it is.
func startReport(env *cliEnv, on bool, name string) (*cliEnv, *jsonReport) {
	if !on {
		return env, nil
	}
	r := &jsonReport{Command: name, Totals: map[string]any{}, out: env.stdout}
	e := *env
	e.stdout = io.Discard
	return &e, r
}

// row adds one row.
func (r *jsonReport) row(v any) {
	if r != nil {
		r.Rows = append(r.Rows, v)
	}
}

// note adds one note.
func (r *jsonReport) note(s string) {
	if r != nil {
		r.Notes = append(r.Notes, s)
	}
}

// total sets one total.
func (r *jsonReport) total(name string, v any) {
	if r != nil {
		r.Totals[name] = v
	}
}

// totals sets the totals m holds (a result's Totals).
func (r *jsonReport) totals(m map[string]any) {
	for k, v := range m {
		r.total(k, v)
	}
}

// finish writes the document, with err (the command's outcome, scrubbed
// of env's secrets) as its problem, and returns err: the exit status and
// the one line on stderr stay what they are without --json.
func (r *jsonReport) finish(env *cliEnv, err error) error {
	if r == nil {
		return err
	}
	r.OK = err == nil
	if err != nil {
		r.Problems = append(r.Problems, env.line(err.Error()))
	}
	if werr := writeJSON(r.out, r); werr != nil && err == nil {
		return werr
	}
	return err
}
