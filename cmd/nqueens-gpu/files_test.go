package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil/fsutiltest"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
	"github.com/nqueens-gpu/nqueens-gpu/internal/shard"
)

// wantUnchanged fails when dir differs from the state before.
func wantUnchanged(t *testing.T, dir, before string) {
	t.Helper()
	if after := fsutiltest.Tree(t, dir); after != before {
		t.Errorf("files changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// shardLines counts the m shards of N=n for real and returns their
// records, one JSON line each, as the shard runs print them.
func shardLines(t *testing.T, n, m int) []string {
	t.Helper()
	var lines []string
	for i := 0; i < m; i++ {
		r := runReal("-n", fmt.Sprint(n), "-json", "-quiet", "-shard", fmt.Sprintf("%d/%d", i, m))
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("shard %d/%d of N=%d: exit %d, stderr %q", i, m, n, r.code, r.stderr)
		}
		lines = append(lines, strings.TrimSuffix(r.stdout, "\n"))
	}
	return lines
}

// editLine changes a field of a record line as a user with an editor
// would: the checksum is left as it was.
func editLine(t *testing.T, line string, f func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// resealLine changes a record and writes it with a fresh checksum, as a
// program with a bug could: only the plan, the overflow checks and the
// published counts can catch what it says then.
func resealLine(t *testing.T, line string, f func(r *shard.Result)) string {
	t.Helper()
	var r shard.Result
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	f(&r)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Merge trusts nothing it reads: each bad input is exit status 1 with one
// line that says what is wrong and where, nothing on stdout, and every
// input file left as it was.
func TestMergeRefuses(t *testing.T) {
	good := shardLines(t, 12, 3)
	one := shardLines(t, 12, 1)
	// change returns the lines with line i replaced by f(line i).
	change := func(lines []string, i int, f func(string) string) []string {
		c := append([]string(nil), lines...)
		c[i] = f(c[i])
		return c
	}
	tests := []struct {
		name  string
		lines []string // the contents of the one input file, one record a line
		setup func(t *testing.T, path string)
		want  string
	}{
		{name: "an edited sum", lines: change(good, 1, func(l string) string {
			return editLine(t, l, func(m map[string]any) {
				s := m["sums"].(map[string]any)
				s["orbit8"] = json.Number("1")
			})
		}), want: "in.jsonl:2 does not match its checksum, so it was changed after the shard run wrote it"},
		{name: "a sum that wraps around 2^64", lines: change(good, 2, func(l string) string {
			return resealLine(t, l, func(r *shard.Result) { r.Sums.Orbit8 = math.MaxUint64 - 3 })
		}), want: "in.jsonl:3: its sums overflow 64 bits when added to those before it, which no count up to N=28 does: a record was changed"},
		{name: "N=99", lines: change(good, 0, func(l string) string {
			return resealLine(t, l, func(r *shard.Result) { r.N = 99 })
		}), want: "in.jsonl:1 claims N=99: N=99 is out of range"},
		{name: "an N that does not match its fingerprint", lines: []string{resealLine(t, one[0], func(r *shard.Result) { r.N = 13 })},
			want: "in.jsonl: its fingerprint is not that of its own job (N=13 -algo eightfold, depth"},
		{name: "an unknown algorithm", lines: change(good, 1, func(l string) string {
			return resealLine(t, l, func(r *shard.Result) { r.Algo = "quantum" })
		}), want: `in.jsonl:2 claims an unknown algorithm "quantum"`},
		{name: "counts that differ from the published ones", lines: change(good, 0, func(l string) string {
			// Eightfold's Orbit8 sum is Total: 8 more is one more class of 8.
			return resealLine(t, l, func(r *shard.Result) { r.Sums.Orbit8 += 8 })
		}), want: "merged counts disagree with the published value: N=12 merged to total 14208, unique 1788; published: total 14200, unique 1787 (a shard result is wrong)"},
		{name: "a 100 KB line", lines: change(good, 0, func(string) string { return strings.Repeat("x", 100000) }),
			want: "in.jsonl:1 is longer than 16.0 KiB: not a shard result"},
		{name: "a count, not a shard", lines: []string{strings.TrimSpace(runReal("-n", "12", "-json").stdout)},
			want: "in.jsonl:1 is not a shard result (json: unknown field"},
		{name: "a FIFO", setup: func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFO here:", err)
			}
		}, want: "in.jsonl is a named pipe (FIFO), not a regular file"},
		{name: "a directory", setup: func(t *testing.T, path string) { os.Mkdir(path, 0o755) },
			want: "in.jsonl is a directory, not a regular file"},
		{name: "a link to /dev/zero", setup: func(t *testing.T, path string) { os.Symlink("/dev/zero", path) },
			want: "in.jsonl is a character device, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "in.jsonl")
			if tt.setup != nil {
				tt.setup(t, path)
			} else {
				os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644)
			}
			before := fsutiltest.Tree(t, dir)
			var out, errOut bytes.Buffer
			code := runMergeWith(context.Background(), []string{"-v", path}, &out, &errOut, defaultHooks())
			r := result{code, out.String(), errOut.String()}
			wantOneErrorLine(t, r, exitRuntime)
			if !strings.Contains(r.stderr, "nqueens-gpu: merge: ") || !strings.Contains(r.stderr, tt.want) || len(r.stderr) > 500 {
				t.Errorf("stderr %.600q\nwant %q", r.stderr, tt.want)
			}
			wantUnchanged(t, dir, before)
		})
	}
	// The good records merge to the published counts.
	dir := t.TempDir()
	path := filepath.Join(dir, "good.jsonl")
	os.WriteFile(path, []byte(strings.Join(good, "\n")+"\n"), 0o644)
	var out, errOut bytes.Buffer
	if code := runMergeWith(context.Background(), []string{"-json", path}, &out, &errOut, defaultHooks()); code != 0 || errOut.Len() != 0 {
		t.Fatalf("good shards: exit %d, stderr %q", code, errOut.String())
	}
	wantKnown(t, out.String(), 12)
}

