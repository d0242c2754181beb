//go:build cuda

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/fakecuda"
)

// These tests run the CUDA build on a stand-in for the NVIDIA driver
// (internal/fakecuda) that misbehaves in the ways a first GPU host or a
// simulator can: calls that fail, calls that succeed with null handles,
// launches that do nothing, and launches that run for an hour. Each must
// end in one line that names the driver call (exit 1), or the CPU
// fallback where one is allowed, and a signal must end a count within
// 2 s with the checkpoint saved, whatever the GPU is doing.

var fakeLib struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// fakeDriver returns the path of the stand-in driver library, built once
// per test binary.
func fakeDriver(t *testing.T) string {
	t.Helper()
	fakeLib.once.Do(func() {
		// Shared by the tests of this binary, so not a t.TempDir.
		if fakeLib.dir, fakeLib.err = os.MkdirTemp("", "nqueens-fakecuda-"); fakeLib.err != nil {
			return
		}
		fakeLib.path, fakeLib.err = fakecuda.Build(fakeLib.dir)
	})
	if fakeLib.err != nil {
		t.Fatal(fakeLib.err)
	}
	return fakeLib.path
}

// onFake runs the program with args on the stand-in driver with env
// (FAKECUDA_* settings) and returns its result.
func onFake(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := program(args...)
	cmd.Env = append(append(cmd.Env, "NQUEENS_LIBCUDA="+fakeDriver(t)), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// Every driver call that fails, wherever it comes (opening the GPU,
// sizing, allocating, launching, waiting), is one line naming the call and
// the driver's status, and exit 1 with -require-gpu.
func TestFakeDriverFailingCalls(t *testing.T) {
	for _, c := range []struct{ fail, want string }{
		{"cuCtxCreate_v2", "cuCtxCreate: CUDA_ERROR_OUT_OF_MEMORY"},
		{"cuModuleLoadDataEx", "load module eightfold: cuModuleLoadDataEx: CUDA_ERROR_OUT_OF_MEMORY"},
		{"cuModuleGetFunction:400", "cuModuleGetFunction nq_eightfold: CUDA_ERROR_INVALID_HANDLE"},
		{"cuFuncGetAttribute:1", "cuFuncGetAttribute: CUDA_ERROR_INVALID_VALUE"},
		{"cuOccupancyMaxActiveBlocksPerMultiprocessor:1", "cuOccupancyMaxActiveBlocksPerMultiprocessor: CUDA_ERROR_INVALID_VALUE"},
		{"cuStreamCreate", "cuStreamCreate: CUDA_ERROR_OUT_OF_MEMORY"},
		{"cuMemAllocHost_v2", "cuMemAllocHost: CUDA_ERROR_OUT_OF_MEMORY"},
		{"cuMemsetD32Async:1", "cuMemsetD32Async: CUDA_ERROR_INVALID_VALUE"},
		{"cuMemcpyHtoDAsync_v2:1", "cuMemcpyHtoDAsync: CUDA_ERROR_INVALID_VALUE"},
		{"cuLaunchKernel:719", "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED"},
		{"cuMemcpyDtoHAsync_v2:1", "cuMemcpyDtoHAsync: CUDA_ERROR_INVALID_VALUE"},
		{"cuStreamQuery:719", "cuStreamQuery (the launch or its copies): CUDA_ERROR_LAUNCH_FAILED"},
	} {
		r := onFake(t, []string{"FAKECUDA_FAIL=" + c.fail}, "-n", "12", "-device", "0", "-require-gpu", "-json")
		wantOneErrorLine(t, r, exitRuntime)
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("FAKECUDA_FAIL=%s: stderr %q, want it to name %q", c.fail, r.stderr, c.want)
		}
	}
}

// A driver whose calls succeed and do nothing (null handles, as GPGPU-Sim's
// stubs of the driver API; or launches that run nothing) is refused with
// one line, never a panic, never a count: exit 1 with -require-gpu, the
// CPU's exact count otherwise, with the line saying why.
func TestFakeDriverStubs(t *testing.T) {
	for _, c := range []struct{ mode, want string }{
		{"null", "load module eightfold: cuModuleLoadDataEx returned success and a null handle"},
		{"stub", "self-test launch of nq_eightfold returned success, but 0 of its 32 threads ran"},
	} {
		for _, args := range [][]string{nil, {"-algo", "symmetry", "-gpu-variant", "static"}} {
			r := onFake(t, []string{"FAKECUDA_MODE=" + c.mode}, append([]string{"-n", "12", "-device", "0", "-require-gpu", "-json"}, args...)...)
			wantOneErrorLine(t, r, exitRuntime)
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("FAKECUDA_MODE=%s %v: stderr %q, want %q", c.mode, args, r.stderr, c.want)
			}
		}
		r := onFake(t, []string{"FAKECUDA_MODE=" + c.mode}, "-n", "12", "-device", "0", "-json")
		if r.code != 0 || !strings.Contains(r.stdout, `"total":14200`) || !strings.Contains(r.stdout, `"backend":"cpu"`) ||
			strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("FAKECUDA_MODE=%s without -require-gpu: exit %d, stdout %q, stderr %q; want the CPU's count and one line naming the cause",
				c.mode, r.code, r.stdout, r.stderr)
		}
	}
}

