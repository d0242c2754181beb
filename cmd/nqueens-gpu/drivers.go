package main

import (
	"context"
	"io"
	"runtime"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
)

// hooks are the program's ties to the devices and the clock. Tests
// replace them; the program uses defaultHooks. A nil isTerminal means the
// real one; a nil plan means the job's own (job.Config.Plan: the recorded
// plan where there is one, else plan.MakeContext, which stops when the
// count is interrupted) and plan.Make for merge.
type hooks struct {
	// drivers wires the backends into the device layer, GPUs opened
	// with tune.
	drivers    func(tune gpu.Tuning) device.Drivers
	plan       func(nq.Spec) (plan.Plan, error)    // numbers and fingerprints a job's batches
	isTerminal func(w io.Writer) bool              // whether progress gets a bar
	since      func(start time.Time) time.Duration // elapsed time of one count
	// stopWait is how long a stopped count waits for the batches in
	// hand (job.Config.StopWait); 0 means job.DefaultStopWait.
	stopWait time.Duration
	// symmetric counts the solutions fixed by the quarter and the half
	// turn, an eightfold count's host batch; nil means the real one
	// (package burnside).
	symmetric func(ctx context.Context, n int) (s90, s180 uint64, err error)
}

// realDrivers are the cpu and gpu packages.
func realDrivers(tune gpu.Tuning) device.Drivers {
	return device.Drivers{
		CPU:   func(workers int) job.Backend { return cpu.New(workers) },
		Procs: func() int { return runtime.GOMAXPROCS(0) },
		GPUs:  gpuList,
		OpenGPU: func(ordinal int) (job.Backend, error) {
			b, err := gpu.OpenWith(ordinal, tune)
			if err != nil {
				return nil, err // not a typed nil in an interface
			}
			return b, nil
		},
		GPUAlgos: gpu.Algos(),
		Fix:      gpu.Fix,
	}
}

func defaultHooks() hooks {
	return hooks{
		drivers:    realDrivers,
		isTerminal: progress.IsTerminal,
		since:      time.Since, // time.Now carries a monotonic reading
	}
}

// withDefaults fills in the hooks a caller left nil.
func (h hooks) withDefaults() hooks {
	d := defaultHooks()
	if h.drivers == nil {
		h.drivers = d.drivers
	}
	if h.isTerminal == nil {
		h.isTerminal = d.isTerminal
	}
	if h.since == nil {
		h.since = d.since
	}
	return h
}

// jobConfig is what the hooks set in the job of a count: its plan and its
// host batch of symmetric solutions.
func (h hooks) jobConfig() job.Config {
	return job.Config{Plan: h.plan, Symmetric: h.symmetric}
}

// gpuList is gpu.Devices as the device layer describes GPUs.
func gpuList() ([]device.GPU, error) {
	ds, err := gpu.Devices()
	gs := make([]device.GPU, len(ds))
	for i, d := range ds {
		gs[i] = device.GPU(d)
	}
	return gs, err
}
