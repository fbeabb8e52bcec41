package gooseup

import (
	"bytes"
	"io"
	"io/fs"
	"slices"
	"time"
)

// Files is a set of goose migration files, file name → content, all at
// the root: a read-only fs.FS that goose reads rendered migrations from,
// so that no production code links package testing (testing/fstest).
type Files map[string][]byte

// Open opens the file name, or "." for the directory of all files.
func (f Files) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		entries, _ := f.ReadDir(".")
		return &dirFile{entries: entries}, nil
	}
	b, ok := f[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &openFile{Reader: bytes.NewReader(b), info: fileInfo{name: name, size: int64(len(b))}}, nil
}

// ReadDir lists the files of "." in name order.
func (f Files) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		if _, ok := f[name]; ok {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
		}
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(f))
	for n, b := range f {
		out = append(out, fs.FileInfoToDirEntry(fileInfo{name: n, size: int64(len(b))}))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int {
		switch {
		case a.Name() < b.Name():
			return -1
		case a.Name() > b.Name():
			return 1
		}
		return 0
	})
	return out, nil
}

// ReadFile returns a copy of the content of file name.
func (f Files) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	b, ok := f[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(b), nil
}

// fileInfo describes a file of Files, or its directory (name ".").
type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return i.dir }
func (i fileInfo) Sys() any           { return nil }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// openFile is an open file of Files.
type openFile struct {
	*bytes.Reader
	info fileInfo
}

func (f *openFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openFile) Close() error               { return nil }

// dirFile is the open root directory of Files.
type dirFile struct {
	entries []fs.DirEntry
	read    int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return fileInfo{name: ".", dir: true}, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}

// ReadDir returns the next n entries (all that are left when n <= 0).
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	left := d.entries[d.read:]
	if n > 0 && len(left) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(left) {
		left = left[:n]
	}
	d.read += len(left)
	return left, nil
}
