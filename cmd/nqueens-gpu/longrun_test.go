package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/shard"
)

// beMain makes the test binary run the program instead of the tests, so
// that tests can start it as a process of its own and send it signals; it
// accepts checkpoint intervals under the real program's second.
const beMain = "NQUEENS_GPU_TEST_BE_MAIN"

func TestMain(m *testing.M) {
	switch os.Getenv(beMain) {
	case "1":
		// The tests checkpoint every 20 ms to stop a short count
		// between checkpoints.
		minCheckpointInterval = time.Millisecond
		main()
		return
	case "stand-in":
		// The whole program on a stand-in GPU whose kernels count
		// nothing: the job's host batch counts nothing either, so that
		// the count's sums reduce (to zero).
		h := defaultHooks()
		h.Symmetric = fakeSymmetric
		os.Exit(runHooks(os.Args[0], os.Args[1:], os.Stdout, os.Stderr, h))
	}
	os.Exit(m.Run())
}

// program returns the command that runs the program with args.
func program(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), beMain+"=1")
	return cmd
}

// ckState is what the tests read from a checkpoint file.
type ckState struct {
	Body struct {
		Complete    bool `json:"complete"`
		DoneBatches int  `json:"done_batches"`
		Runs        int  `json:"runs"`
		Job         struct {
			Batches int `json:"batches"`
		} `json:"job"`
	} `json:"body"`
}

func readCheckpoint(path string) (ckState, error) {
	var s ckState
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(data, &s)
}

// waitForBatches waits until the checkpoint at path records at least want
// finished batches, or the share part (0 to 1) of all batches if that is
// more.
func waitForBatches(t *testing.T, path string, want int, part float64) ckState {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if s, err := readCheckpoint(path); err == nil && s.Body.DoneBatches >= want &&
			float64(s.Body.DoneBatches) >= part*float64(s.Body.Job.Batches) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no checkpoint with %d batches done in time", want)
	return ckState{}
}

// wantKnown checks one JSON record against the published counts.
func wantKnown(t *testing.T, out string, n int) {
	t.Helper()
	recs := decodeJSON(t, out)
	want, _ := known.Lookup(n)
	cl := known.ClassTable[n]
	if len(recs) != 1 || recs[0].N != n || recs[0].Total != want.Total || recs[0].Unique != want.Unique ||
		recs[0].Count2 != cl.C2 || recs[0].Count4 != cl.C4 || recs[0].Count8 != cl.C8 {
		t.Errorf("got %s, want total %d unique %d %+v", out, want.Total, want.Unique, cl)
	}
}

// A CPU count of N=17 killed with SIGKILL early resumes from its last
// checkpoint and gives the exact counts. (N=16 on one worker ends within
// a second, which a loaded machine's test process could miss.)
func TestKill9Resume(t *testing.T) {
	const n = 17
	ck := filepath.Join(t.TempDir(), "n16.ckpt")
	args := []string{"-n", fmt.Sprint(n), "-quiet", "-workers", "1", "-checkpoint", ck, "-checkpoint-interval", "20ms"}
	cmd := program(args...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := waitForBatches(t, ck, 1, 0.1) // early in the count
	cmd.Process.Kill()
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the first run was not killed: %v (stderr %q)", cmd.ProcessState, errOut.String())
	}
	s, err := readCheckpoint(ck)
	if err != nil || s.Body.Complete || s.Body.DoneBatches >= s.Body.Job.Batches {
		t.Fatalf("checkpoint after the kill: %+v, %v", s, err)
	}
	t.Logf("killed with %d of %d batches saved", s.Body.DoneBatches, s.Body.Job.Batches)

	wantResumed(t, append(args[:len(args)-2], "-json"), ck, n, 2)
}

