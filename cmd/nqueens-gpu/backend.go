package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// gpuBackend is the part of *gpu.Backend the program uses.
type gpuBackend interface {
	Solve(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error)
	Info() gpu.DeviceInfo
	Close() error
}

// gpuPartial is a GPU backend that counts numbered batches, as
// *gpu.Backend does: every count of the program goes through it.
type gpuPartial interface {
	SolvePartial(ctx context.Context, n int, algo nq.Algo, opt gpu.Options) (nq.Partial, error)
}

// hooks are the program's ties to the solvers and the clock. Tests replace
// them; the program uses defaultHooks. A nil cpuPartial, plan or isTerminal
// means the real one.
type hooks struct {
	cpuSolve   func(ctx context.Context, n int, algo nq.Algo, opt cpu.Options) (nq.Counts, error)
	cpuPartial func(ctx context.Context, n int, algo nq.Algo, opt cpu.Options) (nq.Partial, error)
	gpuDevices func() ([]gpu.DeviceInfo, error)
	gpuOpen    func(ordinal int) (gpuBackend, error)
	plan       func(job.Spec) (job.Plan, error)    // numbers and fingerprints a job's batches
	isTerminal func(w io.Writer) bool              // whether progress gets a bar
	since      func(start time.Time) time.Duration // elapsed time of one count
	procs      func() int                          // CPU workers when -workers is 0
}

func defaultHooks() hooks {
	return hooks{
		cpuSolve:   cpu.Solve,
		cpuPartial: cpu.SolvePartial,
		gpuDevices: gpu.Devices,
		gpuOpen: func(ordinal int) (gpuBackend, error) {
			b, err := gpu.Open(ordinal)
			if err != nil {
				return nil, err // not a typed nil in an interface
			}
			return b, nil
		},
		plan:       job.MakePlan,
		isTerminal: progress.IsTerminal,
		since:      time.Since, // time.Now carries a monotonic reading
		procs:      func() int { return runtime.GOMAXPROCS(0) },
	}
}

// withDefaults fills in the hooks a caller left nil.
func (h hooks) withDefaults() hooks {
	d := defaultHooks()
	if h.cpuPartial == nil {
		h.cpuPartial = d.cpuPartial
	}
	if h.plan == nil {
		h.plan = d.plan
	}
	if h.isTerminal == nil {
		h.isTerminal = d.isTerminal
	}
	return h
}

// backend is the set of devices chosen for a run, with what the output
// says about it.
type backend struct {
	kind       string // "cpu", "gpu" or "gpu+cpu"
	device     string // "cpu", the GPU ordinal(s) and "cpu", as in the JSON output
	deviceName string // the GPUs' names; "" on the CPU
	algo       nq.Algo
	gpus       []gpu.DeviceInfo // the GPUs that opened and count; none on the CPU
	// workers returns one job worker per device for a count: one per
	// GPU, each driving its own context on its own locked OS thread
	// (gpu.Open), and one for the CPU with all its goroutines.
	workers func(spec job.Spec) []job.Worker
	close   func() error
	// nodes sums the search nodes that the GPUs count with -gpu-nodes.
	nodes atomic.Uint64
}

