package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// gpuBackend is the part of *gpu.Backend the program uses.
type gpuBackend interface {
	Solve(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error)
	Info() gpu.DeviceInfo
	Close() error
}

// hooks are the program's ties to the solvers and the clock. Tests replace
// them; the program uses defaultHooks.
type hooks struct {
	cpuSolve   func(ctx context.Context, n int, algo nq.Algo, opt cpu.Options) (nq.Counts, error)
	gpuDevices func() ([]gpu.DeviceInfo, error)
	gpuOpen    func(ordinal int) (gpuBackend, error)
	since      func(start time.Time) time.Duration // elapsed time of one count
	procs      func() int                          // CPU workers when -workers is 0
}

func defaultHooks() hooks {
	return hooks{
		cpuSolve:   cpu.Solve,
		gpuDevices: gpu.Devices,
		gpuOpen: func(ordinal int) (gpuBackend, error) {
			b, err := gpu.Open(ordinal)
			if err != nil {
				return nil, err // not a typed nil in an interface
			}
			return b, nil
		},
		since: time.Since, // time.Now carries a monotonic reading
		procs: func() int { return runtime.GOMAXPROCS(0) },
	}
}

// backend is the solver chosen for a run, with what the output says about it.
type backend struct {
	kind       string // "cpu" or "gpu"
	device     string // "cpu" or the GPU ordinal, as in the JSON output
	deviceName string // the GPU's name; "" on the CPU
	algo       nq.Algo
	solve      func(ctx context.Context, n int) (nq.Counts, error)
	close      func() error
}

// openBackend chooses the backend for cfg. A GPU request that cannot be met
// because there is no usable GPU falls back to the CPU and says so in one
// line on stderr. It returns a *usageError when the request is wrong: a GPU
// ordinal that does not exist, or an algorithm without a GPU kernel
// requested explicitly for a GPU that opened.
func openBackend(cfg config, h hooks, stderr io.Writer) (*backend, error) {
	if cfg.device.kind == deviceCPU {
		return cpuBackend(cfg, h), nil
	}
	g, why, err := openGPU(cfg.device, h)
	if err != nil {
		return nil, err
	}
	if g == nil {
		b := cpuBackend(cfg, h)
		workers := cfg.workers
		if workers == 0 {
			workers = h.procs()
		}
		plural := "s"
		if workers == 1 {
			plural = ""
		}
		printError(stderr, fmt.Sprintf("%s; running on the CPU with %d worker%s", why, workers, plural))
		return b, nil
	}
	algo := cfg.algo
	if algo == "" {
		algo = gpu.DefaultAlgo
	}
	if !gpu.Supports(algo) {
		g.Close()
		var alts []string
		for _, a := range gpu.Algos() {
			alts = append(alts, "-algo "+string(a))
		}
		return nil, usageErrorf("-algo %s has no GPU kernel; use %s, or -device cpu",
			algo, strings.Join(alts, " or "))
	}
	info := g.Info()
	return &backend{
		kind:       "gpu",
		device:     strconv.Itoa(info.Ordinal),
		deviceName: info.Name,
		algo:       algo,
		solve: func(ctx context.Context, n int) (nq.Counts, error) {
			return g.Solve(ctx, n, algo)
		},
		close: g.Close,
	}, nil
}

func cpuBackend(cfg config, h hooks) *backend {
	algo := cfg.algo
	if algo == "" {
		algo = cpu.DefaultAlgo
	}
	opt := cpu.Options{Workers: cfg.workers}
	return &backend{
		kind:   "cpu",
		device: "cpu",
		algo:   algo,
		solve: func(ctx context.Context, n int) (nq.Counts, error) {
			return h.cpuSolve(ctx, n, algo, opt)
		},
		close: func() error { return nil },
	}
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
