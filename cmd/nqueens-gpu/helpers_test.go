package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
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
	gpuCalls []int // N per GPU Solve call
	opened   []int // ordinals passed to gpuOpen
	closed   int   // GPU Close calls
	devices  []gpu.DeviceInfo
	devErr   error // gpuDevices' error
	openErr  error // gpuOpen's error
	solveErr error // returned by every Solve
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

func (f *fakeEnv) hooks() hooks {
	return hooks{
		cpuSolve: func(ctx context.Context, n int, algo nq.Algo, opt cpu.Options) (nq.Counts, error) {
			f.mu.Lock()
			f.cpuCalls = append(f.cpuCalls, cpuCall{n, algo, opt})
			f.mu.Unlock()
			if f.solveErr != nil {
				return nq.Counts{}, f.solveErr
			}
			return fakeCounts(n), nil
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
			for _, d := range f.devices {
				if d.Ordinal == ordinal {
					return &fakeGPU{env: f, info: d}, nil
				}
			}
			return nil, errors.New("fake: no such device")
		},
		since: func(time.Time) time.Duration { return fixedElapsed },
		procs: func() int { return 3 },
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
	g.env.mu.Lock()
	g.env.gpuCalls = append(g.env.gpuCalls, n)
	g.env.mu.Unlock()
	if !gpu.Supports(algo) {
		return nq.Counts{}, errors.New("fake: no kernel for " + string(algo))
	}
	if g.env.solveErr != nil {
		return nq.Counts{}, g.env.solveErr
	}
	return fakeCounts(n), nil
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
