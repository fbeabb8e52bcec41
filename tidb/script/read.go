package script

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// InputError is a script ReadFiles could not take: a file missing or
// unreadable, or gzip data that does not unpack. It is the caller's input
// that is wrong, not the world.
type InputError struct{ msg string }

// Error says which input and what is wrong with it.
func (e *InputError) Error() string { return e.msg }

// ReadFiles reads every named script, or stdin for "-" (named "stdin"),
// before anything is parsed, each decompressed first when it is gzip data
// (mysqldump | gzip, the .sql.gz files packages ship): a script is read as
// published, however it was packed. A file that cannot be read, or gzip
// data that does not unpack, is an *InputError naming it; a failed read
// of stdin is an error of its own.
func ReadFiles(names []string, stdin io.Reader) ([]File, error) {
	out := make([]File, 0, len(names))
	for _, name := range names {
		what, b, err := "stdin", []byte(nil), error(nil)
		if name == "-" {
			if b, err = io.ReadAll(stdin); err != nil {
				return nil, fmt.Errorf("read stdin: %w", err)
			}
		} else {
			what = "input file " + name
			if b, err = os.ReadFile(name); err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					err = pe.Err // the file is named below, once
				}
				return nil, &InputError{fmt.Sprintf("%s: %v (want a readable FILE.sql, or - for stdin)", what, err)}
			}
		}
		text, err := gunzipped(what, b)
		if err != nil {
			return nil, err
		}
		f := File{Name: name, Text: text}
		if name == "-" {
			f.Name = "stdin"
		}
		out = append(out, f)
	}
	return out, nil
}

// gunzipped returns b as text, decompressed first when it is gzip data.
// Corrupt gzip data is an *InputError naming what gave it.
func gunzipped(what string, b []byte) (string, error) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return string(b), nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err == nil {
		var text []byte
		if text, err = io.ReadAll(zr); err == nil {
			return string(text), nil
		}
	}
	return "", &InputError{fmt.Sprintf("%s: gzip data that does not unpack: %v (want a FILE.sql, or a FILE.sql.gz gzip wrote)", what, err)}
}
