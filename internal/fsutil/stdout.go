package fsutil

import (
	"errors"
	"io"
)

// ErrWriter passes writes to W and remembers the first that failed:
// after it, every write fails with the same error without writing. A
// command writes its output through one and checks Err before it exits
// with success, so that output lost to a full disk (> /dev/full) or a
// closed pipe is an error, not a silent exit 0.
type ErrWriter struct {
	W   io.Writer
	err error
}

// Write writes p to W unless an earlier write failed.
func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.W.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.err = err
	return n, err
}

// Err returns the first write error, or nil.
func (e *ErrWriter) Err() error { return e.err }

// ErrStdoutClosed says that the process started with its standard output
// closed.
var ErrStdoutClosed = errors.New("standard output is closed; the results would be lost (redirect it to a file, or to /dev/null to discard them)")
