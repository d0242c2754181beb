//go:build cuda

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run the CUDA build on the stand-in driver's GPUs whose
// launches take the time of their tasks (internal/fakecuda: FAKECUDA_TASK_US
// by levels, FAKECUDA_NODE_NS by search nodes), and read its log of when
// each launch ran on its GPU (FAKECUDA_LOG) and the program's -gpu-trace:
// that the GPU starts at once and waits for the host little, that a count
// reports its work within seconds however long the old launches were,
// that a stop loses seconds of GPU work at most, and that several GPUs,
// or a CPU beside them, each do their part. The times are the stand-in's,
// a model of a GPU's, not a measurement.

// standInRun is one run of the program on the stand-in.
type standInRun struct {
	cmd    *exec.Cmd
	errOut bytes.Buffer
	out    bytes.Buffer
	log    string // FAKECUDA_LOG
	exited time.Time
}

// startStandIn starts the program with args on the stand-in driver with
// env. counts says whether its kernels count (FAKECUDA_VALUES=count); if
// not, the program's host batch counts nothing either (TestMain), so that
// its sums, all zero, reduce.
func startStandIn(t *testing.T, counts bool, env []string, args ...string) *standInRun {
	t.Helper()
	r := &standInRun{log: filepath.Join(t.TempDir(), "launches.log")}
	mode := "stand-in"
	if counts {
		mode, env = "1", append(env, "FAKECUDA_VALUES=count")
	}
	r.cmd = exec.Command(os.Args[0], args...)
	r.cmd.Env = append(append(os.Environ(), beMain+"="+mode, "NQUEENS_LIBCUDA="+fakeDriver(t), "FAKECUDA_LOG="+r.log), env...)
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.errOut
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return r
}

// wait waits for the program to exit, at most limit, and returns its exit
// status.
func (r *standInRun) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- r.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(limit):
		r.cmd.Process.Kill()
		<-exited
		t.Fatalf("still running after %v (stderr %q)", limit, tail(r.errOut.String()))
	}
	r.exited = time.Now()
	return r.cmd.ProcessState.ExitCode()
}

// tail is the last lines of s, for messages.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-8):], "\n")
}

// gpuLaunch is one launch as the stand-in ran it: its GPU, tasks, and when
// it ran (wall-clock seconds).
type gpuLaunch struct {
	dev, tasks int
	start, end float64
}

// launches reads the stand-in's log of r.
func (r *standInRun) launches(t *testing.T) []gpuLaunch {
	t.Helper()
	f, err := os.Open(r.log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ls []gpuLaunch
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l gpuLaunch
		if _, err := fmt.Sscanf(sc.Text(), "launch %d %d %f %f", &l.dev, &l.tasks, &l.start, &l.end); err != nil {
			t.Fatalf("stand-in log line %q: %v", sc.Text(), err)
		}
		ls = append(ls, l)
	}
	return ls
}

// traced is one launch as -gpu-trace reports it: seconds since its solve
// began.
type traced struct {
	n, dev, launch, tasks, batches int
	packed, queued, done           float64
}

// traces reads r's -gpu-trace lines.
func (r *standInRun) traces(t *testing.T) []traced {
	t.Helper()
	var ts []traced
	for _, line := range strings.Split(r.errOut.String(), "\n") {
		if !strings.HasPrefix(line, "gpu-trace\t") {
			continue
		}
		var l traced
		if _, err := fmt.Sscanf(line, "gpu-trace\t%d\t%d\t%d\t%d\t%d\t%f\t%f\t%f", &l.n, &l.dev, &l.launch, &l.tasks, &l.batches,
			&l.packed, &l.queued, &l.done); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		ts = append(ts, l)
	}
	return ts
}

// idle is the time GPU dev of ls waited for the host from start (wall
// clock) to its last launch's end, and that span.
func idle(ls []gpuLaunch, dev int, start float64) (waited, span float64) {
	at := start
	for _, l := range ls {
		if l.dev != dev {
			continue
		}
		waited += max(0, l.start-at)
		at = max(at, l.end)
	}
	return waited, at - start
}

