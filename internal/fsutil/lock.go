package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// errHeld is what tryFlock returns when another holds the lock.
var errHeld = errors.New("held")

// Lock is an exclusive lock on a file, held through flock(2) on a lock
// file beside it (the file's name plus ".lock", after following symbolic
// links, so that every link to one file shares its lock). The lock file
// records the holder's PID and host.
//
// The lock belongs to the open lock file, not to its name: the kernel
// drops it when the process ends, however it ends, so a lock file left by
// a crash is stale by construction and the next Lock simply takes it.
// Release removes the lock file while still holding the lock, and Lock
// checks after locking that the name still leads to the file it locked,
// so a run that opened a lock file just before it was removed tries
// again instead of holding a lock nobody else sees.
type Lock struct {
	f    *os.File
	path string
}

// HeldError is returned by Lock when another process (or another Lock in
// this one) holds the lock.
type HeldError struct {
	Path string // the file that is locked
	File string // the lock file
	PID  int    // the holder's process ID, 0 if it could not be read
	Host string // the holder's host name, "" if unknown
}

func (e *HeldError) Error() string {
	who := "another run"
	if e.PID > 0 {
		who += " (PID " + strconv.Itoa(e.PID)
		if h, _ := os.Hostname(); e.Host != "" && e.Host != h {
			who += " on " + e.Host
		}
		who += ")"
	}
	return fmt.Sprintf("%s is in use by %s, which holds the lock %s", e.Path, who, e.File)
}

// LockPath is the lock file of path: its target's name plus ".lock".
func LockPath(path string) (string, error) {
	target, err := Resolve(path)
	if err != nil {
		return "", err
	}
	return target + ".lock", nil
}

// TryLock takes the lock of path without waiting: a *HeldError if it is
// held, another error if the lock file cannot be created or locked.
func TryLock(path string) (*Lock, error) {
	lp, err := LockPath(path)
	if err != nil {
		return nil, err
	}
	for try := 0; try < 100; try++ {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot create the lock file %s (%w)", lp, unwrapPath(err))
		}
		err = tryFlock(f)
		if errors.Is(err, errHeld) {
			pid, host := readHolder(f)
			f.Close()
			return nil, &HeldError{Path: path, File: lp, PID: pid, Host: host}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot lock %s (%w)", lp, err)
		}
		// The name must still lead to the file locked: a holder that
		// released the lock removed it first.
		ofi, err1 := f.Stat()
		nfi, err2 := os.Stat(lp)
		if err1 != nil || err2 != nil || !os.SameFile(ofi, nfi) {
			f.Close()
			continue
		}
		host, _ := os.Hostname()
		info := fmt.Sprintf("%d %s\n", os.Getpid(), host)
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt([]byte(info), 0)
		}
		if err != nil {
			os.Remove(lp)
			f.Close()
			return nil, fmt.Errorf("cannot write the lock file %s (%w)", lp, unwrapPath(err))
		}
		return &Lock{f: f, path: lp}, nil
	}
	return nil, fmt.Errorf("cannot lock %s: it keeps being replaced", lp)
}

// readHolder reads the PID and host that the holder wrote into the lock
// file f. A holder that has just taken the lock may not have written them
// yet, so it looks a few times.
func readHolder(f *os.File) (pid int, host string) {
	for try := 0; try < 20; try++ {
		buf := make([]byte, 300)
		n, _ := f.ReadAt(buf, 0)
		if fields := strings.Fields(string(buf[:n])); len(fields) > 0 {
			if p, err := strconv.Atoi(fields[0]); err == nil && p > 0 {
				if len(fields) > 1 {
					host = fields[1]
				}
				return p, host
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, ""
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Release removes the lock file and drops the lock. It may be called more
// than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
