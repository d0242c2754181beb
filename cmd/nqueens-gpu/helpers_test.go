package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// fixedElapsed is what the fake clock of the tests reports for every count.
const fixedElapsed = 1500 * time.Millisecond

// cpuCall records one call of the fake CPU solver.
type cpuCall struct {
	n    int
	algo nq.Algo
	opt  cpu.Options
}

// fakeEnv is a set of fake hooks that record how they were used.
type fakeEnv struct {
	mu       sync.Mutex
	cpuCalls []cpuCall
	gpuCalls []int         // N per GPU Solve call
	gpuOpts  []gpu.Options // options per GPU SolvePartial call
	opened   []int         // ordinals passed to gpuOpen
	closed   int           // GPU Close calls
	devices  []gpu.DeviceInfo
	devErr   error // gpuDevices' error
	openErr  error // gpuOpen's error
	solveErr error // returned by every Solve
	// openFails and gpuFails make single GPUs fail to open or fail in
	// SolvePartial; realGPUs makes the fake GPUs count for real, each
	// with one CPU goroutine.
	openFails map[int]error
	gpuFails  map[int]error
	realGPUs  bool
}

// counts is the fake solvers' answer: the counts of the boards enumerated
// by boards.go, which boards_test.go checks against the published table.
func fakeCounts(n int) nq.Counts {
	if n > maxPrintN {
		// Shaped like a large count; only the table layout looks at it.
		return nq.Counts{C2: 1, C4: 22, C8: uint64(n) << 50}
	}
	return classify(enumerate(n))
}

// partialOf turns counts into the partial sums algo's batches report, the
// inverse of nq.Reduce.
func partialOf(algo nq.Algo, c nq.Counts) nq.Partial {
	switch algo {
	case nq.Mirror:
		return nq.Partial{c.C1, c.C2, 2 * c.C4, 4 * c.C8}
	case nq.CarryChain:
		return nq.Partial{c.C1, 2 * c.C2, 4 * c.C4, 8 * c.C8}
	}
	return nq.Partial{c.C1, c.C2, c.C4, c.C8}
}

// fakeBatch plays a backend whose job is the single batch 0: if sel grants
// it, it reports it with the fake counts of n.
func fakeBatch(n int, algo nq.Algo, sel func(int) bool, done func([]int, nq.Partial)) nq.Partial {
	if sel != nil && !sel(0) {
		return nq.Partial{}
	}
	p := partialOf(algo, fakeCounts(n))
	if done != nil {
		done([]int{0}, p)
	}
	return p
}

// fakePlan is the plan of the fake jobs: one batch of one task.
func fakePlan(s job.Spec) (job.Plan, error) {
	return job.Plan{N: s.N, Algo: s.Algo, Tasks: "fake", Batch: s.Normalize().Batch, Batches: 1, TaskCount: 1, TaskSHA256: "fake"}, nil
}

func (f *fakeEnv) hooks() hooks {
	return hooks{
		cpuSolve: func(ctx context.Context, n int, algo nq.Algo, opt cpu.Options) (nq.Counts, error) {
			if f.solveErr != nil {
				return nq.Counts{}, f.solveErr
			}
			return fakeCounts(n), nil
		},
		cpuPartial: func(ctx context.Context, n int, algo nq.Algo, opt cpu.Options) (nq.Partial, error) {
			f.mu.Lock()
			f.cpuCalls = append(f.cpuCalls, cpuCall{n, algo, opt})
			f.mu.Unlock()
			if f.solveErr != nil {
				return nq.Partial{}, f.solveErr
			}
			return fakeBatch(n, algo, opt.Select, opt.Done), nil
		},
		gpuDevices: func() ([]gpu.DeviceInfo, error) {
			if f.devErr != nil {
				return nil, f.devErr
			}
			return f.devices, nil
		},
		gpuOpen: func(ordinal int) (gpuBackend, error) {
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
					return &fakeGPU{env: f, info: d}, nil
				}
			}
			return nil, errors.New("fake: no such device")
		},
		plan:       fakePlan,
		isTerminal: func(io.Writer) bool { return false },
		since:      func(time.Time) time.Duration { return fixedElapsed },
		procs:      func() int { return 3 },
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

type fakeGPU struct {
	env  *fakeEnv
	info gpu.DeviceInfo
}

func (g *fakeGPU) Solve(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error) {
	return nq.Counts{}, errors.New("fake: the program counts through SolvePartial")
}

func (g *fakeGPU) SolvePartial(ctx context.Context, n int, algo nq.Algo, opt gpu.Options) (nq.Partial, error) {
	g.env.mu.Lock()
	g.env.gpuCalls = append(g.env.gpuCalls, n)
	g.env.gpuOpts = append(g.env.gpuOpts, opt)
	g.env.mu.Unlock()
	if !gpu.Supports(algo) {
		return nq.Partial{}, errors.New("fake: no kernel for " + string(algo))
	}
	if g.env.solveErr != nil {
		return nq.Partial{}, g.env.solveErr
	}
	if err := g.env.gpuFails[g.info.Ordinal]; err != nil {
		if opt.Select != nil {
			opt.Select(0) // claim a batch and lose it, as a GPU that fails mid-launch
		}
		return nq.Partial{}, err
	}
	if opt.Nodes != nil {
		*opt.Nodes += 1000 * uint64(n) // a made-up node count per call
	}
	if g.env.realGPUs {
		return cpu.SolvePartial(ctx, n, algo, cpu.Options{Workers: 1, Depth: opt.Depth, Batch: opt.Batch, Select: opt.Select, Done: opt.Done})
	}
	return fakeBatch(n, algo, opt.Select, opt.Done), nil
}

func (g *fakeGPU) Info() gpu.DeviceInfo { return g.info }

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
