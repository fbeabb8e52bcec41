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

// emptyLists returns a copy of v in which every nil slice, in fields,
// elements and map values at any depth, is an empty one.
func emptyLists(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
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