// benchDoc writes a bench document of N=8-9 to path, with edit applied.
func benchDoc(t *testing.T, path string, edit func(d *report.Document)) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "doc.json")
	if r := runBenchFake(&solverFake{}, "-n", "8-9", "-runs", "2", "-o", tmp); r.code != 0 {
		t.Fatalf("bench -o: exit %d, stderr %q", r.code, r.stderr)
	}
	d, err := report.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(d)
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The files bench and check read and write are checked before any work:
// an input that cannot be read or is not valid, and an output that
// cannot be written, are exit status 1 (runtime errors, not usage
// errors) with one line, before anything is counted, and no file is
// changed.
func TestBenchCheckFilesRefused(t *testing.T) {
	type setup func(t *testing.T, dir string)
	fifo := func(name string) setup {
		return func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
				t.Skip("no FIFO here:", err)
			}
		}
	}
	readOnly := func(name string) setup {
		return func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, name), []byte("mine\n"), 0o444) }
	}
	doc := func(name string, edit func(d *report.Document)) setup {
		return func(t *testing.T, dir string) { benchDoc(t, filepath.Join(dir, name), edit) }
	}
	zeroTime := func(d *report.Document) { d.Series[0].Results[1].Seconds[0] = 0 }
	tests := []struct {
		name  string
		cmd   string // bench or check
		setup setup
		args  []string // DIR/ is replaced by the test's directory
		want  string
	}{
		{"no baseline", "bench", nil, []string{"-n", "8", "-baseline", "DIR/none.json"}, "-baseline: stat DIR/none.json: no such file or directory"},
		{"a FIFO as baseline", "bench", fifo("b.json"), []string{"-n", "8", "-baseline", "DIR/b.json"}, "-baseline: DIR/b.json is a named pipe (FIFO), not a regular file"},
		{"a baseline with a time of 0 s", "bench", doc("b.json", zeroTime), []string{"-n", "8", "-baseline", "DIR/b.json"},
			`-baseline: DIR/b.json: series "cpu eightfold" N=9: run 1 is 0 s, not a time a run can take`},
		{"a baseline that is not JSON", "bench", readOnly("b.json"), []string{"-n", "8", "-baseline", "DIR/b.json"}, "-baseline: DIR/b.json: not a bench JSON document"},
		{"no -from file", "bench", nil, []string{"-from", "DIR/none.json"}, "-from: stat DIR/none.json: no such file or directory"},
		{"a -from file with a negative time", "bench", doc("a.json", func(d *report.Document) { d.Series[0].Results[0].Seconds[1] = -1 }),
			[]string{"-from", "DIR/a.json"}, "-from: DIR/a.json: series \"cpu eightfold\" N=8: run 2 is -1 s"},
		{"a read-only -o", "bench", readOnly("out.json"), []string{"-n", "8", "-o", "DIR/out.json"}, "-o: DIR/out.json is read-only (mode 0444); stopped before any work"},
		{"-o in a missing directory", "bench", nil, []string{"-n", "8", "-o", "DIR/no/out.json"}, "-o: the directory of DIR/no/out.json cannot be used (no such file or directory)"},
		{"-o a directory", "bench", func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, "out.json"), 0o755) },
			[]string{"-n", "8", "-o", "DIR/out.json"}, "-o: DIR/out.json is a directory, not a regular file"},
		{"a read-only -plot", "bench", readOnly("p.svg"), []string{"-n", "8", "-plot", "DIR/p.svg"}, "-plot: DIR/p.svg is read-only (mode 0444)"},
		{"a FIFO as -plot", "bench", fifo("p.png"), []string{"-n", "8", "-plot", "DIR/p.png"}, "-plot: DIR/p.png is a named pipe (FIFO), not a regular file"},
		{"-plot of -from in a missing directory", "bench", doc("a.json", nil), []string{"-from", "DIR/a.json", "-plot", "DIR/no/p.svg"},
			"-plot: the directory of DIR/no/p.svg cannot be used"},
		{"a read-only -o of check", "check", readOnly("c.json"), []string{"-n", "4-6", "-o", "DIR/c.json"}, "-o: DIR/c.json is read-only (mode 0444); stopped before any work"},
		{"a FIFO as -o of check", "check", fifo("c.json"), []string{"-n", "4-6", "-o", "DIR/c.json"}, "-o: DIR/c.json is a named pipe (FIFO), not a regular file"},
		{"-o of check in a missing directory", "check", nil, []string{"-n", "4-6", "-o", "DIR/no/c.json"}, "-o: the directory of DIR/no/c.json cannot be used"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd+" "+tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "DIR/", dir+"/")
			}
			before := fsutiltest.Tree(t, dir)
			f := &solverFake{}
			var r cmdResult
			if tt.cmd == "bench" {
				r = runBenchFake(f, args...)
			} else {
				r = runCheckFake(f, args...)
			}
			wantFailure(t, r, exitRuntime, strings.ReplaceAll(tt.want, "DIR/", dir+"/"))
			if r.stdout != "" || len(f.calls) != 0 {
				t.Errorf("stdout %q, counts %v: work was done", r.stdout, f.calls)
			}
			wantUnchanged(t, dir, before)
		})
	}
}

