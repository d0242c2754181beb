// Package fsutiltest describes files and folders for tests that a program
// left a user's files as they were: contents, mode, owner and the target
// of a link.
package fsutiltest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// File is what must not change in a file the user owns. The zero File is
// a file that does not exist.
type File struct {
	Exists   bool
	Data     string // a regular file's contents (up to 1 MiB)
	Mode     fs.FileMode
	UID, GID uint32
	Link     string // a symbolic link's target
}

// StateOf describes the file at path, not following a link.
func StateOf(t testing.TB, path string) File {
	t.Helper()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}
	}
	if err != nil {
		t.Fatal(err)
	}
	f := File{Exists: true, Mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.UID, f.GID = st.Uid, st.Gid
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		f.Link, _ = os.Readlink(path)
	case fi.Mode().IsRegular() && fi.Size() < 1<<20:
		b, _ := os.ReadFile(path)
		f.Data = string(b)
	}
	return f
}

// Names lists the names in dir, separated by spaces, sorted.
func Names(t testing.TB, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range ents {
		s = append(s, e.Name())
	}
	return strings.Join(s, " ")
}

// Tree describes every entry below dir, one line each, sorted: the path
// relative to dir, the type and mode, a link's target, and a regular
// file's size and SHA-256.
func Tree(t testing.TB, dir string) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		line := fmt.Sprintf("%s %v", rel, fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			line += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %d %x", len(data), sha256.Sum256(data))
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