// wantResumed runs the program with args (with -json) to the end: the
// counts of n must be the published ones, and the checkpoint ck complete
// after runs runs.
func wantResumed(t *testing.T, args []string, ck string, n, runs int) {
	t.Helper()
	out, err := program(args...).Output()
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	wantKnown(t, string(out), n)
	if s, err := readCheckpoint(ck); err != nil || !s.Body.Complete || s.Body.Runs != runs || s.Body.DoneBatches != s.Body.Job.Batches {
		t.Errorf("final checkpoint %+v, %v", s, err)
	}
}

// SIGTERM and SIGINT stop a count with the checkpoint written, a line
// that says how to resume, and the exit status of the signal; the resumed
// count is exact.
func TestSignalsResume(t *testing.T) {
	const n = 16
	ck := filepath.Join(t.TempDir(), "ck.json")
	args := []string{"-n", fmt.Sprint(n), "-workers", "1", "-json", "-checkpoint", ck, "-checkpoint-interval", "20ms"}
	done := 0
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := program(args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitForBatches(t, ck, done+20, 0)
		cmd.Process.Signal(sig)
		cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		wantCode, name := 143, "SIGTERM"
		if sig == syscall.SIGINT {
			wantCode, name = 130, "SIGINT"
		}
		lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
		re := regexp.MustCompile(`^nqueens-gpu: interrupted by ` + name + ` while counting N=16: (\d+) of (\d+) batches done, saved in ` + regexp.QuoteMeta(ck) + `$`)
		if code != wantCode || out.Len() != 0 || len(lines) != 2 || !re.MatchString(lines[0]) ||
			lines[1] != "nqueens-gpu: resume with: "+app.CommandLine(os.Args[0], args) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", sig, code, out.String(), errOut.String())
		}
		s, err := readCheckpoint(ck)
		if err != nil || s.Body.Complete || s.Body.DoneBatches < done+20 || lines[0] != fmt.Sprintf(
			"nqueens-gpu: interrupted by %s while counting N=16: %d of %d batches done, saved in %s", name, s.Body.DoneBatches, s.Body.Job.Batches, ck) {
			t.Fatalf("%v: checkpoint %+v, %v; stderr %q", sig, s, err, lines[0])
		}
		done = s.Body.DoneBatches
	}
	wantResumed(t, args, ck, n, 3)
}

// A dropped SSH session's SIGHUP stops a checkpointed count as SIGINT and
// SIGTERM do: the checkpoint saved with every batch finished (with an
// hour between checkpoints, the only save is the one on the signal), the
// lock released, exit status 129; the resumed count is exact.
func TestHangupSavesCheckpoint(t *testing.T) {
	const n = 17
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck.json")
	args := []string{"-n", fmt.Sprint(n), "-workers", "1", "-json", "-checkpoint", ck, "-checkpoint-interval", "1h", "-progress-interval", "1s"}
	cmd := program(args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for a status line with batches done, then hang up.
	status := regexp.MustCompile(`^nqueens-gpu: N=17 eightfold: [\d.]+% \((\d+) of \d+ batches`)
	sc := bufio.NewScanner(stderr)
	seen := 0
	var lines []string
	for seen == 0 && sc.Scan() {
		lines = append(lines, sc.Text())
		if m := status.FindStringSubmatch(sc.Text()); m != nil {
			seen, _ = strconv.Atoi(m[1])
		}
	}
	if seen == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no status line with batches done: %q", lines)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	var last string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		last = sc.Text()
	}
	cmd.Wait()
	s, err := readCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("nqueens-gpu: interrupted by SIGHUP while counting N=17: %d of %d batches done, saved in %s", s.Body.DoneBatches, s.Body.Job.Batches, ck)
	if code := cmd.ProcessState.ExitCode(); code != exitHangup || out.Len() != 0 || len(lines) < 2 || lines[len(lines)-2] != want ||
		last != "nqueens-gpu: resume with: "+app.CommandLine(os.Args[0], args) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 129 and %q", code, out.String(), lines, want)
	}
	if s.Body.Complete || s.Body.DoneBatches < seen {
		t.Errorf("checkpoint holds %d batches, %d were done before the signal", s.Body.DoneBatches, seen)
	}
	if _, err := os.Stat(ck + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the lock file is still there: %v", err)
	}
	wantResumed(t, args, ck, n, 2)
}

