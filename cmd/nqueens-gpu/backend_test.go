package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/estimate"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// decodeJSON parses -json output.
func decodeJSON(t *testing.T, out string) []report.Record {
	t.Helper()
	var recs []report.Record
	for _, l := range lines(out) {
		var r report.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestDeviceCPU(t *testing.T) {
	env := twoGPUs()
	r := runFake(env, "-n", "6-7", "-workers", "5", "-json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	spec := func(n int) nq.Spec {
		return nq.Spec{N: n, Algo: plan.DefaultAlgo, Depth: tasks.DefaultSplit(n), Batch: plan.DefaultBatch(n)}
	}
	want := []cpuCall{{spec(6), 5}, {spec(7), 5}}
	same := func(a, b cpuCall) bool {
		return a.spec.N == b.spec.N && a.spec.Algo == b.spec.Algo && a.workers == b.workers && a.spec.Depth == b.spec.Depth && a.spec.Batch == b.spec.Batch
	}
	if len(env.cpuCalls) != 2 || !same(env.cpuCalls[0], want[0]) || !same(env.cpuCalls[1], want[1]) {
		t.Errorf("CPU calls %+v, want %+v", env.cpuCalls, want)
	}
	if len(env.opened) != 0 {
		t.Errorf("opened GPUs %v with -device cpu", env.opened)
	}
	for _, rec := range decodeJSON(t, r.stdout) {
		if rec.Backend != "cpu" || rec.Device != "cpu" || rec.DeviceName != "" || rec.Algo != string(plan.DefaultAlgo) {
			t.Errorf("record %+v, want the CPU backend", rec)
		}
	}
}

// maxFallbackLine is the longest a fallback line may be, in bytes.
const maxFallbackLine = 160

// libraryWithoutModule is the error of the gpu package on CI's machine:
// Debian's libcuda1 without a GPU or the NVIDIA kernel module.
var libraryWithoutModule = fmt.Errorf("%w: /lib/x86_64-linux-gnu/libcuda.so.1 is installed (cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected)", gpu.ErrNoModule)

// TestFallback covers GPU requests that end up on the CPU: one line that
// says so, with one cause and one fix, each cause in a few words, the
// whole line at most maxFallbackLine bytes.
func TestFallback(t *testing.T) {
	tests := []struct {
		name string
		env  *fakeEnv
		args []string
		want string // the one line on stderr
	}{
		{"no CUDA, ordinal", noCUDA(), []string{"-device", "0", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): built without CUDA; to use a GPU, install the CUDA toolkit (make cuda-deps), then make\n"},
		{"no CUDA, all", noCUDA(), []string{"-device", "all", "-workers", "1"},
			"nqueens-gpu: counting on the CPU (1 worker): built without CUDA; to use a GPU, install the CUDA toolkit (make cuda-deps), then make\n"},
		{"no CUDA, default workers", noCUDA(), []string{"-device", "7"},
			"nqueens-gpu: counting on the CPU (3 workers): built without CUDA; to use a GPU, install the CUDA toolkit (make cuda-deps), then make\n"},
		{"no CUDA, CPU-only algo", noCUDA(), []string{"-device", "0", "-algo", "bitmap", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): built without CUDA; to use a GPU, install the CUDA toolkit (make cuda-deps), then make\n"},
		{"no driver library", &fakeEnv{devErr: fmt.Errorf("%w (libcuda.so.1: cannot open shared object file: No such file or directory)", gpu.ErrNoDriver)},
			[]string{"-device", "0", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): no NVIDIA driver; to use a GPU, install it, or run the container with --gpus all\n"},
		{"library without kernel module", &fakeEnv{devErr: libraryWithoutModule}, []string{"-device", "0", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): NVIDIA kernel module not loaded; to use a GPU, run where nvidia-smi lists one\n"},
		{"driver sees no GPU", &fakeEnv{devErr: fmt.Errorf("%w (cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected)", gpu.ErrNoDevice)},
			[]string{"-device", "0", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): the NVIDIA driver sees no GPU; to use a GPU, check nvidia-smi and CUDA_VISIBLE_DEVICES\n"},
		{"driver failed", &fakeEnv{devErr: fmt.Errorf("%w: cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination", gpu.ErrDriver)},
			[]string{"-device", "0", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): the NVIDIA driver failed to start; to use a GPU, see nvidia-smi; reboot after an update\n"},
		{"no such ordinal", twoGPUs(), []string{"-device", "2", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): no GPU 2 (the driver sees GPUs 0 to 1); to use a GPU, nqueens-gpu devices lists them\n"},
		{"no such ordinal, from the driver", &fakeEnv{devices: twoGPUs().devices[:1], openErr: &gpu.OrdinalError{Ordinal: 0, Count: 0}},
			[]string{"-device", "0", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): GPU 0 did not open: no GPU 0 (the driver sees none); to use a GPU, nqueens-gpu devices lists them\n"},
		{"ordinal of one GPU", &fakeEnv{devices: twoGPUs().devices[:1]}, []string{"-device", "5", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): no GPU 5 (the driver sees GPU 0); to use a GPU, nqueens-gpu devices lists them\n"},
		{"another driver error", &fakeEnv{devErr: errors.New("CUDA driver version is insufficient")}, []string{"-device", "0", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): CUDA driver version is insufficient\n"},
		{"no devices", &fakeEnv{}, []string{"-device", "all", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): the driver sees no GPU; to use a GPU, check nvidia-smi\n"},
		{"open fails", &fakeEnv{devices: twoGPUs().devices, openErr: errors.New("out of memory")}, []string{"-device", "1", "-workers", "2"},
			"nqueens-gpu: counting on the CPU (2 workers): GPU 1 did not open: out of memory\n"},
		{"multi-line driver error", &fakeEnv{devErr: errors.New("line one\nline two")}, []string{"-device", "0", "-workers", "2"},
			`nqueens-gpu: counting on the CPU (2 workers): line one\nline two` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFake(tt.env, append([]string{"-n", "5-6", "-json"}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if r.stderr != tt.want {
				t.Errorf("stderr %q\nwant   %q", r.stderr, tt.want)
			}
			if len(r.stderr) > maxFallbackLine+1 {
				t.Errorf("the line has %d bytes, more than %d", len(r.stderr)-1, maxFallbackLine)
			}
			if len(tt.env.cpuCalls) != 2 || len(tt.env.gpuCalls) != 0 {
				t.Errorf("%d CPU and %d GPU calls, want 2 and 0", len(tt.env.cpuCalls), len(tt.env.gpuCalls))
			}
			recs := decodeJSON(t, r.stdout)
			if len(recs) != 2 || recs[0].Backend != "cpu" || recs[0].Device != "cpu" || recs[0].Total != 10 {
				t.Errorf("records %+v", recs)
			}
		})
	}
}

func TestDeviceGPU(t *testing.T) {
	tests := []struct {
		args    []string
		ordinal int
		name    string
		algo    nq.Algo
	}{
		{[]string{"-device", "0"}, 0, "Fake H100", plan.DefaultAlgo},
		{[]string{"-device", "1"}, 1, "Fake A100", plan.DefaultAlgo},
		{[]string{"-device", "1", "-algo", "carrychain"}, 1, "Fake A100", nq.CarryChain},
		{[]string{"-device", "0", "-algo", "symmetry"}, 0, "Fake H100", nq.Symmetry},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			env := twoGPUs()
			r := runFake(env, append([]string{"-n", "4-8", "-json"}, tt.args...)...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if len(env.opened) != 1 || env.opened[0] != tt.ordinal {
				t.Errorf("opened %v, want [%d]", env.opened, tt.ordinal)
			}
			if env.closed != 1 {
				t.Errorf("GPU closed %d times, want once", env.closed)
			}
			// The job counts boards too small to split itself.
			split := 0
			for n := 4; n <= 8; n++ {
				if !(nq.Spec{N: n, Algo: tt.algo}).Whole() {
					split++
				}
			}
			if len(env.cpuCalls) != 0 || len(env.gpuCalls) != split {
				t.Errorf("%d CPU and %d GPU calls, want 0 and %d", len(env.cpuCalls), len(env.gpuCalls), split)
			}
			for _, rec := range decodeJSON(t, r.stdout) {
				if rec.Backend != "gpu" || rec.Device != strconv.Itoa(tt.ordinal) ||
					rec.DeviceName != tt.name || rec.Algo != string(tt.algo) {
					t.Errorf("record %+v", rec)
				}
			}
		})
	}
}

func TestDeviceUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		env  *fakeEnv
		args []string
		msg  string
	}{
		{"CPU-only algo on a GPU", twoGPUs(), []string{"-device", "0", "-algo", "bitmap"},
			"-algo bitmap has no GPU kernel; use -algo symmetry or -algo carrychain or -algo eightfold, or -device cpu"},
		{"CPU-only algo on all", twoGPUs(), []string{"-device", "all", "-algo", "backtrack"},
			"-algo backtrack has no GPU kernel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFake(tt.env, append([]string{"-n", "8"}, tt.args...)...)
			wantOneErrorLine(t, r, exitUsage)
			if !strings.Contains(r.stderr, tt.msg) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.msg)
			}
			if len(tt.env.opened) != tt.env.closed {
				t.Errorf("opened %d GPUs, closed %d", len(tt.env.opened), tt.env.closed)
			}
		})
	}
}

// TestRealStubFallback uses the real gpu package, which in a build without
// the cuda tag has no devices, with a fake CPU solver.
func TestRealStubFallback(t *testing.T) {
	if _, err := gpu.Devices(); !errors.Is(err, gpu.ErrNoCUDA) {
		t.Skip("built with CUDA")
	}
	env := noCUDA()
	h := env.hooks()
	h.Drivers = func(tune gpu.Tuning) device.Drivers {
		d, real := env.drivers(tune), realDrivers(tune)
		d.GPUs, d.OpenGPU = real.GPUs, real.OpenGPU
		return d
	}
	for _, dev := range []string{"0", "all", "3"} {
		var out, errOut strings.Builder
		code := runWith(context.Background(), []string{"-n", "8", "-device", dev, "-workers", "2"}, &out, &errOut, h)
		want := "nqueens-gpu: counting on the CPU (2 workers): built without CUDA; to use a GPU, install the CUDA toolkit (make cuda-deps), then make\n"
		if code != 0 || errOut.String() != want {
			t.Errorf("-device %s: exit %d, stderr %q", dev, code, errOut.String())
		}
	}
}

// TestSeveralDevices covers -device lists: one worker per GPU, with the
// CPU next to them when asked, sharing the batches of each count.
func TestSeveralDevices(t *testing.T) {
	tests := []struct {
		args       []string
		opened     []int
		backend    string
		device     string
		name       string
		cpuWorkers int // 0: no CPU worker
	}{
		{[]string{"-device", "all"}, []int{0, 1}, "gpu", "0,1", "Fake H100, Fake A100", 0},
		{[]string{"-device", "1,0"}, []int{1, 0}, "gpu", "1,0", "Fake A100, Fake H100", 0},
		{[]string{"-device", "all,cpu"}, []int{0, 1}, "gpu+cpu", "0,1,cpu", "Fake H100, Fake A100", 1},
		{[]string{"-device", "cpu,1", "-workers", "4"}, []int{1}, "gpu+cpu", "1,cpu", "Fake A100", 4},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			env := twoGPUs()
			r := runFake(env, append([]string{"-n", "4-8", "-json"}, tt.args...)...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			// The GPUs open at once: their order is the device column's.
			if fmt.Sprint(sorted(env.opened)) != fmt.Sprint(sorted(tt.opened)) || env.closed != len(tt.opened) {
				t.Errorf("opened %v and closed %d, want %v", env.opened, env.closed, tt.opened)
			}
			// Every device goes through every count that is split into
			// tasks (N=5..8: the job counts N=4 whole); one of them
			// gets the fake job's only task batch.
			if len(env.gpuCalls) != 4*len(tt.opened) {
				t.Errorf("%d GPU calls, want %d", len(env.gpuCalls), 4*len(tt.opened))
			}
			if tt.cpuWorkers == 0 && len(env.cpuCalls) != 0 || tt.cpuWorkers > 0 && len(env.cpuCalls) != 4 {
				t.Errorf("%d CPU calls", len(env.cpuCalls))
			}
			for _, c := range env.cpuCalls {
				if c.workers != tt.cpuWorkers {
					t.Errorf("CPU worker with %d goroutines, want %d", c.workers, tt.cpuWorkers)
				}
			}
			for _, rec := range decodeJSON(t, r.stdout) {
				want := fakeCounts(rec.N)
				if rec.Backend != tt.backend || rec.Device != tt.device || rec.DeviceName != tt.name ||
					rec.Total != want.Total() || rec.Count8 != want.C8 {
					t.Errorf("record %+v", rec)
				}
			}
		})
	}
}

// Several real workers (fake GPUs that search on the CPU, and the CPU)
// pulling from one queue give exactly the single-device counts.
func TestSeveralDevicesExact(t *testing.T) {
	for _, dev := range []string{"0", "all", "all,cpu"} {
		for _, algo := range []string{"symmetry", "carrychain"} {
			env := twoGPUs()
			env.realGPUs, env.realCPU = true, true
			h := env.hooks()
			h.Plan = nil
			var out, errOut strings.Builder
			code := runWith(context.Background(), []string{"-n", "1-12", "-json", "-device", dev, "-algo", algo, "-workers", "1"}, &out, &errOut, h)
			if code != 0 || errOut.String() != "" {
				t.Fatalf("-device %s: exit %d, stderr %q", dev, code, errOut.String())
			}
			for _, rec := range decodeJSON(t, out.String()) {
				want, _ := known.Lookup(rec.N)
				if rec.Total != want.Total || rec.Unique != want.Unique {
					t.Errorf("-device %s -algo %s N=%d: total %d unique %d, want %d and %d",
						dev, algo, rec.N, rec.Total, rec.Unique, want.Total, want.Unique)
				}
			}
		}
	}
}

// A GPU that does not open is left out when others do; a GPU that fails
// during a count leaves its batches to the other devices.
func TestDeviceFailures(t *testing.T) {
	env := twoGPUs()
	env.openFails = map[int]error{1: errors.New("out of memory")}
	r := runFake(env, "-n", "8", "-device", "all", "-json")
	if r.code != 0 || r.stderr != "nqueens-gpu: GPU 1 did not open: out of memory; counting without it\n" {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if recs := decodeJSON(t, r.stdout); len(recs) != 1 || recs[0].Device != "0" || recs[0].Total != 92 {
		t.Errorf("records %+v", recs)
	}

	env = twoGPUs()
	env.openFails = map[int]error{0: errors.New("busy"), 1: errors.New("out of memory")}
	r = runFake(env, "-n", "8", "-device", "all", "-workers", "2")
	want := "nqueens-gpu: counting on the CPU (2 workers): GPU 0 did not open: busy; GPU 1 did not open: out of memory\n"
	if r.code != 0 || r.stderr != want {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}

	env = twoGPUs()
	env.gpuFails = map[int]error{1: errors.New("Xid 79: fallen off the bus")}
	r = runFake(env, "-n", "8", "-device", "all,cpu", "-json")
	if r.code != 0 || !strings.Contains(r.stderr, "gpu1: Xid 79: fallen off the bus; the other devices take over its batches") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if recs := decodeJSON(t, r.stdout); len(recs) != 1 || recs[0].Total != 92 || recs[0].Unique != 12 {
		t.Errorf("records %+v", recs)
	}

	// Every device failing fails the count.
	env = twoGPUs()
	env.gpuFails = map[int]error{0: errors.New("lost"), 1: errors.New("lost too")}
	r = runFake(env, "-n", "8", "-device", "all")
	if r.code != exitRuntime || !strings.Contains(r.stderr, "N=8: gpu") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}

	// Without CUDA, a list with the CPU counts on the CPU.
	r = runFake(noCUDA(), "-n", "8", "-device", "all,cpu", "-workers", "2", "-json")
	if r.code != 0 || r.stderr != "nqueens-gpu: counting on the CPU (2 workers): built without CUDA; to use a GPU, install the CUDA toolkit (make cuda-deps), then make\n" {
		t.Errorf("all,cpu without CUDA: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Every worker of a count gets the depth chosen for the devices that
// really count: the GPUs that opened, not those that fell back.
func TestDepthOnDevices(t *testing.T) {
	tests := []struct {
		env      *fakeEnv
		args     []string
		gpuDepth int // the depth every GPU call gets; -1: no GPU call
		cpuDepth int // the depth every CPU call gets; -1: no CPU call
	}{
		{twoGPUs(), []string{"-device", "cpu", "-algo", "symmetry"}, -1, 6},
		{twoGPUs(), []string{"-device", "0", "-algo", "symmetry"}, 8, -1},
		{twoGPUs(), []string{"-device", "all,cpu", "-algo", "symmetry"}, 8, 8},
		{twoGPUs(), []string{"-device", "0", "-depth", "5", "-algo", "symmetry"}, 5, -1},
		{twoGPUs(), []string{"-device", "0", "-algo", "carrychain"}, 0, -1}, // frames have no depth
		{noCUDA(), []string{"-device", "0", "-algo", "symmetry"}, -1, 6},
		{&fakeEnv{devices: twoGPUs().devices, openFails: map[int]error{0: errors.New("busy"), 1: errors.New("busy")}}, []string{"-device", "all", "-algo", "symmetry"}, -1, 6},
		// Eightfold's depth is its split: 3 by default at N=16, 4 for
		// one H100 (tasks.SplitFor), 5 for the H100 and the A100.
		{twoGPUs(), []string{"-device", "cpu"}, -1, 3},
		{twoGPUs(), []string{"-device", "0"}, 4, -1},
		{twoGPUs(), []string{"-device", "all,cpu"}, 5, 5},
		{noCUDA(), []string{"-device", "0"}, -1, 3},
	}
	for _, tt := range tests {
		r := runFake(tt.env, append([]string{"-n", "16", "-json", "-workers", "2"}, tt.args...)...)
		if r.code != 0 {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
			continue
		}
		if (len(tt.env.gpuCalls) == 0) != (tt.gpuDepth < 0) || (len(tt.env.cpuCalls) == 0) != (tt.cpuDepth < 0) {
			t.Errorf("%v: %d GPU and %d CPU calls", tt.args, len(tt.env.gpuCalls), len(tt.env.cpuCalls))
		}
		for _, c := range tt.env.gpuCalls {
			if c.spec.Depth != tt.gpuDepth {
				t.Errorf("%v: GPU call with depth %d, want %d", tt.args, c.spec.Depth, tt.gpuDepth)
			}
		}
		for _, c := range tt.env.cpuCalls {
			if c.spec.Depth != tt.cpuDepth {
				t.Errorf("%v: CPU call with depth %d, want %d", tt.args, c.spec.Depth, tt.cpuDepth)
			}
		}
	}
}

// A checkpoint written on a GPU, whose depth was chosen for it, resumes
// with the same command on the same machine; on the CPU, which picks
// another depth, it is refused with the -depth that resumes it, and that
// -depth resumes it.
func TestCheckpointDepthOnOtherDevices(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n12.ckpt")
	env := twoGPUs()
	env.realGPUs, env.realCPU = true, true
	h := env.hooks()
	h.Plan = nil
	runArgs := func(args ...string) result {
		var out, errOut strings.Builder
		args = append([]string{"-n", "12", "-json", "-quiet", "-workers", "1", "-algo", "symmetry", "-checkpoint", path}, args...)
		code := runWith(context.Background(), args, &out, &errOut, h)
		return result{code, out.String(), errOut.String()}
	}
	wantTotal := func(r result, what string) {
		t.Helper()
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", what, r.code, r.stderr)
		}
		if recs := decodeJSON(t, r.stdout); len(recs) != 1 || recs[0].Total != 14200 || recs[0].Unique != 1787 {
			t.Errorf("%s: records %+v", what, recs)
		}
	}
	wantTotal(runArgs("-device", "0"), "GPU run")
	var ck struct {
		Body struct {
			Job plan.Plan `json:"job"`
		} `json:"body"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &ck); err != nil {
		t.Fatal(err)
	}
	if ck.Body.Job.Depth != 6 {
		t.Errorf("checkpoint made at depth %d, want 6 (nq.Spec on an H100 at N=12)", ck.Body.Job.Depth)
	}
	wantTotal(runArgs("-device", "0"), "the same command again")

	r := runArgs("-device", "cpu")
	wantOneErrorLine(t, r, exitRuntime)
	if want := "symmetry boards of depth 6, not of depth 5; pass -depth 6 to resume it"; !strings.Contains(r.stderr, want) {
		t.Errorf("CPU run: stderr %q, want it to say %q", r.stderr, want)
	}
	wantTotal(runArgs("-device", "cpu", "-depth", "6"), "CPU run with -depth 6")
}

// -gpu-smem and -gpu-nodes reach every GPU's options; the nodes the GPUs
// count are summed per N and printed on stderr, and a count without a GPU
// says that none were counted.
func TestGPUKernelFlags(t *testing.T) {
	env := twoGPUs()
	r := runFake(env, "-n", "9-10", "-device", "all", "-gpu-smem", "-gpu-nodes", "-quiet")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, c := range env.gpuCalls {
		if !c.tune.SharedStack || !c.tune.Nodes {
			t.Errorf("GPU tuning %+v: want SharedStack and Nodes", c.tune)
		}
	}
	// Two GPUs, 1000*N made-up nodes each.
	for _, want := range []string{"nodes: 18000 (", "nodes: 20000 ("} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	r = runFake(twoGPUs(), "-n", "9", "-device", "cpu", "-gpu-nodes", "-quiet")
	if r.code != 0 || !strings.Contains(r.stderr, "no GPU counted, so no nodes were counted") {
		t.Errorf("CPU count with -gpu-nodes: exit %d, stderr %q", r.code, r.stderr)
	}
}

// -device all means every GPU, counting together, in count, bench and
// check alike.
func TestDeviceAllEverywhere(t *testing.T) {
	run := map[string]func(env *fakeEnv) (string, int){
		"count": func(env *fakeEnv) (string, int) {
			r := runFake(env, "-n", "8", "-device", "all", "-json")
			recs := decodeJSON(t, r.stdout)
			if len(recs) != 1 {
				return "", r.code
			}
			return recs[0].Device, r.code
		},
		"bench": func(env *fakeEnv) (string, int) {
			var out, errOut bytes.Buffer
			code := runBenchWith(context.Background(), []string{"-n", "8", "-device", "all", "-runs", "1", "-warmup", "0", "-json"}, &out, &errOut, env.hooks())
			var doc report.Document
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Series) != 1 {
				return "", code
			}
			return doc.Series[0].Device, code
		},
		"check": func(env *fakeEnv) (string, int) {
			var out, errOut bytes.Buffer
			code := runCheckWith(context.Background(), []string{"-n", "8", "-device", "all", "-algo", "symmetry", "-json"}, &out, &errOut, env.hooks())
			var doc report.CheckDocument
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Columns) != 1 {
				return "", code
			}
			return doc.Columns[0].Device, code
		},
	}
	for name, f := range run {
		env := twoGPUs()
		device, code := f(env)
		if code != 0 || device != "0,1" || fmt.Sprint(sorted(env.opened)) != "[0 1]" || env.closed != 2 { // opened at once
			t.Errorf("%s -device all: exit %d, device %q, opened %v, closed %d; want GPUs 0,1 together", name, code, device, env.opened, env.closed)
		}
		seen := map[int]bool{}
		for _, c := range env.gpuCalls {
			seen[c.ordinal] = true
		}
		if !seen[0] || !seen[1] {
			t.Errorf("%s -device all: GPU calls %+v, want both GPUs in the count", name, env.gpuCalls)
		}
	}
}

// -require-gpu turns a fallback into exit 1 with the cause and the fix on
// one line, before any count; with a GPU it changes nothing.
func TestRequireGPU(t *testing.T) {
	for _, tt := range []struct {
		env *fakeEnv
		dev string
		msg string
	}{
		{noCUDA(), "0", "nqueens-gpu: built without CUDA; to use a GPU, " + gpu.Fix(gpu.ErrNoCUDA) + "; -require-gpu refuses to count on the CPU instead\n"},
		{twoGPUs(), "3", "nqueens-gpu: no GPU 3 (the driver sees GPUs 0 to 1); to use a GPU, nqueens-gpu devices lists them; -require-gpu refuses to count on the CPU instead\n"},
	} {
		for _, sub := range []string{"", "bench", "check"} {
			args := []string{"-n", "8", "-device", tt.dev, "-require-gpu"}
			var out, errOut bytes.Buffer
			var code int
			switch sub {
			case "bench":
				code = runBenchWith(context.Background(), args, &out, &errOut, tt.env.hooks())
			case "check":
				code = runCheckWith(context.Background(), args, &out, &errOut, tt.env.hooks())
			default:
				code = runWith(context.Background(), args, &out, &errOut, tt.env.hooks())
			}
			r := result{code, out.String(), errOut.String()}
			if sub == "bench" {
				r.stdout = "" // bench writes its heading first
			}
			wantOneErrorLine(t, r, exitRuntime)
			if errOut.String() != tt.msg {
				t.Errorf("%s -device %s -require-gpu: stderr %q\nwant %q", sub, tt.dev, errOut.String(), tt.msg)
			}
		}
		if len(tt.env.cpuCalls) != 0 {
			t.Errorf("-device %s -require-gpu counted on the CPU", tt.dev)
		}
	}
	if r := runFake(twoGPUs(), "-n", "8", "-device", "1", "-require-gpu", "-json"); r.code != 0 || r.stderr != "" {
		t.Errorf("-require-gpu with a GPU: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A fallback for a count that takes long on the CPU says how long, in
// the units a person reads; on CI's machine (the driver's library, no
// GPU) the line stays within maxFallbackLine even at N=28. With -v a
// second line gives the driver's details.
func TestFallbackEstimate(t *testing.T) {
	r := runFake(noCUDA(), "-n", "16-20", "-device", "0", "-workers", "2", "-json")
	want := "nqueens-gpu: counting on the CPU (2 workers, about " + estimate.Text(estimate.RangeSeconds(16, 20, plan.DefaultAlgo, 2)) + " for N=16-20): built without CUDA"
	if r.code != 0 || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want it to start %q", r.stderr, want)
	}
	if r := runFake(noCUDA(), "-n", "10", "-device", "0"); strings.Contains(r.stderr, "about") {
		t.Errorf("N=10 is quick on the CPU, yet: %q", r.stderr)
	}
	env := &fakeEnv{devErr: libraryWithoutModule, cpuCount: func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		return context.Canceled // a count of N=28 on the CPU is not run to the end
	}}
	r = runFake(env, "-n", "28", "-device", "0", "-workers", "2", "-quiet")
	line, _, _ := strings.Cut(r.stderr, "\n")
	want = "nqueens-gpu: counting on the CPU (2 workers, about 810 years for N=28): NVIDIA kernel module not loaded; to use a GPU, run where nvidia-smi lists one"
	if line != want || len(line) > maxFallbackLine {
		t.Errorf("N=28 on CI's machine: %q (%d bytes), want %q", line, len(line), want)
	}
	t.Logf("%d bytes: %s", len(line), line)
	r = runFake(&fakeEnv{devErr: libraryWithoutModule}, "-n", "8", "-device", "0", "-workers", "2", "-v")
	want = "nqueens-gpu: counting on the CPU (2 workers): NVIDIA kernel module not loaded; to use a GPU, run where nvidia-smi lists one\n" +
		"nqueens-gpu: the driver said: " + libraryWithoutModule.Error() + "\n"
	if r.code != 0 || r.stderr != want {
		t.Errorf("-v: stderr %q, want %q", r.stderr, want)
	}
}

// devices lists the GPUs, the driver, the CPU and its search path (the
// vector lanes or the scalar search, cpu.EightfoldPath), and exits 1 with
// the cause and the fix when there is no GPU.
func TestDevicesCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runDevicesWith(context.Background(), nil, &out, &errOut, twoGPUs().hooks()); code != 0 || errOut.String() != "" {
		t.Fatalf("two GPUs: exit %d, stderr %q", code, errOut.String())
	}
	for _, want := range []string{"GPU 0      Fake H100", "GPU 1      Fake A100", "108 SMs", "CPU ", "logical CPUs",
		"CPU search " + cpu.EightfoldPath()} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := runDevicesWith(context.Background(), []string{"-json"}, &out, &errOut, twoGPUs().hooks()); code != 0 {
		t.Fatalf("-json: exit %d", code)
	}
	var env report.Env
	if err := json.Unmarshal(out.Bytes(), &env); err != nil || len(env.GPUs) != 2 || env.GPUs[1].SMs != 108 || env.CPUCores < 1 ||
		env.CPUSearch != cpu.EightfoldPath() {
		t.Errorf("-json: %v, %+v", err, env)
	}
	// Without a GPU, devices says the fallback line's cause and fix on
	// stderr, and the driver's details in its GPU row.
	for _, env := range []*fakeEnv{noCUDA(), {devErr: libraryWithoutModule}} {
		out.Reset()
		errOut.Reset()
		code := runDevicesWith(context.Background(), nil, &out, &errOut, env.hooks())
		r := result{code, "", errOut.String()}
		wantOneErrorLine(t, r, exitRuntime)
		want := "nqueens-gpu: no GPU to count on: " + gpu.Cause(env.devErr) + "; to use a GPU, " + gpu.Fix(env.devErr) + "\n"
		if r.stderr != want {
			t.Errorf("stderr %q, want %q", r.stderr, want)
		}
		c := runFake(env, "-n", "8", "-device", "0")
		if _, line, _ := strings.Cut(c.stderr, "): "); "nqueens-gpu: no GPU to count on: "+line != want {
			t.Errorf("devices says %q, the fallback line %q", r.stderr, c.stderr)
		}
		if !strings.Contains(out.String(), "\n  GPU        none: "+env.devErr.Error()+"\n") || !strings.Contains(out.String(), "CPU ") {
			t.Errorf("without a GPU the CPU is listed, and the GPU row has the details:\n%s", out.String())
		}
	}
	out.Reset()
	errOut.Reset()
	if code := runDevicesWith(context.Background(), []string{"extra"}, &out, &errOut, noCUDA().hooks()); code != exitUsage {
		t.Errorf("devices extra: exit %d", code)
	}
	if code := runDevicesWith(context.Background(), []string{"-h"}, &out, &errOut, noCUDA().hooks()); code != 0 || !strings.HasPrefix(out.String(), "nqueens-gpu devices lists") {
		t.Errorf("devices -h: exit %d, %.40q", code, out.String())
	}
}

// sorted is a sorted copy of xs.
func sorted(xs []int) []int {
	s := append([]int(nil), xs...)
	slices.Sort(s)
	return s
}