// A signal during launches that run for an hour ends the count within
// 2 s, with the signal's exit status and the checkpoint saved: the waits
// poll the streams, and the launches in flight are abandoned.
func TestFakeDriverSignalDuringLongLaunch(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		ck := filepath.Join(t.TempDir(), "n20.ckpt")
		cmd := program("-n", "20", "-device", "0", "-require-gpu", "-quiet", "-checkpoint", ck)
		cmd.Env = append(cmd.Env, "NQUEENS_LIBCUDA="+fakeDriver(t), "FAKECUDA_MODE=slow", "FAKECUDA_BUSY_S=3600")
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The checkpoint is written once the count starts; a second later
		// both slots have launched and wait.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(ck); err == nil {
				break
			}
		}
		time.Sleep(time.Second)
		sent := time.Now()
		cmd.Process.Signal(sig)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%v: still running 10 s after the signal (stderr %q)", sig, errOut.String())
		}
		took := time.Since(sent)
		want := exitInterrupted
		if sig == syscall.SIGTERM {
			want = exitTerminated
		}
		if code := cmd.ProcessState.ExitCode(); code != want || took > 2*time.Second {
			t.Errorf("%v: exit %d after %v, want %d within 2 s (stderr %q)", sig, code, took, want, errOut.String())
		}
		s, err := readCheckpoint(ck)
		if err != nil || s.Body.Complete || s.Body.Job.Batches == 0 {
			t.Errorf("%v: checkpoint %+v, %v", sig, s, err)
		}
		if !strings.Contains(errOut.String(), "while counting N=20") || !strings.Contains(errOut.String(), "resume with:") {
			t.Errorf("%v: stderr %q, want a signal during the count and the resume line", sig, errOut.String())
		}
		t.Logf("%v: exit %d after %v", sig, cmd.ProcessState.ExitCode(), took.Round(time.Millisecond))
	}
}

// Every kernel is looked up only in the module whose PTX declares it: a
// lookup that the driver answers CUDA_ERROR_NOT_FOUND is an API error to
// compute-sanitizer, whose memcheck failed every run for it on an H200
// (two such lookups per count). The stand-in driver answers as the real
// one and names each such lookup on stderr.
func TestFakeDriverKernelLookups(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"-gpu-variant", "static"},
		{"-algo", "symmetry", "-gpu-variant", "static"},
		{"-algo", "symmetry", "-gpu-dynamic"},
		{"-algo", "symmetry", "-gpu-smem"},
		{"-algo", "carrychain"},
		{"-gpu-nodes"},
		{"-algo", "symmetry", "-gpu-smem", "-gpu-nodes"},
		{"-algo", "carrychain", "-gpu-nodes"},
	} {
		r := onFake(t, nil, append([]string{"-n", "12", "-device", "0", "-require-gpu", "-json"}, args...)...)
		// The stand-in runs no kernel, so a count ends at its first check
		// of a launch's results; the lookups come before it.
		if strings.Contains(r.stderr, "cuModuleGetFunction") || strings.Contains(r.stderr, "find kernel") {
			t.Errorf("%v: a kernel lookup failed: stderr %q", args, r.stderr)
		}
		if !strings.Contains(r.stdout, `"backend":"gpu"`) && !strings.Contains(r.stderr, "N=12: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a count on the stand-in GPU or its refusal of a launch", args, r.code, r.stdout, r.stderr)
		}
	}
}