// Started with SIGHUP ignored, as by nohup, a checkpointed count keeps
// counting through a SIGHUP and ends with the exact counts.
func TestNohupKeepsCounting(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh here")
	}
	const n = 16
	ck := filepath.Join(t.TempDir(), "ck.json")
	args := []string{"-n", fmt.Sprint(n), "-workers", "1", "-json", "-quiet", "-checkpoint", ck, "-checkpoint-interval", "20ms"}
	// trap '' HUP: the shell ignores SIGHUP, and exec keeps it ignored.
	cmd := exec.Command("sh", append([]string{"-c", `trap '' HUP; exec "$0" "$@"`, os.Args[0]}, args...)...)
	cmd.Env = append(os.Environ(), beMain+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := waitForBatches(t, ck, 1, 0.1)
	if s.Body.Complete {
		t.Fatal("the count ended before the signal")
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v, stderr %q", err, errOut.String())
	}
	wantKnown(t, out.String(), n)
	if s, _ := readCheckpoint(ck); errOut.Len() != 0 || !s.Body.Complete || s.Body.Runs != 1 {
		t.Errorf("stderr %q, checkpoint %+v", errOut.String(), s)
	}
}

// SIGHUP stops a run like SIGINT and SIGTERM, unless it was ignored when
// the program started: Notify would catch it again.
func TestStopSignals(t *testing.T) {
	defer signal.Reset(syscall.SIGHUP)
	if got := stopSignals(); !slices.Contains(got, os.Signal(syscall.SIGHUP)) || len(got) != 3 {
		t.Errorf("stop signals %v, want SIGINT, SIGTERM and SIGHUP", got)
	}
	signal.Ignore(syscall.SIGHUP)
	if got := stopSignals(); slices.Contains(got, os.Signal(syscall.SIGHUP)) || len(got) != 2 {
		t.Errorf("with SIGHUP ignored: stop signals %v, want SIGINT and SIGTERM", got)
	}
	if code := app.ExitCode(&app.Interrupted{Signal: syscall.SIGHUP}); code != 129 {
		t.Errorf("exit status %d for SIGHUP, want 129", code)
	}
}

// realHooks are the real solvers with a fixed clock.
func realHooks() hooks {
	h := defaultHooks()
	h.Since = func(time.Time) time.Duration { return fixedElapsed }
	h.IsTerminal = func(io.Writer) bool { return false }
	return h
}

func runReal(args ...string) result {
	var out, errOut bytes.Buffer
	code := runWith(context.Background(), args, &out, &errOut, realHooks())
	return result{code, out.String(), errOut.String()}
}