// The headline count on a stand-in GPU: the first launch is queued within
// 50 ms of the count's start, and the GPU waits for the host at most 5% of
// the count.
func TestStandInStartsAtOnce(t *testing.T) {
	// 20 µs per task of 10 levels, 216 times that at 13: about 11 s.
	r := startStandIn(t, false, []string{"FAKECUDA_TASK_US=20"}, "-n", "20", "-device", "0", "-require-gpu", "-json", "-quiet", "-gpu-trace")
	if code := r.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, tail(r.errOut.String()))
	}
	ts, ls := r.traces(t), r.launches(t)
	if len(ts) < 3 || len(ls) != len(ts) {
		t.Fatalf("%d launches traced, %d in the stand-in's log", len(ts), len(ls))
	}
	// The count's start on the wall clock: the first launch started on
	// the idle GPU as it was queued.
	start := ls[0].start - ts[0].queued
	waited, span := idle(ls, 0, start)
	t.Logf("first launch queued at %.3f s; the GPU waited %.3f s of %.3f s (%.1f%%), %d launches",
		ts[0].queued, waited, span, 100*waited/span, len(ts))
	if ts[0].queued > 0.050 {
		t.Errorf("the first launch was queued %.3f s after the count started, want at most 0.050", ts[0].queued)
	}
	if waited > 0.05*span {
		t.Errorf("the GPU waited for the host %.3f s of the count's %.3f s, want at most 5%%", waited, span)
	}
	if !regexp.MustCompile(`(?m)^gpu-open\t0\t`).MatchString(r.errOut.String()) ||
		!regexp.MustCompile(`(?m)^gpu-start\t20\t`).MatchString(r.errOut.String()) {
		t.Errorf("no gpu-open and gpu-start lines: %s", tail(r.errOut.String()))
	}
}

// progressLine is a status line's finished batches.
var progressLine = regexp.MustCompile(`\((\d+) of \d+ batches`)

// At N=22 on a stand-in GPU whose launches of the old sizes took over an
// hour (the first 4.2 million tasks at 12 s a thread each on 16 SMs), a
// count reports finished batches at least every 2 s, its checkpoint holds
// them, SIGINT loses at most 5 s of the stand-in's GPU work, and the
// resumed count counts every batch once.
func TestStandInLongLaunches(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "n22.ckpt")
	args := []string{"-n", "22", "-device", "0", "-require-gpu", "-gpu-trace", "-checkpoint", ck,
		"-checkpoint-interval", "1s", "-progress-interval", "1s"}
	// 1.58 ms a thread for a task of 10 levels, 6 times that a level: 12
	// s at 15, the most levels at N=22.
	r := startStandIn(t, false, []string{"FAKECUDA_TASK_US=1580", "FAKECUDA_SMS=16"}, args...)
	time.Sleep(8 * time.Second)
	mid, err := readCheckpoint(ck)
	if err != nil || mid.Body.DoneBatches == 0 {
		t.Errorf("the checkpoint 8 s into the count: %+v, %v; want batches done", mid, err)
	}
	time.Sleep(4 * time.Second)
	sent := time.Now()
	r.cmd.Process.Signal(syscall.SIGINT)
	if code := r.wait(t, 10*time.Second); code != exitInterrupted || r.exited.Sub(sent) > 2*time.Second {
		t.Errorf("exit %d %v after SIGINT, want %d within 2 s", code, r.exited.Sub(sent), exitInterrupted)
	}
	checkProgress(t, r, ck)
	resume := startStandIn(t, false, nil, args...)
	if code := resume.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("resumed: exit %d: %s", code, tail(resume.errOut.String()))
	}
	if s, err := readCheckpoint(ck); err != nil || !s.Body.Complete || s.Body.DoneBatches != s.Body.Job.Batches || s.Body.Runs != 2 {
		t.Errorf("after the resumed run, checkpoint %+v, %v: want every batch done in 2 runs", s, err)
	}
}

// checkProgress checks the stopped run r of TestStandInLongLaunches: its
// reports, its status lines, its checkpoint and the GPU work it lost.
func checkProgress(t *testing.T, r *standInRun, ck string) {
	t.Helper()
	ts, ls := r.traces(t), r.launches(t)
	reported, prev := 0, 0.0
	for _, l := range ts {
		if l.done-prev > 2 {
			t.Errorf("launch %d reported %.2f s after the one before (%.2f s), want at most 2 s", l.launch, l.done, prev)
		}
		reported, prev = reported+l.batches, l.done
	}
	var counts []int
	for _, m := range progressLine.FindAllStringSubmatch(r.errOut.String(), -1) {
		k, _ := strconv.Atoi(m[1])
		counts = append(counts, k)
	}
	for i := 2; i < len(counts); i++ {
		if counts[i] <= counts[i-2] {
			t.Errorf("status lines %d and %d, 2 s apart, both say %d batches done", i-2, i, counts[i])
		}
	}
	s, err := readCheckpoint(ck)
	if err != nil || s.Body.DoneBatches < reported {
		t.Errorf("checkpoint %+v, %v: want the %d batches reported", s, err, reported)
	}
	// The GPU work before the exit that no report covers.
	exit := float64(r.exited.UnixNano()) / 1e9
	lost := 0.0
	for _, l := range ls[min(len(ts), len(ls)):] {
		lost += max(0, min(l.end, exit)-l.start)
	}
	t.Logf("%d launches reported, %d batches; %d status lines; %.2f s of GPU work lost", len(ts), reported, len(counts), lost)
	if lost > 5 {
		t.Errorf("the stop lost %.2f s of the stand-in GPU's work, want at most 5", lost)
	}
}