// -gpu-trace prints one line per launch, numbered in order, with the
// launch's tasks (at most -gpu-max-tasks, whole batches) and times that
// go packed <= queued <= done; without the flag there is none.
func TestFakeDriverTrace(t *testing.T) {
	args := []string{"-n", "12", "-device", "0", "-require-gpu", "-json", "-quiet",
		"-algo", "symmetry", "-gpu-variant", "static", "-gpu-max-tasks", "1000"}
	r := onFake(t, nil, append(args, "-gpu-trace")...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	launches, lastDone := 0, 0.0
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if strings.HasPrefix(line, "gpu-open\t") || strings.HasPrefix(line, "gpu-start\t") {
			continue // the start's steps (TestStandInStartsAtOnce)
		}
		var n, dev, launch, tasks, batches int
		var packed, queued, done float64
		if _, err := fmt.Sscanf(line, "gpu-trace\t%d\t%d\t%d\t%d\t%d\t%f\t%f\t%f", &n, &dev, &launch, &tasks, &batches, &packed, &queued, &done); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if n != 12 || dev != 0 || launch != launches || tasks < 1 || tasks > 1000 || batches < 1 {
			t.Errorf("line %q: want N=12, GPU 0, launch %d, 1 to 1000 tasks", line, launches)
		}
		if !(0 <= packed && packed <= queued && queued <= done && done >= lastDone) {
			t.Errorf("line %q: want packed <= queued <= done, and done from %f on", line, lastDone)
		}
		launches, lastDone = launches+1, done
	}
	if launches < 2 {
		t.Errorf("%d launches traced; want several with -gpu-max-tasks 1000: stderr %q", launches, r.stderr)
	}
	if r := onFake(t, nil, args...); r.code != 0 || strings.Contains(r.stderr, "gpu-trace") {
		t.Errorf("without -gpu-trace: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A count loads only the modules of the kernels it runs (the driver
// JIT-compiles each module it loads: all six took 1.7 s on an H200), and
// the self-test's at open: the eightfold module, whose first kernel is
// nq_eightfold.
func TestFakeDriverLoadsOnlyNeededModules(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // the first kernel of each module loaded, in order
	}{
		{nil, []string{"nq_eightfold"}},
		{[]string{"-gpu-nodes"}, []string{"nq_eightfold", "nq_eightfold_nodes"}},
		{[]string{"-algo", "symmetry", "-gpu-variant", "static"}, []string{"nq_eightfold", "nq_symmetry_boards"}},
		{[]string{"-algo", "carrychain"}, []string{"nq_eightfold", "nq_carry_frames"}},
	} {
		r := onFake(t, []string{"FAKECUDA_LOG_LOADS=1"}, append([]string{"-n", "12", "-device", "0", "-require-gpu", "-json", "-quiet"}, c.args...)...)
		var loads []string
		for _, line := range strings.Split(r.stderr, "\n") {
			if k, ok := strings.CutPrefix(line, "fakecuda: cuModuleLoadDataEx "); ok {
				loads = append(loads, k)
			}
		}
		if fmt.Sprint(loads) != fmt.Sprint(c.want) {
			t.Errorf("%v: modules loaded %v, want %v (stderr %q)", c.args, loads, c.want, r.stderr)
		}
	}
}
