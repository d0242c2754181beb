//go:build !unix

package fsutil

import (
	"io/fs"
	"os"
)

// ownerIDs: files have no Unix owner here.
func ownerIDs(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// canWrite: the write itself finds out.
func canWrite(string) error { return nil }

// tryFlock: no flock here; the lock file only records the holder.
func tryFlock(*os.File) error { return nil }

// CheckStdout: the check of a closed standard output is for Unix.
func CheckStdout(*os.File) error { return nil }