// A damaged checkpoint or one made for another count is refused with one
// line and exit status 1, and the file is left as it is.
func TestCheckpointRefusedCLI(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "n10.ckpt")
	if r := runReal("-n", "10", "-json", "-checkpoint", ck); r.code != 0 || r.stderr != "" {
		t.Fatalf("first run: exit %d, stderr %q", r.code, r.stderr)
	}
	good, _ := os.ReadFile(ck)
	// Run again: the count is complete and is printed from the file.
	r := runReal("-n", "10", "-json", "-checkpoint", ck)
	if r.code != 0 || !strings.Contains(r.stderr, "holds the finished count of N=10") {
		t.Errorf("complete checkpoint: exit %d, stderr %q", r.code, r.stderr)
	}
	wantKnown(t, r.stdout, 10)

	damaged := strings.Replace(string(good), `"runs": 1`, `"runs": 7`, 1)
	tests := []struct {
		name     string
		contents string
		args     []string
		msg      string
	}{
		{"truncated", string(good[:len(good)*2/3]), []string{"-n", "10"}, "is damaged or not a checkpoint"},
		{"edited", damaged, []string{"-n", "10"}, "its checksum does not match its contents"},
		{"another N", string(good), []string{"-n", "11"}, "was made for another job: N=10, not N=11"},
		{"another algorithm", string(good), []string{"-n", "10", "-algo", "carrychain"}, "-algo eightfold, not -algo carrychain"},
		{"a shard", string(good), []string{"-n", "10", "-shard", "1/2"}, "was made for shard 0/1, not shard 1/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(ck, []byte(tt.contents), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runReal(append(tt.args, "-checkpoint", ck)...)
			wantOneErrorLine(t, r, exitRuntime)
			if !strings.Contains(r.stderr, tt.msg) || !strings.Contains(r.stderr, "checkpoint "+ck) ||
				!strings.Contains(r.stderr, "left as it is") {
				t.Errorf("stderr %q, want it to mention %q", r.stderr, tt.msg)
			}
			if after, _ := os.ReadFile(ck); string(after) != tt.contents {
				t.Error("the checkpoint was changed")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("%d files next to the checkpoint", len(ents))
			}
		})
	}
	// A checkpoint that cannot be written stops the count at once; with
	// no file there, the message speaks of none.
	r = runReal("-n", "10", "-checkpoint", filepath.Join(dir, "no", "such", "dir", "ck"))
	wantOneErrorLine(t, r, exitRuntime)
	if !strings.Contains(r.stderr, "cannot be written: the directory of ") || strings.Contains(r.stderr, "the file") {
		t.Errorf("a checkpoint in a missing directory: %q", r.stderr)
	}
}

