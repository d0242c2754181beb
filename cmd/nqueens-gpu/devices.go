package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// runDevices runs `nqueens-gpu devices`.
func runDevices(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runDevicesWith(ctx, args, stdout, stderr, defaultHooks())
}

// runDevicesWith lists the GPUs the program can use (ordinal, name,
// compute capability, SMs, memory), the NVIDIA driver and CUDA versions,
// the CPU and the build; without a GPU it says why on stderr and exits 1.
func runDevicesWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) (code int) {
	out := checkedOutput(stdout)
	defer func() { code = outputDone(code, out, stderr) }()
	stdout = out
	var asJSON bool
	if _, err := parseFlags(devicesFlagSet(&asJSON), args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return helpDone(stdout, stderr, "devices")
		}
		printSubcommandUsageError(stderr, "devices", err)
		return exitUsage
	}
	h = h.withDefaults()
	env, err := gatherEnv(h, gpu.Tuning{})
	if asJSON {
		if err2 := report.WriteJSON(stdout, &env); err2 != nil {
			return outputFailed(stderr, err2)
		}
	} else {
		var b strings.Builder
		report.WriteEnvText(&b, &env)
		if _, err2 := io.WriteString(stdout, b.String()); err2 != nil {
			return outputFailed(stderr, err2)
		}
	}
	if len(env.GPUs) == 0 {
		msg := "no GPU to count on: " + env.GPUNote
		if err != nil {
			if fix := h.drivers(gpu.Tuning{}).Fix; fix != nil && fix(err) != "" {
				msg += "; to use a GPU: " + fix(err)
			}
		}
		printError(stderr, msg)
		return exitRuntime
	}
	return exitOK
}

// gatherEnv describes the machine, the build and the GPUs for bench,
// check and devices; its error is the GPU list's.
func gatherEnv(h hooks, tune gpu.Tuning) (report.Env, error) {
	p := report.Probe{Commit: buildCommit, Modified: buildModified == "true", CPUSearch: cpu.EightfoldPath()}
	p.CUDABuild, p.PTXBuild = gpu.CUDABuild()
	if d, err := gpu.Driver(); err == nil {
		p.NVIDIADriver, p.CUDADriver = d.Version, d.CUDAVersion()
	}
	gpus, err := h.drivers(tune).GPUs()
	switch {
	case err != nil:
		p.GPUNote = err.Error()
	case len(gpus) == 0:
		p.GPUNote = "no CUDA device found"
	}
	for _, g := range gpus {
		p.GPUs = append(p.GPUs, report.GPU{Ordinal: g.Ordinal, Name: g.Name,
			ComputeCapability: fmt.Sprintf("%d.%d", g.Major, g.Minor), SMs: g.SMs, MemBytes: g.MemBytes})
	}
	return report.GatherEnv(p), err
}

// devicesFlagSet defines the flags of devices, storing -json into asJSON.
func devicesFlagSet(asJSON *bool) *flag.FlagSet {
	fs := newFlagSet(progName + " devices")
	fs.BoolVar(asJSON, "json", false, "write the description as a JSON object")
	return fs
}
