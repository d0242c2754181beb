package fsutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil/fsutiltest"
)

// child makes the test binary act as a helper process: FSUTIL_TEST_CHILD
// names what it does with the arguments after "--".
const child = "FSUTIL_TEST_CHILD"

func TestMain(m *testing.M) {
	if what := os.Getenv(child); what != "" {
		os.Exit(runChild(what, os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

func runChild(what, arg string) int {
	switch what {
	case "lock": // hold the lock of arg until killed
		l, err := TryLock(arg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("locked", l.Path())
		os.Stdout.Sync()
		time.Sleep(time.Minute)
	case "stdout": // say what CheckStdout thinks of our stdout
		err := CheckStdout(os.Stdout)
		fmt.Fprintf(os.Stderr, "stdout: %v\n", err)
	case "checkwritable": // CheckWritable and WriteAtomic on arg
		fmt.Fprintf(os.Stderr, "check: %v\n", CheckWritable(arg))
		fmt.Fprintf(os.Stderr, "write: %v\n", WriteAtomic(arg, []byte("new\n"), 0o644))
	}
	return 0
}

// helper starts the test binary as a child doing what with arg.
func helper(what, arg string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", arg)
	cmd.Env = append(os.Environ(), child+"="+what)
	return cmd
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("0123456789"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink("small", link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		max        int64
		want       string // contents, or the error's text
		check      func(error) bool
	}{
		{"regular", small, 100, "0123456789", nil},
		{"exactly max", small, 10, "0123456789", nil},
		{"one byte over", small, 9, small + " is larger than 9 B, the most it can be", IsTooLarge},
		{"through a link", link, 10, "0123456789", nil},
		{"directory", dir, 10, dir + " is a directory, not a regular file", IsNotRegular},
		{"FIFO", fifo, 10, fifo + " is a named pipe (FIFO), not a regular file", IsNotRegular},
		{"/dev/zero", "/dev/zero", 1 << 20, "/dev/zero is a character device, not a regular file", IsNotRegular},
		{"missing", filepath.Join(dir, "nope"), 10, "no such file or directory", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() { data, err = ReadRegular(tt.path, tt.max); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadRegular hangs")
			}
			if tt.check == nil {
				if err != nil || string(data) != tt.want {
					t.Errorf("got %q, %v; want %q", data, err, tt.want)
				}
				return
			}
			if err == nil || !tt.check(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// A reader that grows past the limit while read fails at the limit.
func TestLimitReader(t *testing.T) {
	for _, tt := range []struct {
		size, max int64
		fail      bool
	}{{0, 0, false}, {5, 5, false}, {6, 5, true}, {1 << 20, 100, true}, {100, 1 << 20, false}} {
		data, err := io.ReadAll(LimitReader(io.LimitReader(zeros{}, tt.size), "f", tt.max))
		if tt.fail != IsTooLarge(err) || (!tt.fail && (err != nil || int64(len(data)) != tt.size)) || int64(len(data)) > tt.max {
			t.Errorf("size %d max %d: %d bytes, %v", tt.size, tt.max, len(data), err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "f"), nil, 0o644)
	os.Symlink("sub/f", filepath.Join(dir, "rel"))
	os.Symlink(filepath.Join(dir, "rel"), filepath.Join(dir, "chain"))
	os.Symlink("sub/missing", filepath.Join(dir, "dangling"))
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	for _, tt := range []struct{ path, want string }{
		{"sub/f", "sub/f"}, {"rel", "sub/f"}, {"chain", "sub/f"}, {"dangling", "sub/missing"}, {"new", "new"},
	} {
		got, err := Resolve(filepath.Join(dir, tt.path))
		if err != nil || got != filepath.Join(dir, tt.want) {
			t.Errorf("%s: %q, %v", tt.path, got, err)
		}
	}
	if _, err := Resolve(filepath.Join(dir, "loop1")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("loop: %v", err)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := func(s string) string { return filepath.Join(dir, s) }

	// A new file gets perm; an existing one keeps its mode.
	if err := WriteAtomic(path("new"), []byte("a"), 0o640); err != nil {
		t.Fatal(err)
	}
	if s := fsutiltest.StateOf(t, path("new")); s.Data != "a" || s.Mode.Perm() != 0o640&^umask() {
		t.Errorf("new file %+v", s)
	}
	os.WriteFile(path("kept"), []byte("old"), 0o600)
	os.Chmod(path("kept"), 0o604)
	if err := WriteAtomic(path("kept"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := fsutiltest.StateOf(t, path("kept")); s.Data != "new" || s.Mode.Perm() != 0o604 {
		t.Errorf("existing file %+v", s)
	}

	// Through a symbolic link: the link stays, its target changes.
	os.WriteFile(path("target"), []byte("old"), 0o640)
	os.Symlink("target", path("link"))
	if err := WriteAtomic(path("link"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := fsutiltest.StateOf(t, path("link")); s.Link != "target" {
		t.Errorf("link replaced: %+v", s)
	}
	if s := fsutiltest.StateOf(t, path("target")); s.Data != "new" || s.Mode.Perm() != 0o640 {
		t.Errorf("target %+v", s)
	}
	// A dangling link creates its target.
	os.Symlink("made", path("dangling"))
	if err := WriteAtomic(path("dangling"), []byte("x"), 0o644); err != nil || fsutiltest.StateOf(t, path("made")).Data != "x" {
		t.Errorf("dangling link: %v", err)
	}

	// The owner is kept (root may give files away; others own theirs).
	if os.Geteuid() == 0 {
		os.WriteFile(path("owned"), []byte("old"), 0o600)
		os.Chmod(path("owned"), 0o664)
		os.Chown(path("owned"), 4321, 8765)
		if err := WriteAtomic(path("owned"), []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if s := fsutiltest.StateOf(t, path("owned")); s.UID != 4321 || s.GID != 8765 || s.Mode.Perm() != 0o664 || s.Data != "new" {
			t.Errorf("owner not kept: %+v", s)
		}
	}

	// A directory is not replaced.
	os.Mkdir(path("d"), 0o755)
	if err := WriteAtomic(path("d"), nil, 0o644); !IsNotRegular(err) {
		t.Errorf("directory: %v", err)
	}
	// No temporary file is left behind.
	if got := fsutiltest.Names(t, dir); strings.Contains(got, ".tmp-") {
		t.Errorf("files left: %s", got)
	}
}

func umask() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	path := func(s string) string { return filepath.Join(dir, s) }
	os.WriteFile(path("ok"), []byte("data"), 0o644)
	os.WriteFile(path("ro"), []byte("data"), 0o444)
	os.Symlink("ro", path("link-ro"))
	os.Symlink("ok", path("link-ok"))
	os.Mkdir(path("d"), 0o755)
	os.WriteFile(path("file-as-dir"), nil, 0o644)
	tests := []struct{ path, want string }{
		{"ok", ""},
		{"link-ok", ""},
		{"new", ""},
		{"ro", path("ro") + " is read-only (mode 0444)"},
		{"link-ro", path("ro") + " is read-only (mode 0444)"},
		{"d", path("d") + " is a directory, not a regular file"},
		{"no/such/dir/f", "the directory of " + path("no/such/dir/f") + " cannot be used (no such file or directory)"},
		{"file-as-dir/f", "the directory of " + path("file-as-dir/f") + " cannot be used (not a directory)"},
	}
	var before []fsutiltest.File
	for _, n := range []string{"ok", "ro", "link-ro", "link-ok"} {
		before = append(before, fsutiltest.StateOf(t, path(n)))
	}
	list := fsutiltest.Names(t, dir)
	for _, tt := range tests {
		err := CheckWritable(path(tt.path))
		if (tt.want == "") != (err == nil) || (err != nil && err.Error() != tt.want) {
			t.Errorf("%s: %v, want %q", tt.path, err, tt.want)
		}
	}
	for i, n := range []string{"ok", "ro", "link-ro", "link-ok"} {
		if s := fsutiltest.StateOf(t, path(n)); s != before[i] {
			t.Errorf("%s changed: %+v, was %+v", n, s, before[i])
		}
	}
	if got := fsutiltest.Names(t, dir); got != list {
		t.Errorf("directory now holds %s, held %s", got, list)
	}
}

// Where the user may write a file but a replacement could not keep its
// owner (another user's group-writable file), CheckWritable and
// WriteAtomic refuse and the file is left as it is.
func TestOwnerCannotBeKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a helper as another user")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	os.Chmod(filepath.Dir(dir), 0o755)
	f := filepath.Join(dir, "shared")
	os.WriteFile(f, []byte("old\n"), 0o600)
	os.Chmod(f, 0o666)
	before := fsutiltest.StateOf(t, f)
	// A copy of the test binary that the other user can run.
	bin := filepath.Join(t.TempDir(), "fsutil.test")
	os.Chmod(filepath.Dir(bin), 0o755)
	os.Chmod(filepath.Dir(filepath.Dir(bin)), 0o755)
	if data, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(bin, data, 0o755) != nil {
		t.Skip("cannot copy the test binary")
	}
	cmd := helper("checkwritable", f)
	cmd.Path, cmd.Args[0] = bin, bin
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run the helper as nobody: %v %s", err, errOut.String())
	}
	want := "check: " + f + " cannot be replaced: cannot keep its owner 0:0 (operation not permitted)\n" +
		"write: " + f + ": cannot keep its owner 0:0 (operation not permitted)\n"
	if errOut.String() != want {
		t.Errorf("helper said\n%s\nwant\n%s", errOut.String(), want)
	}
	if s := fsutiltest.StateOf(t, f); s != before {
		t.Errorf("file changed: %+v, was %+v", s, before)
	}
	if got := fsutiltest.Names(t, dir); got != "shared" {
		t.Errorf("files left: %s", got)
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"ck", ".ck.tmp-123", ".ck.tmp-4294967295", ".ck.tmp-", ".ck.tmp-12x", ".other.tmp-1", "ck.tmp-1", ".ck.lock"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, ".ck.tmp-77"), 0o755) // not a file: kept
	os.Symlink("ck", filepath.Join(dir, "link"))
	removed, err := RemoveStaleTemps(filepath.Join(dir, "link"))
	if err != nil || len(removed) != 2 {
		t.Fatalf("removed %q, %v", removed, err)
	}
	if got := fsutiltest.Names(t, dir); got != ".ck.lock .ck.tmp- .ck.tmp-12x .ck.tmp-77 .other.tmp-1 ck ck.tmp-1 link" {
		t.Errorf("left %s", got)
	}
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck")
	os.Symlink("ck", filepath.Join(dir, "link"))
	l, err := TryLock(ck)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != ck+".lock" {
		t.Errorf("lock file %s", l.Path())
	}
	// A second lock, even through a link, is refused and names us.
	for _, p := range []string{ck, filepath.Join(dir, "link")} {
		_, err = TryLock(p)
		var he *HeldError
		if !errors.As(err, &he) || he.PID != os.Getpid() ||
			err.Error() != fmt.Sprintf("%s is in use by another run (PID %d), which holds the lock %s", p, os.Getpid(), ck+".lock") {
			t.Errorf("second lock through %s: %v", p, err)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if got := fsutiltest.Names(t, dir); got != "link" {
		t.Errorf("after release: %s", got)
	}
	// A stale lock file (a crashed holder) is taken over.
	os.WriteFile(ck+".lock", []byte("999999999 elsewhere\n"), 0o644)
	l, err = TryLock(ck)
	if err != nil {
		t.Fatalf("stale lock file: %v", err)
	}
	l.Release()
	l.Release() // twice is fine
}

// The lock of a process is seen by another, and dies with it: after
// SIGKILL the lock file is stale and the next run takes it.
func TestLockAcrossProcesses(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck")
	cmd := helper("lock", ck)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 100)
	n, _ := out.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "locked ") {
		t.Fatalf("helper: %q", buf[:n])
	}
	_, err := TryLock(ck)
	var he *HeldError
	if !errors.As(err, &he) || he.PID != cmd.Process.Pid || !strings.Contains(err.Error(), "(PID "+strconv.Itoa(cmd.Process.Pid)+")") {
		t.Fatalf("lock held by the helper: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(ck + ".lock"); err != nil {
		t.Fatalf("the killed helper's lock file: %v", err)
	}
	l, err := TryLock(ck)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Release()
}

func TestErrWriter(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	w := &ErrWriter{W: full}
	if _, err := io.WriteString(w, "result\n"); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write to /dev/full: %v", err)
	}
	if _, err := w.Write([]byte("more")); !errors.Is(w.Err(), syscall.ENOSPC) || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("the error is not kept: %v, %v", err, w.Err())
	}
	var b bytes.Buffer
	w = &ErrWriter{W: &b}
	io.WriteString(w, "ok")
	if w.Err() != nil || b.String() != "ok" {
		t.Errorf("buffer: %v %q", w.Err(), b.String())
	}
}

// A child started with its stdout closed, which the Go runtime fills with
// /dev/null, sees ErrStdoutClosed; a redirection to /dev/null, a file or
// a pipe passes.
func TestCheckStdout(t *testing.T) {
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	defer null.Close()
	file, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer file.Close()
	for _, tt := range []struct {
		name   string
		stdout string // "closed", "null", "file", "pipe"
		want   string
	}{
		{"closed", "closed", "stdout: " + ErrStdoutClosed.Error()},
		{"> /dev/null", "null", "stdout: <nil>"},
		{"> file", "file", "stdout: <nil>"},
		{"| pipe", "pipe", "stdout: <nil>"},
	} {
		cmd := helper("stdout", "")
		var errOut, pipe bytes.Buffer
		cmd.Stderr = &errOut
		switch tt.stdout {
		case "null":
			cmd.Stdout = null
		case "file":
			cmd.Stdout = file
		case "pipe":
			cmd.Stdout = &pipe
		case "closed":
			// exec gives a child without Stdout /dev/null opened
			// for writing; start it through a shell that closes fd 1.
			cmd = exec.Command("/bin/sh", "-c", `exec "$0" -test.run='^$' -- x >&-`, os.Args[0])
			cmd.Env = append(os.Environ(), child+"=stdout")
			cmd.Stderr = &errOut
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := strings.TrimSpace(errOut.String()); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