// A count cancelled midway (as by SIGTERM) saves its checkpoint, says how
// to resume and exits 143; running the same command again finishes it.
func TestInterruptSavesCheckpoint(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	env := noCUDA()
	var stop bool
	env.cpuCount = func(c context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		for i := 0; i < 3; i++ {
			if !sel(i) {
				continue
			}
			var p nq.Partial
			if i == 0 {
				p = nq.PartialOf(spec.Algo, fakeCounts(spec.N))
			}
			done([]int{i}, p)
			if i == 1 && stop {
				cancel(app.SignalCause{Signal: syscall.SIGTERM})
				return c.Err()
			}
		}
		return nil
	}
	h := env.hooks()
	h.Plan = func(s nq.Spec) (plan.Plan, error) {
		p, _ := fakePlan(s)
		p.Batches, p.TaskCount = 3, 700
		return p, nil
	}
	args := []string{"-n", "9", "-algo", "symmetry", "-checkpoint", ck, "-v"} // a plan of 3 batches
	stop = true
	var out, errOut bytes.Buffer
	code := runWith(ctx, args, &out, &errOut, h)
	want := "nqueens-gpu: interrupted by SIGTERM while counting N=9: 2 of 3 batches done, saved in " + ck + "\n" +
		"nqueens-gpu: resume with: nqueens-gpu -n 9 -algo symmetry -checkpoint " + ck + " -v\n"
	if code != exitTerminated || errOut.String() != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, errOut.String(), want)
	}
	stop = false
	out.Reset()
	errOut.Reset()
	code = runWith(context.Background(), args, &out, &errOut, h)
	if code != 0 || errOut.String() != "" || !strings.Contains(out.String(), "\n 9:                   352                    46             0             4                    42") {
		t.Errorf("resumed: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

func TestCommandLine(t *testing.T) {
	got := app.CommandLine("", []string{"-n", "20", "-checkpoint", "my run's file.ckpt", "-device", "all,cpu", "-shard", "1/4", ""})
	want := `nqueens-gpu -n 20 -checkpoint 'my run'\''s file.ckpt' -device all,cpu -shard 1/4 ''`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, want := app.CommandLine("./bin/my nqueens", []string{"-n", "8"}), `'./bin/my nqueens' -n 8`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Shards 0..3 merged give the counts of the unsharded run.
func TestShardsMerge(t *testing.T) {
	dir := t.TempDir()
	for _, algo := range []string{"symmetry", "carrychain", "mirror", "bitmap"} {
		for _, n := range []int{1, 5, 8, 11, 13} {
			whole := runReal("-n", fmt.Sprint(n), "-algo", algo, "-json", "-quiet")
			var files []string
			for i := 0; i < 4; i++ {
				r := runReal("-n", fmt.Sprint(n), "-algo", algo, "-json", "-shard", fmt.Sprintf("%d/4", i))
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("%s N=%d shard %d: exit %d, stderr %q", algo, n, i, r.code, r.stderr)
				}
				var sr shard.Result
				if err := json.Unmarshal([]byte(r.stdout), &sr); err != nil || sr.Kind != shard.Kind || sr.Shard != i ||
					sr.Shards != 4 || sr.N != n || string(sr.Algo) != algo || len(sr.Fingerprint) != 64 || sr.Version == "" {
					t.Fatalf("shard result %q: %v", r.stdout, err)
				}
				f := filepath.Join(dir, fmt.Sprintf("%s-%d-shard-%d.json", algo, n, i))
				os.WriteFile(f, []byte(r.stdout), 0o644)
				files = append(files, f)
			}
			var out, errOut bytes.Buffer
			code := runMergeWith(context.Background(), append([]string{"-json"}, files...), &out, &errOut, defaultHooks())
			if code != 0 || errOut.String() != "" {
				t.Fatalf("%s N=%d merge: exit %d, stderr %q", algo, n, code, errOut.String())
			}
			got, want := decodeJSON(t, out.String()), decodeJSON(t, whole.stdout)
			// The same record but for the time, the workers and the
			// time it ended, which a merge does not know.
			got[0].Seconds, want[0].Seconds = 0, 0
			want[0].Workers, want[0].Finished = 0, time.Time{}
			if got[0] != want[0] || got[0].Version == "" {
				t.Errorf("%s N=%d: merged %+v, whole %+v", algo, n, got[0], want[0])
			}
		}
	}
}

func TestMergeCLI(t *testing.T) {
	dir := t.TempDir()
	var files []string
	var all strings.Builder
	for i := 0; i < 4; i++ {
		r := runReal("-n", "12", "-json", "-shard", fmt.Sprintf("%d/4", i))
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		os.WriteFile(f, []byte(r.stdout), 0o644)
		files = append(files, f)
		all.WriteString(r.stdout + "\n")
	}
	one := filepath.Join(dir, "all.jsonl")
	os.WriteFile(one, []byte(all.String()), 0o644)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(runReal("-n", "11", "-json", "-shard", "3/4").stdout), 0o644)
	count := filepath.Join(dir, "count.json")
	os.WriteFile(count, []byte(runReal("-n", "12", "-json").stdout), 0o644)
	// A shard result pretty-printed, as jq . or an editor writes it.
	var pretty bytes.Buffer
	if data, _ := os.ReadFile(files[3]); json.Indent(&pretty, bytes.TrimSpace(data), "", "  ") != nil {
		t.Fatal("cannot indent the shard result")
	}
	indented := filepath.Join(dir, "pretty.json")
	os.WriteFile(indented, pretty.Bytes(), 0o644)

	merge := func(args ...string) result {
		var out, errOut bytes.Buffer
		code := runMergeWith(context.Background(), args, &out, &errOut, defaultHooks())
		return result{code, out.String(), errOut.String()}
	}
	// Table output, with flags anywhere, and one file holding every shard.
	for _, args := range [][]string{append([]string{"-v"}, files...), append(files, "-v"), {one, "-v"}, append(append([]string{"-v"}, files[:3]...), indented)} {
		r := merge(args...)
		want := "12:                 14200                  1787             4            18                  1765"
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, want) || !strings.HasPrefix(r.stdout, " N:") {
			t.Errorf("merge %v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing", files[:3], exitRuntime, "merge: shard 3/4 is missing: the files hold 3 of the job's 4 shards"},
		{"duplicated", append(append([]string(nil), files...), files[2]), exitRuntime, "shard 2/4 is there twice: " + files[2] + " and " + files[2]},
		{"mismatched", append(append([]string(nil), files[:3]...), other), exitRuntime, "is for N=11"},
		{"a count, not a shard", append(append([]string(nil), files[:3]...), count), exitRuntime, "is not a shard result"},
		{"no such file", []string{filepath.Join(dir, "nope.json")}, exitRuntime, "no such file"},
		{"no files", []string{"-json"}, exitUsage, "no files"},
		{"bad flag", []string{"-x", files[0]}, exitUsage, "flag provided but not defined"},
	}
	for _, tt := range tests {
		r := merge(tt.args...)
		wantOneErrorLine(t, r, tt.code)
		if !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("%s: stderr %q, want %q", tt.name, r.stderr, tt.msg)
		}
	}
	if r := merge("-h"); r.code != 0 || !strings.HasPrefix(r.stdout, "nqueens-gpu merge combines") {
		t.Errorf("merge -h: exit %d, stdout %.40q", r.code, r.stdout)
	}
}

