package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// benchDevice is one entry of the -device list of bench and check: the
// CPU (the zero value), GPU ordinal, or the first GPU for "all".
type benchDevice struct {
	gpu     bool
	all     bool
	ordinal int
}

func (d benchDevice) String() string {
	switch {
	case !d.gpu:
		return "cpu"
	case d.all:
		return "all"
	}
	return strconv.Itoa(d.ordinal)
}

// parseDeviceList parses a -device list such as "cpu,0": each entry is
// cpu, all or a GPU ordinal, and none may appear twice.
func parseDeviceList(s string) ([]benchDevice, error) {
	var out []benchDevice
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		var d benchDevice
		switch strings.ToLower(f) {
		case "cpu":
		case "all":
			d = benchDevice{gpu: true, all: true}
		default:
			k, err := strconv.Atoi(f)
			if err != nil || f == "" || strings.Trim(f, "0123456789") != "" {
				return nil, usageErrorf("invalid -device %q: want cpu, a GPU ordinal such as 0, or all, several separated by commas", s)
			}
			d = benchDevice{gpu: true, ordinal: k}
		}
		if seen[d.String()] {
			return nil, usageErrorf("invalid -device %q: %s is listed twice", s, d)
		}
		seen[d.String()] = true
		out = append(out, d)
	}
	return out, nil
}

// benchBackend is an open backend that can run any of its algorithms.
type benchBackend struct {
	kind, device, deviceName string
	defaultAlgo              nq.Algo
	solve                    func(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error)
	close                    func() error
}

// openBenchBackend opens the CPU or the GPU dev asks for. A GPU request
// that cannot be met because no GPU is usable falls back to the CPU, with
// the reason in fallback, as the counting command does; an ordinal that
// does not exist while other GPUs do is a *usageError.
func openBenchBackend(dev benchDevice, h hooks, workers int) (b *benchBackend, fallback string, err error) {
	if dev.gpu {
		g, why, err := openBenchGPU(dev, h)
		if err != nil {
			return nil, "", err
		}
		if g != nil {
			info := g.Info()
			return &benchBackend{
				kind:        "gpu",
				device:      strconv.Itoa(info.Ordinal),
				deviceName:  info.Name,
				defaultAlgo: gpu.DefaultAlgo,
				solve:       g.Solve,
				close:       g.Close,
			}, "", nil
		}
		fallback = why
	}
	opt := cpu.Options{Workers: workers}
	return &benchBackend{
		kind:        "cpu",
		device:      "cpu",
		defaultAlgo: cpu.DefaultAlgo,
		solve: func(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error) {
			return h.cpuSolve(ctx, n, algo, opt)
		},
		close: func() error { return nil },
	}, fallback, nil
}

// openBenchGPU opens the GPU of dev, or returns nil and why not.
func openBenchGPU(dev benchDevice, h hooks) (g gpuBackend, why string, err error) {
	devs, err := h.gpuDevices()
	if err != nil {
		return nil, "no GPU available (" + err.Error() + ")", nil
	}
	if len(devs) == 0 {
		return nil, "no GPU available (no CUDA device found)", nil
	}
	ordinal := devs[0].Ordinal
	if !dev.all {
		ordinal = dev.ordinal
		var names []string
		found := false
		for _, d := range devs {
			found = found || d.Ordinal == ordinal
			names = append(names, fmt.Sprintf("%d (%s)", d.Ordinal, d.Name))
		}
		if !found {
			return nil, "", usageErrorf("invalid -device %d: no such GPU; found %s", ordinal, strings.Join(names, ", "))
		}
	}
	g, err = h.gpuOpen(ordinal)
	if err != nil {
		return nil, fmt.Sprintf("GPU %d is not available (%v)", ordinal, err), nil
	}
	return g, "", nil
}
