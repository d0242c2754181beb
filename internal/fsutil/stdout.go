package fsutil

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
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

// CheckStdout reports ErrStdoutClosed when f (os.Stdout) was closed when
// the process started. The Go runtime replaces a closed standard file
// descriptor by /dev/null opened for reading and writing, where every
// write succeeds; a shell's "> /dev/null" opens it for writing only. So a
// standard output that is /dev/null open for reading and writing was
// closed (or opened with "<> /dev/null", which nobody does to keep the
// output). Any other output, /dev/full included, passes: its writes
// report their own errors.
func CheckStdout(f *os.File) error {
	fd := int(f.Fd())
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return ErrStdoutClosed
	}
	if fl&unix.O_ACCMODE != unix.O_RDWR {
		return nil
	}
	var st, null unix.Stat_t
	if unix.Fstat(fd, &st) != nil || unix.Stat(os.DevNull, &null) != nil {
		return nil
	}
	if st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == null.Rdev {
		return ErrStdoutClosed
	}
	return nil
}
