package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/boards"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// fixedElapsed is what the fake clock of the tests reports for every count.
const fixedElapsed = 1500 * time.Millisecond

// cpuCall records one count of the fake CPU.
type cpuCall struct {
	spec    nq.Spec
	workers int
}

// gpuCall records one count of a fake GPU.
type gpuCall struct {
	ordinal int
	spec    nq.Spec
	tune    gpu.Tuning
}

// fakeEnv is a set of fake devices that record how they were used.
type fakeEnv struct {
	mu       sync.Mutex
	cpuCalls []cpuCall
	gpuCalls []gpuCall
	opened   []int // ordinals opened
	closed   int   // GPU Close calls
	devices  []gpu.DeviceInfo
	devErr   error // the GPU list's error
	openErr  error // every GPU open's error
	solveErr error // returned by every count
	// openFails and gpuFails make single GPUs fail to open or fail in
	// a count; realCPU and realGPUs make the CPU and the fake GPUs
	// count for real (cpu.Backend; one goroutine per fake GPU).
	openFails map[int]error
	gpuFails  map[int]error
	realCPU   bool
	realGPUs  bool
	// cpuCount, if not nil, is what the fake CPU does in a count.
	cpuCount func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error
}

// counts is the fake solvers' answer: the counts of the boards enumerated
// by package boards, which its tests check against the published table.
func fakeCounts(n int) nq.Counts {
	if n > maxPrintN {
		// Shaped like a large count; only the table layout looks at it.
		return nq.Counts{C2: 1, C4: 22, C8: uint64(n) << 50}
	}
	return boards.Counts(n)
}

// fakeBatch plays a backend whose job is the single batch 0: if sel grants
// it, it reports it with the fake counts of n.
func fakeBatch(n int, algo nq.Algo, sel func(int) bool, done func([]int, nq.Partial)) {
	if sel != nil && !sel(0) {
		return
	}
	if done != nil {
		done([]int{0}, workerPartial(algo, fakeCounts(n)))
	}
}

// workerPartial is what the fake workers of algo report for counts c: all
// of their partial sums, even for eightfold, whose host batch of symmetric
// solutions the fake jobs count as zero (fakeSymmetric), so that any
// counts, right or wrong, reduce as they would from a single batch.
func workerPartial(algo nq.Algo, c nq.Counts) nq.Partial { return nq.PartialOf(algo, c) }

// fakeSymmetric is the host batch of the fake eightfold jobs: nothing, the
// fake workers report the symmetric solutions with the rest.
func fakeSymmetric(ctx context.Context, n int) (s90, s180 uint64, err error) { return 0, 0, nil }

// fakePlan is the plan of the fake jobs: one batch of one task, and an
// eightfold count's host batch after it.
func fakePlan(s nq.Spec) (plan.Plan, error) {
	p := plan.Plan{N: s.N, Algo: s.Algo, Tasks: "fake", Depth: s.Depth, Batch: s.Batch, Batches: 1, TaskCount: 1, TaskSHA256: "fake"}
	if s.HostBatch() {
		p.Batches, p.TaskCount = 2, 2
	}
	return p, nil
}

func (f *fakeEnv) hooks() hooks {
	h := hooks{
		Drivers:    f.drivers,
		Plan:       fakePlan,
		IsTerminal: func(io.Writer) bool { return false },
		Since:      func(time.Time) time.Duration { return fixedElapsed },
		Symmetric:  fakeSymmetric,
		// The fake devices list no tasks: no task list to prepare.
		PrepareList: func(context.Context, nq.Spec, bool) error { return nil },
	}
	if f.realCPU || f.realGPUs {
		h.Symmetric = nil // real workers report Total alone
	}
	return h
}

// drivers are the fake devices: the CPU, and GPUs opened with tune.
func (f *fakeEnv) drivers(tune gpu.Tuning) device.Drivers {
	return device.Drivers{
		CPU:   func(workers int) job.Backend { return &fakeCPU{env: f, workers: workers} },
		Procs: func() int { return 3 },
		GPUs: func() ([]gpu.DeviceInfo, error) {
			if f.devErr != nil {
				return nil, f.devErr
			}
			return f.devices, nil
		},
		OpenGPU: func(ordinal int) (job.Backend, error) {
			f.mu.Lock()
			f.opened = append(f.opened, ordinal)
			f.mu.Unlock()
			if f.openErr != nil {
				return nil, f.openErr
			}
			if err := f.openFails[ordinal]; err != nil {
				return nil, err
			}
			for _, d := range f.devices {
				if d.Ordinal == ordinal {
					return &fakeGPU{env: f, info: d, tune: tune}, nil
				}
			}
			return nil, errors.New("fake: no such device")
		},
		GPUAlgos: gpu.Algos(),
		Cause:    gpu.Cause,
		Fix:      gpu.Fix,
	}
}