// A count stopped in the middle on a stand-in GPU that counts, and
// resumed, gives the published Total: at N=16, whose launch of the old
// sizes took the whole count in one (about 30 s here), stopped after 12 s.
func TestStandInResumeExact(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "n16.ckpt")
	args := []string{"-n", "16", "-device", "0", "-require-gpu", "-json", "-quiet", "-gpu-trace", "-checkpoint", ck,
		"-checkpoint-interval", "1s"}
	r := startStandIn(t, true, []string{"FAKECUDA_NODE_NS=1000000"}, args...) // 1 ms a node and thread
	time.Sleep(12 * time.Second)
	r.cmd.Process.Signal(syscall.SIGINT)
	if code := r.wait(t, 10*time.Second); code != exitInterrupted {
		t.Errorf("exit %d after SIGINT, want %d", code, exitInterrupted)
	}
	checkProgress(t, r, ck)
	resume := startStandIn(t, true, nil, args...)
	if code := resume.wait(t, 3*time.Minute); code != 0 || !strings.Contains(resume.out.String(), `"total":14772512`) {
		t.Errorf("resumed: exit %d, stdout %q, stderr %s", code, resume.out.String(), tail(resume.errOut.String()))
	}
}

// countSeconds is the "seconds" of a -json count's output.
var countSeconds = regexp.MustCompile(`"seconds":([0-9.e+-]+)`)

// jsonCount runs a -json count with args on the stand-in (counting, env)
// and returns its output and seconds.
func jsonCount(t *testing.T, env []string, args ...string) (*standInRun, float64) {
	t.Helper()
	r := startStandIn(t, true, env, append([]string{"-require-gpu", "-json", "-quiet"}, args...)...)
	if code := r.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, tail(r.errOut.String()))
	}
	m := countSeconds.FindStringSubmatch(r.out.String())
	if m == nil {
		t.Fatalf("%v: no seconds in %q", args, r.out.String())
	}
	s, _ := strconv.ParseFloat(m[1], 64)
	return r, s
}

// Several stand-in GPUs count together, each with its own pipeline: every
// one runs launches, the count is exact, and shorter than on one of them.
func TestStandInSeveralGPUs(t *testing.T) {
	env := []string{"FAKECUDA_DEVICES=3", "FAKECUDA_NODE_NS=1000000"} // 1 ms a node and thread
	_, one := jsonCount(t, env, "-n", "15", "-device", "0")
	r, all := jsonCount(t, env, "-n", "15", "-device", "all")
	if !strings.Contains(r.out.String(), `"total":2279184`) || !strings.Contains(r.out.String(), `"device":"0,1,2"`) {
		t.Errorf("-device all: stdout %q, want N=15's Total on GPUs 0,1,2", r.out.String())
	}
	ran := map[int]int{}
	for _, l := range r.launches(t) {
		ran[l.dev]++
	}
	t.Logf("one GPU %.2f s, three %.2f s; launches by GPU %v", one, all, ran)
	if len(ran) != 3 {
		t.Errorf("launches by GPU %v, want each of the 3 GPUs to run some", ran)
	}
	if all > 0.6*one {
		t.Errorf("three GPUs took %.2f s, one %.2f s: want at most 0.6 of it", all, one)
	}
}

// The CPU next to a stand-in GPU takes batches only where it helps: the
// count is exact and no slower than on the GPU alone (a tenth of a second
// of slack for a machine shared with other work).
func TestStandInCPUBeside(t *testing.T) {
	env := []string{"FAKECUDA_NODE_NS=200000"} // 0.2 ms a node and thread
	_, gpuAlone := jsonCount(t, env, "-n", "16", "-device", "0")
	r, both := jsonCount(t, env, "-n", "16", "-device", "0,cpu")
	t.Logf("GPU %.2f s, GPU and CPU %.2f s", gpuAlone, both)
	if !strings.Contains(r.out.String(), `"total":14772512`) || !strings.Contains(r.out.String(), `"backend":"gpu+cpu"`) {
		t.Errorf("-device 0,cpu: stdout %q, want N=16's Total on the GPU and the CPU", r.out.String())
	}
	if both > gpuAlone+0.1 {
		t.Errorf("-device 0,cpu took %.2f s, -device 0 %.2f s: want no longer", both, gpuAlone)
	}
}