// -o and -plot replace their files through symbolic links, which stay,
// and keep the files' mode.
func TestOutputFilesThroughLinks(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"real.json", "real.svg", "check.json"} {
		os.WriteFile(filepath.Join(dir, name), []byte("old\n"), 0o640)
		os.Chmod(filepath.Join(dir, name), 0o640) // whatever the umask
	}
	os.Symlink("real.json", filepath.Join(dir, "out.json"))
	os.Symlink(filepath.Join(dir, "real.svg"), filepath.Join(dir, "plot.svg"))
	os.Symlink("check.json", filepath.Join(dir, "c.json"))
	if r := runBenchFake(&solverFake{}, "-n", "6-7", "-runs", "2", "-json", "-o", filepath.Join(dir, "out.json"), "-plot", filepath.Join(dir, "plot.svg")); r.code != 0 {
		t.Fatalf("bench: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCheckFake(&solverFake{}, "-n", "4-6", "-o", filepath.Join(dir, "c.json")); r.code != 0 {
		t.Fatalf("check: exit %d, stderr %q", r.code, r.stderr)
	}
	for link, target := range map[string]string{"out.json": "real.json", "plot.svg": filepath.Join(dir, "real.svg"), "c.json": "check.json"} {
		if got, err := os.Readlink(filepath.Join(dir, link)); err != nil || got != target {
			t.Errorf("%s: link %q, %v; want it kept, to %q", link, got, err, target)
		}
	}
	for name, want := range map[string]string{"real.json": `"schema"`, "real.svg": "<svg", "check.json": `"rows"`} {
		p := filepath.Join(dir, name)
		data, _ := os.ReadFile(p)
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o640 || !strings.Contains(string(data), want) {
			t.Errorf("%s: mode %v, %v, contents %.60q; want mode 0640 and %s", name, fi.Mode(), err, data, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 6 {
		t.Errorf("%d files in the directory, want the 6 of before", len(ents))
	}
}

// threeBatches is the plan of the fake jobs of the checkpoint tests: 3
// batches of 700 tasks in all.
func threeBatches(s nq.Spec) (plan.Plan, error) {
	p, _ := fakePlan(s)
	p.Batches, p.TaskCount = 3, 700
	return p, nil
}

// countThree is a fake CPU count of the 3-batch job: batch 0 carries the
// counts of N, the others nothing. hold, if not nil, is called after
// batch 0 with the context; it may stop the count.
func countThree(hold func(ctx context.Context, sel func(int) bool) error) func(context.Context, nq.Spec, func(int) bool, func([]int, nq.Partial)) error {
	return func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		if sel(0) {
			done([]int{0}, nq.PartialOf(spec.Algo, fakeCounts(spec.N)))
		}
		if hold != nil {
			if err := hold(ctx, sel); err != nil {
				return err
			}
		}
		for i := 1; i < 3; i++ {
			if sel(i) {
				done([]int{i}, nq.Partial{})
			}
		}
		return nil
	}
}

// A checkpoint that another run holds, that is read-only, or that is a
// FIFO is refused with one line and exit status 1 before the devices are
// opened, and every file is left as it was (bytes, mode, link target).
func TestCheckpointFilesRefused(t *testing.T) {
	t.Run("locked by another run", func(t *testing.T) {
		dir := t.TempDir()
		ck := filepath.Join(dir, "n10.ckpt")
		if r := runReal("-n", "10", "-json", "-checkpoint", ck); r.code != 0 {
			t.Fatalf("first run: exit %d, stderr %q", r.code, r.stderr)
		}
		l, err := fsutil.TryLock(ck) // this process plays the other run
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		before := fsutiltest.Tree(t, dir)
		cmd := program("-n", "10", "-json", "-checkpoint", ck)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		cmd.Run()
		r := result{cmd.ProcessState.ExitCode(), out.String(), errOut.String()}
		wantOneErrorLine(t, r, exitRuntime)
		want := fmt.Sprintf("nqueens-gpu: checkpoint %s is in use by another run, PID %d (lock file %s.lock); wait for that run to end or stop it; the file was left as it is\n",
			ck, os.Getpid(), ck)
		if r.stderr != want {
			t.Errorf("stderr %q\nwant   %q", r.stderr, want)
		}
		wantUnchanged(t, dir, before)
	})
	refused := []struct {
		name  string
		setup func(t *testing.T, ck string)
		want  string
	}{
		{"read-only", func(t *testing.T, ck string) {
			if r := runReal("-n", "9", "-checkpoint", ck); r.code != 0 {
				t.Fatalf("first run: exit %d, stderr %q", r.code, r.stderr)
			}
			os.Chmod(ck, 0o444)
		}, "is read-only (mode 0444): make it writable to go on with it (chmod u+w), or copy it; the file was left as it is"},
		{"a FIFO", func(t *testing.T, ck string) {
			if err := syscall.Mkfifo(ck, 0o644); err != nil {
				t.Skip("no FIFO here:", err)
			}
		}, "is a named pipe (FIFO), not a regular file; the file was left as it is"},
		{"a directory", func(t *testing.T, ck string) { os.Mkdir(ck, 0o755) }, "is a directory, not a regular file"},
		{"a link to a read-only file", func(t *testing.T, ck string) {
			target := filepath.Join(filepath.Dir(ck), "target.ckpt")
			os.WriteFile(target, []byte("{}\n"), 0o400)
			os.Chmod(target, 0o400)
			os.Symlink("target.ckpt", ck)
		}, "is read-only (mode 0400)"},
		{"in a missing directory", func(t *testing.T, ck string) {}, "cannot be written: the directory of"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ck := filepath.Join(dir, "n9.ckpt")
			if tt.name == "in a missing directory" {
				ck = filepath.Join(dir, "no", "n9.ckpt")
			}
			tt.setup(t, ck)
			before := fsutiltest.Tree(t, dir)
			env := twoGPUs()
			r := runFake(env, "-n", "9", "-device", "0", "-checkpoint", ck)
			wantOneErrorLine(t, r, exitRuntime)
			if want := "nqueens-gpu: checkpoint " + ck + " " + tt.want; !strings.HasPrefix(r.stderr, want) {
				t.Errorf("stderr %q\nwant   %q...", r.stderr, want)
			}
			if len(env.opened) != 0 || len(env.gpuCalls) != 0 || len(env.cpuCalls) != 0 {
				t.Errorf("devices opened %v, counts %v %v: work before the refusal", env.opened, env.gpuCalls, env.cpuCalls)
			}
			wantUnchanged(t, dir, before)
		})
	}
}

// A checkpoint reached through a symbolic link is written through it: the
// link stays, the file it names is replaced keeping its mode, and nothing
// else is left in the directory (no lock file, no temporary file).
func TestCheckpointThroughLink(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "store"), 0o755)
	link := filepath.Join(dir, "n9.ckpt")
	os.Symlink("store/real.ckpt", link) // dangling until the first write
	env := noCUDA()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	env.cpuCount = countThree(func(c context.Context, sel func(int) bool) error {
		cancel(app.SignalCause{Signal: syscall.SIGTERM})
		return c.Err()
	})
	h := env.hooks()
	h.Plan = threeBatches
	args := []string{"-n", "9", "-algo", "symmetry", "-checkpoint", link, "-json"} // a plan of 3 batches
	var out, errOut bytes.Buffer
	if code := runWith(ctx, args, &out, &errOut, h); code != exitTerminated {
		t.Fatalf("first run: exit %d, stderr %q", code, errOut.String())
	}
	real := filepath.Join(dir, "store", "real.ckpt")
	if s, err := readCheckpoint(real); err != nil || s.Body.DoneBatches != 1 || s.Body.Complete {
		t.Fatalf("checkpoint after the first run: %+v, %v", s, err)
	}
	os.Chmod(real, 0o640)
	env.cpuCount = countThree(nil)
	out.Reset()
	errOut.Reset()
	if code := runWith(context.Background(), args, &out, &errOut, h); code != 0 || errOut.Len() != 0 {
		t.Fatalf("resumed run: exit %d, stderr %q", code, errOut.String())
	}
	if recs := decodeJSON(t, out.String()); len(recs) != 1 || recs[0].Total != 352 {
		t.Errorf("resumed run: %q", out.String())
	}
	if target, err := os.Readlink(link); err != nil || target != "store/real.ckpt" {
		t.Errorf("the link is now %q, %v", target, err)
	}
	fi, err := os.Stat(real)
	if s, rerr := readCheckpoint(real); err != nil || rerr != nil || fi.Mode().Perm() != 0o640 || !s.Body.Complete || s.Body.Runs != 2 {
		t.Errorf("checkpoint %+v (%v), mode %v (%v); want complete after 2 runs, mode 0640", s, rerr, fi.Mode(), err)
	}
	want := "n9.ckpt Lrwxrwxrwx -> store/real.ckpt\nstore drwxr-xr-x\nstore/real.ckpt -rw-r-----"
	if got := fsutiltest.Tree(t, dir); !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 2 {
		t.Errorf("files left:\n%s", got)
	}
}