// openBackend chooses the devices for cfg. A GPU request that cannot be
// met because there is no usable GPU falls back to the CPU and says so in
// one line on stderr; a GPU of several that does not open is left out, with
// a line saying so. It returns a *usageError when the request is wrong: a
// GPU ordinal that does not exist, or an algorithm without a GPU kernel
// requested explicitly for GPUs that opened.
func openBackend(cfg config, h hooks, stderr io.Writer) (*backend, error) {
	h = h.withDefaults()
	if !cfg.devices.gpus() {
		return cpuBackend(cfg, h, cfg.workers), nil
	}
	gs, why, err := openGPUs(cfg.devices, h, stderr)
	if err != nil {
		return nil, err
	}
	if len(gs) == 0 {
		workers := cfg.workers
		if workers == 0 {
			workers = h.procs()
		}
		printError(stderr, fmt.Sprintf("%s; running on the CPU with %s", why, workersText(workers)))
		return cpuBackend(cfg, h, cfg.workers), nil
	}
	closeAll := func() error {
		var first error
		for _, g := range gs {
			if err := g.Close(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	algo := cfg.algo
	if algo == "" {
		algo = gpu.DefaultAlgo
	}
	if !gpu.Supports(algo) {
		closeAll()
		var alts []string
		for _, a := range gpu.Algos() {
			alts = append(alts, "-algo "+string(a))
		}
		return nil, usageErrorf("-algo %s has no GPU kernel; use %s, or -device cpu",
			algo, strings.Join(alts, " or "))
	}
	var ordinals, names []string
	var infos []gpu.DeviceInfo
	for _, g := range gs {
		info := g.Info()
		ordinals = append(ordinals, strconv.Itoa(info.Ordinal))
		names = append(names, info.Name)
		infos = append(infos, info)
	}
	b := &backend{
		kind:       "gpu",
		device:     strings.Join(ordinals, ","),
		deviceName: strings.Join(names, ", "),
		algo:       algo,
		gpus:       infos,
		close:      closeAll,
	}
	var cpuSide *backend
	if cfg.devices.cpu {
		// Each GPU needs a core to enumerate its tasks and drive it.
		workers := cfg.workers
		if workers == 0 {
			workers = max(1, h.procs()-len(gs))
		}
		cpuSide = cpuBackend(cfg, h, workers)
		cpuSide.algo = algo
		b.kind, b.device = "gpu+cpu", b.device+",cpu"
	}
	b.workers = func(spec job.Spec) []job.Worker {
		var ws []job.Worker
		for i, g := range gs {
			ws = append(ws, gpuWorker("gpu"+ordinals[i], g, spec, cfg, &b.nodes))
		}
		if cpuSide != nil {
			ws = append(ws, cpuSide.workers(spec)...)
		}
		return ws
	}
	return b, nil
}

// chooseDepth returns the depth of the partial boards of a count of n with
// algo: userDepth when -depth gave one; else, when GPUs count (gpus, the
// ones that opened) and algo searches symmetry boards, the smallest depth
// from tasks.DefaultDepth(n) that gives the GPUs enough boards
// (tasks.DepthFor with gpu.MinTasks); else tasks.DefaultDepth(n), as on the
// CPU. The carry chain's frames have no depth. The choice depends only on
// n, algo and the GPUs' SM counts, so that the same command on the same
// machine resumes its checkpoint with the same task list.
func chooseDepth(n int, algo nq.Algo, userDepth int, gpus []gpu.DeviceInfo) int {
	if userDepth != 0 {
		return userDepth
	}
	if algo != nq.Symmetry || len(gpus) == 0 {
		return tasks.DefaultDepth(n)
	}
	return tasks.DepthFor(n, gpu.MinTasks(gpus))
}

// gpuWorker counts batches on one open GPU.
// With cfg.gpuNodes it runs the kernels that count nodes and adds them to
// nodes.
func gpuWorker(name string, g gpuBackend, spec job.Spec, cfg config, nodes *atomic.Uint64) job.Worker {
	return job.Worker{Name: name, Run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		p, ok := g.(gpuPartial)
		if !ok {
			return fmt.Errorf("this build's GPU backend cannot count numbered batches")
		}
		opt := gpu.Options{Depth: spec.Depth, Batch: spec.Batch, Select: sel, Done: done,
			Threads: cfg.gpuThreads, LaunchTime: cfg.gpuLaunch, Dynamic: cfg.gpuDynamic, SharedStack: cfg.gpuSmem}
		var counted uint64
		if cfg.gpuNodes {
			opt.Nodes = &counted
		}
		_, err := p.SolvePartial(ctx, spec.N, spec.Algo, opt)
		nodes.Add(counted)
		return err
	}}
}

// cpuBackend counts on the CPU with workers goroutines (0: one per core).
func cpuBackend(cfg config, h hooks, workers int) *backend {
	algo := cfg.algo
	if algo == "" {
		algo = cpu.DefaultAlgo
	}
	return &backend{
		kind:   "cpu",
		device: "cpu",
		algo:   algo,
		workers: func(spec job.Spec) []job.Worker {
			return []job.Worker{{Name: "cpu", Run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
				opt := cpu.Options{Workers: workers, Depth: spec.Depth, Batch: spec.Batch, Select: sel, Done: done}
				_, err := h.cpuPartial(ctx, spec.N, spec.Algo, opt)
				return err
			}}}
		},
		close: func() error { return nil },
	}
}

// workersText writes "1 worker" or "K workers".
func workersText(k int) string {
	if k == 1 {
		return "1 worker"
	}
	return strconv.Itoa(k) + " workers"
}

// openGPUs opens the GPUs that dev asks for. It returns them, or none and
// the reason to fall back to the CPU, or a *usageError when dev names a
// GPU that does not exist while others do. Of several GPUs, one that does
// not open is left out with a line on stderr.
func openGPUs(dev deviceSet, h hooks, stderr io.Writer) (gs []gpuBackend, why string, err error) {
	devs, err := h.gpuDevices()
	if err != nil {
		return nil, "no GPU available (" + err.Error() + ")", nil
	}
	if len(devs) == 0 {
		return nil, "no GPU available (no CUDA device found)", nil
	}
	var ordinals []int
	if dev.all {
		for _, d := range devs {
			ordinals = append(ordinals, d.Ordinal)
		}
	}
	for _, o := range dev.ordinals {
		found := false
		for _, d := range devs {
			found = found || d.Ordinal == o
		}
		if !found {
			return nil, "", usageErrorf("invalid -device %d: no such GPU; found %s", o, describeDevices(devs))
		}
		ordinals = append(ordinals, o)
	}
	var failed []string
	for _, o := range ordinals {
		g, err := h.gpuOpen(o)
		if err != nil {
			failed = append(failed, fmt.Sprintf("GPU %d is not available (%v)", o, err))
			continue
		}
		gs = append(gs, g)
	}
	if len(gs) == 0 {
		return nil, strings.Join(failed, "; "), nil
	}
	for _, f := range failed {
		printError(stderr, f+"; counting without it")
	}
	return gs, "", nil
}

// openGPU opens the GPU that dev asks for. It returns the open GPU, or nil
// and the reason to fall back to the CPU, or a *usageError when dev names a
// GPU that does not exist while others do.
func openGPU(dev deviceSpec, h hooks) (g gpuBackend, why string, err error) {
	devs, err := h.gpuDevices()
	if err != nil {
		return nil, "no GPU available (" + err.Error() + ")", nil
	}
	if len(devs) == 0 {
		return nil, "no GPU available (no CUDA device found)", nil
	}
	var ordinal int
	switch dev.kind {
	case deviceAll:
		// Multi-GPU runs come later; until then "all" means the first GPU.
		ordinal = devs[0].Ordinal
	default:
		ordinal = dev.ordinal
		found := false
		for _, d := range devs {
			found = found || d.Ordinal == ordinal
		}
		if !found {
			return nil, "", usageErrorf("invalid -device %d: no such GPU; found %s", ordinal, describeDevices(devs))
		}
	}
	g, err = h.gpuOpen(ordinal)
	if err != nil {
		return nil, fmt.Sprintf("GPU %d is not available (%v)", ordinal, err), nil
	}
	return g, "", nil
}

// describeDevices lists GPUs for an error message.
func describeDevices(devs []gpu.DeviceInfo) string {
	s := make([]string, len(devs))
	for i, d := range devs {
		s[i] = fmt.Sprintf("%d (%s)", d.Ordinal, d.Name)
	}
	word := "GPUs"
	if len(devs) == 1 {
		word = "GPU"
	}
	return fmt.Sprintf("%d %s: %s", len(devs), word, strings.Join(s, ", "))
}
