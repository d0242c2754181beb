package app

import (
	"context"
	"io"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/gpuinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
)

// Hooks are the commands' ties to the devices, the clock and the job's
// plan. The program uses the zero value's defaults (WithDefaults); tests
// set fakes.
type Hooks struct {
	// Drivers wires the backends into the device layer, GPUs opened with
	// tune. The program passes the cpu and gpu packages (which sit above
	// app), tests fakes; it must be set.
	Drivers func(tune gpuinfo.Tuning) device.Drivers
	// Plan numbers and fingerprints a job's batches; nil means the job's
	// own (job.Config.Plan) and plan.Make for merge.
	Plan func(nq.Spec) (plan.Plan, error)
	// IsTerminal reports whether progress gets a bar; nil means
	// progress.IsTerminal.
	IsTerminal func(w io.Writer) bool
	// Since is the elapsed time of one count; nil means time.Since.
	Since func(start time.Time) time.Duration
	// StopWait is how long a stopped count waits for the batches in hand
	// (job.Config.StopWait); 0 means job.DefaultStopWait.
	StopWait time.Duration
	// Symmetric counts the solutions fixed by the quarter and the half
	// turn, an eightfold count's host batch; nil means the real one.
	Symmetric func(ctx context.Context, n int) (s90, s180 uint64, err error)
	// Build is the program's build, for -version and the records: the
	// zero value means this binary's (Program's buildinfo.Read).
	Build buildinfo.Info
	// Now stamps the JSON records of a count with the time each N ended;
	// nil means time.Now.
	Now func() time.Time
	// PrepareList makes the eightfold task list of spec ahead of its
	// count (see taskLists), and with head packs its first launch too;
	// nil means tasks.PrepareEightfold, and the drivers' PrepareHead with
	// head. Tests whose devices list no tasks set one that does nothing.
	PrepareList func(ctx context.Context, spec nq.Spec, head bool) error
}

// WithDefaults fills in the hooks h left nil (Drivers aside).
func (h Hooks) WithDefaults() Hooks {
	var d device.Drivers
	if h.Drivers != nil {
		d = h.Drivers(gpuinfo.Tuning{})
	}
	if h.IsTerminal == nil {
		h.IsTerminal = progress.IsTerminal
	}
	if h.Since == nil {
		h.Since = time.Since // time.Now carries a monotonic reading
	}
	if h.Build == (buildinfo.Info{}) {
		h.Build = buildinfo.Read(buildinfo.CUDA(d.Build()))
	}
	if h.Now == nil {
		h.Now = time.Now
	}
	if h.PrepareList == nil {
		h.PrepareList = prepareList(d.PrepareHead)
	}
	return h
}

// jobConfig is what the hooks set in the job of a count: its plan, its
// host batch of symmetric solutions, its stop wait and the version its
// checkpoint records (buildinfo.Info.Short).
func (h Hooks) jobConfig() job.Config {
	return job.Config{Plan: h.Plan, Symmetric: h.Symmetric, StopWait: h.StopWait, Version: h.Build.Short()}
}

// jobFor is the configuration of a job that counts spec on every device
// of devs: cfg (from jobConfig) with the spec, the backends, and those
// that count beside the GPUs.
func jobFor(devs *device.Devices, spec nq.Spec, cfg job.Config) job.Config {
	cfg.Spec, cfg.Backends, cfg.Beside = spec, devs.Backends, devs.Beside()
	return cfg
}