// Without a terminal, progress is one status line per interval; -quiet
// silences it.
func TestProgressLines(t *testing.T) {
	defer func(min time.Duration) { minProgressInterval = min }(minProgressInterval)
	minProgressInterval = time.Millisecond // several lines in a short count
	env := noCUDA()
	env.cpuCount = func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		time.Sleep(120 * time.Millisecond)
		fakeBatch(spec.N, spec.Algo, sel, done)
		return nil
	}
	h := env.hooks()
	var out, errOut bytes.Buffer
	code := runWith(context.Background(), []string{"-n", "9", "-algo", "symmetry", "-progress-interval", "20ms"}, &out, &errOut, h)
	lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
	if code != 0 || len(lines) < 2 || !strings.HasPrefix(lines[0], "nqueens-gpu: N=9 symmetry: 0.0% (0 of 1 batches, 0 of 1 tasks)") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	errOut.Reset()
	code = runWith(context.Background(), []string{"-n", "9", "-algo", "symmetry", "-progress-interval", "20ms", "-quiet"}, &out, &errOut, h)
	if code != 0 || errOut.String() != "" {
		t.Errorf("-quiet: exit %d, stderr %q", code, errOut.String())
	}
}

// At N=24 and up the first status line of a CPU count has the total, the
// percentage and an estimated time left: the job starts from the recorded
// task list (plan.Known) instead of listing 1.5 billion tasks first
// (N=26), which used to leave the line at "listing the tasks" for a minute
// and more. A signal then ends the count at once, its task listing and
// batch in hand included.
func TestProgressLargeNFromStart(t *testing.T) {
	defer func(min time.Duration) { minProgressInterval = min }(minProgressInterval)
	minProgressInterval = time.Millisecond
	env := noCUDA()
	env.cpuCount = func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		<-ctx.Done() // a batch of N=26 takes minutes
		return ctx.Err()
	}
	h := env.hooks()
	h.Plan = nil // the job's own
	for _, n := range []int{24, 26, 28} {
		want, _ := plan.Known(plan.Normalize(nq.Spec{N: n}))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(150*time.Millisecond, cancel)
		var out bytes.Buffer
		var errOut bytes.Buffer
		start := time.Now()
		code := runWith(ctx, []string{"-n", strconv.Itoa(n), "-device", "cpu", "-progress-interval", "20ms"}, &out, &errOut, h)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("N=%d: the count took %v, cancelled at 150 ms", n, took)
		}
		// The fake host batch ends at once: a batch of one task.
		first, _, _ := strings.Cut(errOut.String(), "\n")
		line := regexp.MustCompile(fmt.Sprintf(`^nqueens-gpu: N=%d eightfold: 0\.0%% \([01] of %d batches, [01] of %d tasks\), .*, elapsed 00:00:00, left about .* \(estimate\)$`,
			n, want.Batches, want.TaskCount))
		if code != exitInterrupted || !line.MatchString(first) {
			t.Errorf("N=%d: exit %d, first line\n%q, want it to match\n%s", n, code, first, line)
		}
	}
}

