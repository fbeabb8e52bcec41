package gooseup

import (
	"bytes"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Files is an in-memory fs.FS of rendered migration files, file name →
// content, all at its root: what the counters' Migrations return (lease,
// segment, tickets), for a goose Provider or a migration directory. Names
// are plain file names; only "." is a directory.
type Files map[string][]byte

// Open opens name: "." (the root directory) or a file at the root.
func (f Files) Open(name string) (fs.File, error) {
	if name == "." {
		return &dir{files: f}, nil
	}
	data, ok := f[name]
	if !ok || !fs.ValidPath(name) || strings.Contains(name, "/") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &file{entry: entry{name: name, size: int64(len(data))}, r: bytes.NewReader(data)}, nil
}

// ReadFile returns a copy of name's content.
func (f Files) ReadFile(name string) ([]byte, error) {
	data, ok := f[name]
	if !ok || strings.Contains(name, "/") {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(data), nil
}

// ReadDir lists the root, sorted by name.
func (f Files) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return f.entries(), nil
}

func (f Files) entries() []fs.DirEntry {
	out := make([]fs.DirEntry, 0, len(f))
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range f {
			if !yield(name) {
				return
			}
		}
	}) {
		out = append(out, entry{name: name, size: int64(len(f[name]))})
	}
	return out
}

// entry is a file's fs.FileInfo and fs.DirEntry, or the root's.
type entry struct {
	name  string
	size  int64
	isDir bool
}

func (e entry) Name() string { return e.name }
func (e entry) Size() int64  { return e.size }
func (e entry) Mode() fs.FileMode {
	if e.isDir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (e entry) ModTime() time.Time         { return time.Time{} }
func (e entry) IsDir() bool                { return e.isDir }
func (e entry) Sys() any                   { return nil }
func (e entry) Type() fs.FileMode          { return e.Mode().Type() }
func (e entry) Info() (fs.FileInfo, error) { return e, nil }

// file is an open file of Files.
type file struct {
	entry
	r *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.entry, nil }
func (f *file) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *file) Close() error               { return nil }

// dir is the open root of Files.
type dir struct {
	files Files
	list  []fs.DirEntry // what ReadDir has yet to return; nil before the first call
	read  bool
}

func (d *dir) Stat() (fs.FileInfo, error) { return entry{name: ".", isDir: true}, nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (d *dir) Close() error { return nil }

// ReadDir returns the next n entries (all that are left for n <= 0).
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		d.list, d.read = d.files.entries(), true
	}
	if n <= 0 {
		out := d.list
		d.list = nil
		return out, nil
	}
	if len(d.list) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.list))
	out := d.list[:n]
	d.list = d.list[n:]
	return out, nil
}
