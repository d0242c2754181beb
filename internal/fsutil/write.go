package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links Resolve follows, as the kernel does.
const maxLinks = 40

// Resolve follows the symbolic links of path to the file they lead to,
// which need not exist (a dangling link resolves to the path it names).
// Writing to the result changes the file the user meant and keeps the
// links. Relative link targets are taken relative to the link's directory.
func Resolve(path string) (string, error) {
	p := path
	for i := 0; i < maxLinks; i++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return p, nil // to be created; its directory is checked there
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
}

// tempPrefix is how the temporary files of WriteAtomic for target begin:
// ".NAME.tmp-", followed by decimal digits. RemoveStaleTemps recognises
// them by this name.
func tempPrefix(target string) string { return "." + filepath.Base(target) + ".tmp-" }

// isTempOf reports whether the file name belongs to a temporary file of
// WriteAtomic for target.
func isTempOf(name, target string) bool {
	rest, ok := strings.CutPrefix(name, tempPrefix(target))
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// createTemp creates a new temporary file for target in its directory,
// with mode perm (less the umask).
func createTemp(target string, perm fs.FileMode) (*os.File, error) {
	dir := filepath.Dir(target)
	for try := 0; ; try++ {
		name := filepath.Join(dir, tempPrefix(target)+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// owner is the mode and owner of an existing file that WriteAtomic keeps.
type owner struct {
	exists   bool
	perm     fs.FileMode
	uid, gid int
}

// resolveOwner resolves path's links (Resolve) and describes the file
// there (ownerOf).
func resolveOwner(path string) (target string, o owner, err error) {
	if target, err = Resolve(path); err != nil {
		return "", owner{}, err
	}
	o, err = ownerOf(target)
	return target, o, err
}

// ownerOf describes the file at target, which must be regular if it
// exists.
func ownerOf(target string) (owner, error) {
	fi, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return owner{}, nil
	}
	if err != nil {
		return owner{}, err
	}
	if !fi.Mode().IsRegular() {
		return owner{}, &NotRegularError{target, kindOf(fi.Mode())}
	}
	o := owner{exists: true, perm: fi.Mode().Perm() | fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), uid: -1, gid: -1}
	if uid, gid, ok := ownerIDs(fi); ok {
		o.uid, o.gid = uid, gid
	}
	return o, nil
}

// match gives the new file f the mode and owner of the old one.
func (o owner) match(f *os.File) error {
	if !o.exists {
		return nil
	}
	if err := f.Chmod(o.perm); err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	uid, gid, ok := ownerIDs(fi)
	if !ok || o.uid < 0 || (uid == o.uid && gid == o.gid) {
		return nil
	}
	if err := f.Chown(o.uid, o.gid); err != nil {
		return fmt.Errorf("cannot keep its owner %d:%d (%w)", o.uid, o.gid, unwrapPath(err))
	}
	// chown may clear the set-id bits: set the mode again.
	return f.Chmod(o.perm)
}

// unwrapPath strips the *fs.PathError around err, whose path the caller's
// message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadOnlyError is returned by CheckWritable for a file that the user
// made read-only (no write permission for anyone), which the program does
// not replace even where it could (as root).
type ReadOnlyError struct {
	Path string
	Perm fs.FileMode
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s is read-only (mode %04o)", e.Path, uint32(e.Perm))
}

// CheckWritable finds out, without changing anything, whether WriteAtomic
// can replace path (following its symbolic links): an existing file must
// be a regular file with write permission (a file with no write bit at
// all is refused even for root: it was made read-only on purpose), and
// its directory must let a new file be created there with the old file's
// owner. It creates and removes a probe file to be sure; the probe is
// named like WriteAtomic's temporary files. The errors name the file and
// say what is wrong.
func CheckWritable(path string) error {
	target, o, err := resolveOwner(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if o.exists {
		if o.perm&0o222 == 0 {
			return &ReadOnlyError{target, o.perm}
		}
		if err := canWrite(target); err != nil {
			return fmt.Errorf("%s cannot be written (%w)", target, err)
		}
	} else {
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("the directory of %s cannot be used (%w)", target, unwrapPath(err))
		}
		if !fi.IsDir() {
			return fmt.Errorf("the directory of %s cannot be used (%w)", target, syscall.ENOTDIR)
		}
	}
	f, err := createTemp(target, 0o600)
	if err != nil {
		return fmt.Errorf("cannot create files in the directory %s of %s (%w)", dir, target, unwrapPath(err))
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := o.match(f); err != nil {
		return fmt.Errorf("%s cannot be replaced: %w", target, err)
	}
	return nil
}

// WriteAtomic replaces the file at path with data so that it holds either
// its old or its new contents whatever happens: it writes a temporary file
// in the same directory, syncs it, renames it over the file and syncs the
// directory. Symbolic links are followed, so a link keeps pointing at the
// file, which is the one replaced. An existing file keeps its mode and its
// owner (an error, before anything is replaced, if the owner cannot be
// kept); a new one gets perm less the umask. A temporary file left by a
// crash is named as RemoveStaleTemps expects.
func WriteAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	target, o, err := resolveOwner(path)
	if err != nil {
		return err
	}
	tmp, err := createTemp(target, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = o.match(tmp); err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	// The rename is durable once the directory is synced. Some file
	// systems cannot sync a directory; the data itself is already safe.
	if d, derr := os.Open(filepath.Dir(target)); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// RemoveStaleTemps removes the temporary files that WriteAtomic left for
// path (after following its links) when the process writing them was
// killed before the rename, and returns their names. Only the caller may
// be writing path: call it while holding the file's Lock.
func RemoveStaleTemps(path string) ([]string, error) {
	target, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Dir(target))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		if !e.Type().IsRegular() || !isTempOf(e.Name(), target) {
			continue
		}
		name := filepath.Join(filepath.Dir(target), e.Name())
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}