// At N=28 on the CPU the fallback line and the first progress line give
// the same estimate of the count's time, in years.
func TestOneEstimateN28(t *testing.T) {
	defer func(min time.Duration) { minProgressInterval = min }(minProgressInterval)
	minProgressInterval = time.Millisecond
	env := noCUDA()
	env.cpuCount = func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		<-ctx.Done()
		return ctx.Err()
	}
	h := env.hooks()
	h.Plan = nil // the job's own: plan.Known's task count from the start
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel)
	var out, errOut bytes.Buffer
	code := runWith(ctx, []string{"-n", "28", "-device", "0", "-progress-interval", "20ms"}, &out, &errOut, h)
	lines := strings.Split(errOut.String(), "\n")
	fallback := regexp.MustCompile(`^nqueens-gpu: counting on the CPU \(3 workers, about (\d[\d.]* years) for N=28\): `)
	progress := regexp.MustCompile(`^nqueens-gpu: N=28 eightfold: .*, left about (\d[\d.]* years) \(estimate\)$`)
	if code != exitInterrupted || len(lines) < 2 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	f, p := fallback.FindStringSubmatch(lines[0]), progress.FindStringSubmatch(lines[1])
	if f == nil || p == nil || f[1] != p[1] {
		t.Errorf("the fallback line\n%q\nand the progress line\n%q\ndo not give one estimate in years", lines[0], lines[1])
	}
}

// A count stopped by a signal names the command as the user typed it:
// with a checkpoint to resume it, without one to suggest -checkpoint for
// next time (a range is counted one N at a time with one).
func TestInterruptHints(t *testing.T) {
	env := noCUDA()
	h := env.hooks()
	var cancel context.CancelCauseFunc
	env.cpuCount = func(c context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		if spec.N == 9 {
			cancel(app.SignalCause{Signal: syscall.SIGINT})
			return c.Err()
		}
		fakeBatch(spec.N, spec.Algo, sel, done)
		return nil
	}
	ck := filepath.Join(t.TempDir(), "ck")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "9", "-json"}, "nqueens-gpu: interrupted by SIGINT while counting N=9\n" +
			"nqueens-gpu: nothing was saved; a count with -checkpoint can be resumed: ./bin/nqueens-gpu -n 9 -json -checkpoint n9.ckpt\n"},
		{[]string{"-n", "9", "-shard", "1/4", "-json"}, "nqueens-gpu: interrupted by SIGINT while counting N=9\n" +
			"nqueens-gpu: nothing was saved; a count with -checkpoint can be resumed: ./bin/nqueens-gpu -n 9 -shard 1/4 -json -checkpoint n9-shard1.ckpt\n"},
		{[]string{"-n", "8-10", "-json"}, "nqueens-gpu: interrupted by SIGINT while counting N=9\n" +
			"nqueens-gpu: nothing was saved; a count of one N with -checkpoint can be resumed (-n 9 -checkpoint n9.ckpt)\n"},
		{[]string{"-n", "9", "-checkpoint", ck}, "nqueens-gpu: interrupted by SIGINT while counting N=9: 1 of 2 batches done, saved in " + ck + "\n" +
			"nqueens-gpu: resume with: ./bin/nqueens-gpu -n 9 -checkpoint " + ck + "\n"},
	}
	for _, tt := range tests {
		var ctx context.Context
		ctx, cancel = context.WithCancelCause(context.Background())
		var out, errOut bytes.Buffer
		code := runAs(ctx, "./bin/nqueens-gpu", tt.args, &out, &errOut, h)
		if code != exitInterrupted || errOut.String() != tt.want {
			t.Errorf("%v: exit %d, stderr\n%q, want\n%q", tt.args, code, errOut.String(), tt.want)
		}
		cancel(nil)
	}
}
