package words

import "io"

// Writer writes to W and keeps the first write error in Err: after a
// write failed (a full disk, a closed pipe) it writes nothing more and
// returns that error again. A report can write on and look at Err once at
// the end, and its output is cut at a line written whole or in part,
// never resumed past a gap.
type Writer struct {
	W   io.Writer
	Err error
}

// Write writes p to W, or returns Err once a write failed.
func (w *Writer) Write(p []byte) (int, error) {
	if w.Err != nil {
		return 0, w.Err
	}
	n, err := w.W.Write(p)
	w.Err = err
	return n, err
}
