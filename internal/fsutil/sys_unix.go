//go:build unix

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownerIDs returns the owner and group of a file.
func ownerIDs(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// canWrite checks that this process may write the file at path.
func canWrite(path string) error { return unix.Access(path, unix.W_OK) }

// tryFlock takes an exclusive flock(2) on f without waiting: errHeld when
// another open file holds it.
func tryFlock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errHeld
	}
	return err
}

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