// A stop that cannot wait for the batches in hand (they take longer than
// the stop wait) drops them, says how many in the interrupted message,
// and the next run counts them: the counts are exact.
func TestInterruptDropsBatchesInHand(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck")
	env := noCUDA()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	release := make(chan struct{})
	env.cpuCount = countThree(func(c context.Context, sel func(int) bool) error {
		sel(1) // two batches in hand, searched for longer than the stop wait
		sel(2)
		cancel(app.SignalCause{Signal: syscall.SIGINT})
		<-release
		return c.Err()
	})
	h := env.hooks()
	h.Plan = threeBatches
	h.StopWait = 20 * time.Millisecond
	args := []string{"-n", "9", "-algo", "symmetry", "-checkpoint", ck, "-v"} // a plan of 3 batches
	var out, errOut bytes.Buffer
	code := runWith(ctx, args, &out, &errOut, h)
	close(release)
	want := "nqueens-gpu: interrupted by SIGINT while counting N=9: 1 of 3 batches done, saved in " + ck +
		"; 2 batches in hand were dropped and are counted again on resume\n" +
		"nqueens-gpu: resume with: nqueens-gpu -n 9 -algo symmetry -checkpoint " + ck + " -v\n"
	if code != exitInterrupted || errOut.String() != want || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q\nwant %q", code, out.String(), errOut.String(), want)
	}
	if s, err := readCheckpoint(ck); err != nil || s.Body.DoneBatches != 1 {
		t.Errorf("checkpoint %+v, %v; want batch 0 alone done", s, err)
	}
	env.cpuCount = countThree(nil)
	out.Reset()
	errOut.Reset()
	code = runWith(context.Background(), args, &out, &errOut, h)
	if code != 0 || errOut.Len() != 0 || !strings.Contains(out.String(), "\n 9:                   352                    46             0             4                    42") {
		t.Errorf("resumed: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
