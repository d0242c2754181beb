// Package fsutil handles the files a long run reads and writes on the
// user's behalf so that none of them is changed unless the user asked for
// it, and no input can make the program hang or grow without bound:
//
//   - ReadRegular reads at most a stated number of bytes, and only from a
//     regular file (never a FIFO, a device or a directory).
//   - CheckWritable finds out before any work whether a file can be
//     replaced the way WriteAtomic replaces it.
//   - WriteAtomic replaces a file through its symbolic links, keeping its
//     mode and owner, by a temporary file that is synced and renamed.
//   - RemoveStaleTemps removes the temporary files of an earlier run that
//     was killed between writing and renaming.
//   - Lock takes an exclusive lock beside a file and names its holder.
//   - ErrWriter and CheckStdout make a lost write to stdout an error.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is returned for a path that exists but is not a
// regular file (after following symbolic links).
type NotRegularError struct {
	Path string
	Kind string // "a directory", "a named pipe (FIFO)", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// TooLargeError is returned for a file longer than the most its reader
// accepts.
type TooLargeError struct {
	Path string
	Size int64 // the size found (at least Max+1 when it grew while read)
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most it can be", e.Path, FormatBytes(e.Max))
}

// kindOf names the type of a file that is not regular.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a plain file"
}

// OpenRegular opens path for reading if it is a regular file of at most
// max bytes; symbolic links are followed. It never blocks on a FIFO: the
// type is checked before the open, the open does not wait for a writer,
// and the type is checked again on the open file. The caller must still
// read at most max bytes, as the file may grow (ReadRegular does).
func OpenRegular(path string, max int64) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{path, kindOf(fi.Mode())}
	}
	if fi.Size() > max {
		return nil, &TooLargeError{path, fi.Size(), max}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	ofi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !ofi.Mode().IsRegular() {
		// Replaced between the two checks.
		f.Close()
		return nil, &NotRegularError{path, kindOf(ofi.Mode())}
	}
	return f, nil
}

// ReadRegular reads the regular file at path, which must hold at most max
// bytes: a *NotRegularError for anything else (a directory, a FIFO, a
// device such as /dev/zero), a *TooLargeError for a longer file or one
// that grows past max while it is read. At most max+1 bytes are read.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(LimitReader(f, path, max))
	if err != nil {
		return nil, err
	}
	return data, nil
}

// LimitReader returns a reader of r that fails with a *TooLargeError
// naming path once more than max bytes come from r.
func LimitReader(r io.Reader, path string, max int64) io.Reader {
	return &limitReader{r: r, path: path, left: max, max: max}
}

type limitReader struct {
	r    io.Reader
	path string
	left int64
	max  int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &TooLargeError{l.path, l.max + 1, l.max}
	}
	// Read one byte more than allowed to tell "exactly max" from "more".
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), &TooLargeError{l.path, l.max + 1, l.max}
	}
	return n, err
}

// FormatBytes writes n bytes in the largest binary unit that keeps it
// exact to one decimal, such as "512 B", "64.0 KiB" or "180.5 MiB".
func FormatBytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
}

// IsNotRegular reports whether err is or wraps a *NotRegularError.
func IsNotRegular(err error) bool {
	var e *NotRegularError
	return errors.As(err, &e)
}

// IsTooLarge reports whether err is or wraps a *TooLargeError.
func IsTooLarge(err error) bool {
	var e *TooLargeError
	return errors.As(err, &e)
}