// noCUDA is the environment of a binary built without CUDA.
func noCUDA() *fakeEnv { return &fakeEnv{devErr: gpu.ErrNoCUDA, openErr: gpu.ErrNoCUDA} }

// twoGPUs is an environment with GPUs 0 and 1.
func twoGPUs() *fakeEnv {
	return &fakeEnv{devices: []gpu.DeviceInfo{
		{Ordinal: 0, Name: "Fake H100", SMs: 132},
		{Ordinal: 1, Name: "Fake A100", SMs: 108},
	}}
}

type fakeCPU struct {
	env     *fakeEnv
	workers int
}

func (c *fakeCPU) Name() string { return "cpu" }

func (c *fakeCPU) Count(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	f := c.env
	f.mu.Lock()
	f.cpuCalls = append(f.cpuCalls, cpuCall{spec, c.workers})
	f.mu.Unlock()
	switch {
	case f.cpuCount != nil:
		return f.cpuCount(ctx, spec, sel, done)
	case f.solveErr != nil:
		return f.solveErr
	case f.realCPU:
		return cpu.New(c.workers).Count(ctx, spec, sel, done)
	}
	fakeBatch(spec.N, spec.Algo, sel, done)
	return nil
}

func (c *fakeCPU) Close() error { return nil }

type fakeGPU struct {
	env   *fakeEnv
	info  gpu.DeviceInfo
	tune  gpu.Tuning
	nodes uint64 // made up, with tune.Nodes
}

func (g *fakeGPU) Name() string { return "gpu" + strconv.Itoa(g.info.Ordinal) }

func (g *fakeGPU) Count(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	g.env.mu.Lock()
	g.env.gpuCalls = append(g.env.gpuCalls, gpuCall{g.info.Ordinal, spec, g.tune})
	if g.tune.Nodes {
		g.nodes += 1000 * uint64(spec.N)
	}
	g.env.mu.Unlock()
	if !gpu.Supports(spec.Algo) {
		return errors.New("fake: no kernel for " + string(spec.Algo))
	}
	if g.env.solveErr != nil {
		return g.env.solveErr
	}
	if err := g.env.gpuFails[g.info.Ordinal]; err != nil {
		if sel != nil {
			sel(0) // claim a batch and lose it, as a GPU that fails mid-launch
		}
		return err
	}
	if g.env.realGPUs {
		return cpu.New(1).Count(ctx, spec, sel, done)
	}
	fakeBatch(spec.N, spec.Algo, sel, done)
	return nil
}

// TakeNodes reports 1000 made-up nodes per N counted with -gpu-nodes.
func (g *fakeGPU) TakeNodes() uint64 {
	g.env.mu.Lock()
	defer g.env.mu.Unlock()
	n := g.nodes
	g.nodes = 0
	return n
}

func (g *fakeGPU) Close() error {
	g.env.mu.Lock()
	g.env.closed++
	g.env.mu.Unlock()
	return nil
}

// result is the outcome of one run.
type result struct {
	code           int
	stdout, stderr string
}

func runFake(env *fakeEnv, args ...string) result {
	return runCtx(context.Background(), env, args...)
}

func runCtx(ctx context.Context, env *fakeEnv, args ...string) result {
	var out, errOut bytes.Buffer
	code := runWith(ctx, args, &out, &errOut, env.hooks())
	return result{code, out.String(), errOut.String()}
}

// lines splits output into lines without the final newline.
func lines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// wantOneErrorLine checks the shape of a failed run: the exit status, an
// empty stdout and a single prefixed line on stderr.
func wantOneErrorLine(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, progName+": ") || !strings.HasSuffix(r.stderr, "\n") ||
		strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want exactly one line starting %q", r.stderr, progName+": ")
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Errorf("stderr looks like a panic: %q", r.stderr)
	}
}
