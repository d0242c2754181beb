package job

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil/fsutiltest"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// goodCheckpoint returns the bytes of a checkpoint of a fake job of nb
// batches with the first done of them finished.
func goodCheckpoint(t *testing.T, nb, done int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ck")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	w := funcBackend{name: "w", run: func(c context.Context, sel func(int) bool, fin func([]int, nq.Partial)) error {
		for i := 0; i < nb; i++ {
			if c.Err() != nil {
				return c.Err()
			}
			if sel(i) {
				fin([]int{i}, fakePartial(i))
				if n++; n == done {
					cancel()
				}
			}
		}
		return nil
	}}
	j, err := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: []Backend{w}, Plan: fakePlan(nb), Checkpoint: path})
	if err != nil {
		t.Fatal(err)
	}
	j.Run(ctx)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Checkpoint files the user owns: each case sets up the directory, runs
// the job (New, then Run when New accepts it) and checks the message, and
// that no file of the user's changed that should not have (contents,
// mode, owner, link target) and no file was left beside them.
func TestCheckpointFiles(t *testing.T) {
	const nb = 40
	half := goodCheckpoint(t, nb, 15)
	spec := norm(nq.Spec{N: 16, Algo: nq.Symmetry})
	type setup struct {
		dir, ck string // the directory and the -checkpoint path
	}
	tests := []struct {
		name string
		// prepare makes the files; it returns the files that must stay
		// as they are (relative to dir).
		prepare func(t *testing.T, s setup) []string
		want    string // the error, or "" for a run that completes
		// after checks the files after a completed run.
		after func(t *testing.T, s setup)
		// left is the directory listing after the job, "" to compare
		// with the listing before.
		left string
	}{
		{
			name: "read-only",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(s.ck, half, 0o600)
				os.Chmod(s.ck, 0o444)
				return []string{"ck"}
			},
			want: "checkpoint CK is read-only (mode 0444): make it writable to go on with it (chmod u+w), or copy it; the file was left as it is",
		},
		{
			name: "read-only behind a link",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(filepath.Join(s.dir, "real"), half, 0o600)
				os.Chmod(filepath.Join(s.dir, "real"), 0o400)
				os.Symlink("real", s.ck)
				return []string{"ck", "real"}
			},
			want: "checkpoint CK is read-only (mode 0400)",
		},
		{
			name: "FIFO",
			prepare: func(t *testing.T, s setup) []string {
				syscall.Mkfifo(s.ck, 0o644)
				return []string{"ck"}
			},
			want: "checkpoint CK is a named pipe (FIFO), not a regular file; the file was left as it is",
		},
		{
			name: "link to /dev/zero",
			prepare: func(t *testing.T, s setup) []string {
				os.Symlink("/dev/zero", s.ck)
				return []string{"ck"}
			},
			want: "checkpoint CK is a character device, not a regular file",
		},
		{
			name: "directory",
			prepare: func(t *testing.T, s setup) []string {
				os.Mkdir(s.ck, 0o755)
				return []string{"ck"}
			},
			want: "checkpoint CK is a directory, not a regular file",
		},
		{
			name: "huge file",
			prepare: func(t *testing.T, s setup) []string {
				f, _ := os.Create(s.ck)
				f.Truncate(checkpoint.MaxCheckpointBytes + 1) // sparse: no disk used
				f.Close()
				return []string{"ck"}
			},
			want: fmt.Sprintf("checkpoint CK is larger than %s, the most a checkpoint can hold (a job of 2^30 batches; N=28 has 160862143 batches at its default depth and batch size, a checkpoint of about 25.6 MiB); it is not a checkpoint",
				fsutil.FormatBytes(checkpoint.MaxCheckpointBytes)),
		},
		{
			name: "flipped byte, checksum",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(s.ck, []byte(strings.Replace(string(half), `"done_batches": 15`, `"done_batches": 17`, 1)), 0o644)
				return []string{"ck"}
			},
			want: "its checksum does not match its contents, so it was changed after it was written (a flipped byte looks like this)",
		},
		{
			name: "flipped byte, not JSON",
			prepare: func(t *testing.T, s setup) []string {
				b := []byte(string(half))
				i := strings.Index(string(b), `"body"`)
				b[i] ^= 0x20 // '"' becomes '\x02'
				os.WriteFile(s.ck, b, 0o644)
				return []string{"ck"}
			},
			want: "is not valid JSON there: a byte was changed, or it is another kind of file",
		},
		{
			name: "truncated",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(s.ck, half[:len(half)*2/3], 0o644)
				return []string{"ck"}
			},
			want: fmt.Sprintf("it is truncated: its JSON stops short at byte %d, the end of the file", len(half)*2/3),
		},
		{
			name: "empty",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(s.ck, nil, 0o644)
				return []string{"ck"}
			},
			want: "is damaged or not a checkpoint: it is empty (0 bytes)",
		},
		{
			name: "in use",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(s.ck, half, 0o644)
				l, err := fsutil.TryLock(s.ck)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Release() })
				return []string{"ck", "ck.lock"}
			},
			want: fmt.Sprintf("checkpoint CK is in use by another run, PID %d (lock file CK.lock); wait for that run to end or stop it; the file was left as it is", os.Getpid()),
		},
		{
			name: "no directory",
			prepare: func(t *testing.T, s setup) []string {
				os.Remove(s.ck)
				return nil
			},
			want: "checkpoint CK cannot be locked: cannot create the lock file CK.lock (no such file or directory)",
		},
		{
			name: "through a link, mode kept",
			prepare: func(t *testing.T, s setup) []string {
				real := filepath.Join(s.dir, "real")
				os.WriteFile(real, half, 0o600)
				os.Chmod(real, 0o640)
				os.Symlink("real", s.ck)
				return nil
			},
			after: func(t *testing.T, s setup) {
				if u := fsutiltest.StateOf(t, s.ck); u.Link != "real" {
					t.Errorf("the link was replaced: %+v", u)
				}
				if u := fsutiltest.StateOf(t, filepath.Join(s.dir, "real")); u.Mode.Perm() != 0o640 || !strings.Contains(u.Data, `"complete": true`) {
					t.Errorf("the target: mode %v, complete %v", u.Mode, strings.Contains(u.Data, `"complete": true`))
				}
			},
			left: "ck real",
		},
		{
			name: "owner kept",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(s.ck, half, 0o600)
				os.Chmod(s.ck, 0o604)
				if os.Geteuid() == 0 {
					os.Chown(s.ck, 4321, 8765)
				}
				return nil
			},
			after: func(t *testing.T, s setup) {
				u := fsutiltest.StateOf(t, s.ck)
				if u.Mode.Perm() != 0o604 || (os.Geteuid() == 0 && (u.UID != 4321 || u.GID != 8765)) {
					t.Errorf("mode or owner changed: %+v", u)
				}
			},
			left: "ck",
		},
		{
			name: "stale temporary files",
			prepare: func(t *testing.T, s setup) []string {
				os.WriteFile(s.ck, half, 0o644)
				os.WriteFile(filepath.Join(s.dir, ".ck.tmp-12345"), half[:100], 0o600)
				os.WriteFile(filepath.Join(s.dir, ".ck.tmp-999"), nil, 0o600)
				os.WriteFile(filepath.Join(s.dir, ".other.tmp-1"), nil, 0o600)
				return []string{".other.tmp-1"}
			},
			left: ".other.tmp-1 ck",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := setup{dir: dir, ck: filepath.Join(dir, "ck")}
			if tt.name == "no directory" {
				s.ck = filepath.Join(dir, "gone", "ck")
			}
			keep := tt.prepare(t, s)
			before := map[string]fsutiltest.File{}
			for _, k := range keep {
				before[k] = fsutiltest.StateOf(t, filepath.Join(dir, k))
			}
			list := fsutiltest.Names(t, dir)
			var warnings []string
			start := time.Now()
			j, err := New(Config{Spec: spec, Backends: workersOf(&fakeWorker{nb: nb, failAt: -1}), Plan: fakePlan(nb),
				Checkpoint: s.ck, Warn: func(m string) { warnings = append(warnings, m) }})
			if time.Since(start) > 5*time.Second {
				t.Errorf("New took %v", time.Since(start))
			}
			want := strings.ReplaceAll(tt.want, "CK", s.ck)
			if tt.want != "" {
				var ce *checkpoint.Error
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %v\nwant a checkpoint error with %q", err, want)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				res, err := j.Run(context.Background())
				if err != nil || !res.Complete || res.Partial != fakeSum(nb, plan.Shard{}) {
					t.Fatalf("run: %+v, %v", res, err)
				}
				if tt.after != nil {
					tt.after(t, s)
				}
			}
			for k, b := range before {
				if a := fsutiltest.StateOf(t, filepath.Join(dir, k)); a != b {
					t.Errorf("%s changed: %+v\nwas %+v", k, a, b)
				}
			}
			wantList := list
			if tt.left != "" {
				wantList = tt.left
			}
			if got := fsutiltest.Names(t, dir); got != wantList {
				t.Errorf("the directory holds %q, want %q", got, wantList)
			}
			if tt.name == "stale temporary files" && (len(warnings) != 1 || !strings.Contains(warnings[0], "removed 2 temporary file(s) of checkpoint")) {
				t.Errorf("warnings %q", warnings)
			}
		})
	}
}

// Two runs on one checkpoint: the second is refused while the first
// holds it (and cannot regress it), and may go on once the first ends.
func TestCheckpointLock(t *testing.T) {
	const nb = 30
	path := filepath.Join(t.TempDir(), "ck")
	cfg := Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: workersOf(&fakeWorker{nb: nb, failAt: -1}), Plan: fakePlan(nb), Checkpoint: path}
	first, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := New(cfg)
	if second != nil || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("is in use by another run, PID %d", os.Getpid())) {
		t.Fatalf("second run while the first holds the file: %v", err)
	}
	if _, err := first.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	done, _ := os.ReadFile(path)
	// Run released the lock: the next run reads the complete file.
	again, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := again.Run(context.Background())
	if err != nil || !res.AlreadyComplete {
		t.Errorf("after the first ended: %+v, %v", res, err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(done) {
		t.Error("a complete checkpoint was rewritten")
	}
	// A job that is not run gives the lock back with Close.
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	j.Close()
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after Close: %v", err)
	}
}
