package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// gatherEnv describes the machine and the build for a bench or check
// report. The GPU list comes from h, the driver details from the cuda
// build (bench_env_cuda.go); everything else from the runtime, the build
// information and /proc.
func gatherEnv(h hooks) report.Env {
	e := report.Env{
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		CPUModel:   cpuModel(readFileString("/proc/cpuinfo")),
		CPUCores:   runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	// The Makefile's stamp first; Go's own VCS stamp wins where there is
	// one.
	e.Commit, e.Modified = buildCommit, buildModified == "true"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				e.Commit = s.Value
			case "vcs.time":
				e.CommitTime = s.Value
			case "vcs.modified":
				e.Modified = s.Value == "true"
			}
		}
	}
	d := cudaDetails()
	e.CUDABuild, e.PTXBuild, e.CUDADriver = d.build, d.ptx, d.driver
	devs, err := h.gpuDevices()
	switch {
	case err != nil:
		e.GPUNote = err.Error()
	case len(devs) == 0:
		e.GPUNote = "no CUDA device found"
	}
	for _, g := range devs {
		e.GPUs = append(e.GPUs, report.GPU{
			Ordinal:           g.Ordinal,
			Name:              g.Name,
			ComputeCapability: fmt.Sprintf("%d.%d", g.Major, g.Minor),
			SMs:               g.SMs,
			MemBytes:          g.MemBytes,
		})
	}
	if e.CUDABuild {
		e.NVIDIADriver = nvidiaDriver(readFileString("/proc/driver/nvidia/version"))
	}
	return e
}

// buildCommit and buildModified are set by the Makefile (-ldflags -X) to
// the git commit the binary was built from and "true" if the tree had
// uncommitted changes to tracked files.
var buildCommit, buildModified string

// cudaInfo is what the cuda build adds to the environment.
type cudaInfo struct {
	build  bool   // built with the cuda tag
	ptx    string // how the embedded PTX was compiled
	driver string // CUDA version the driver supports, "12.4"
}

func readFileString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// cpuModel returns the first "model name" of /proc/cpuinfo (x86), or its
// "Model" or "CPU part" line (ARM), or "".
func cpuModel(cpuinfo string) string {
	for _, key := range []string{"model name", "Model", "Hardware", "CPU part"} {
		for _, line := range strings.Split(cpuinfo, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.TrimSpace(k) == key {
				if v = strings.TrimSpace(v); v != "" {
					return strings.Join(strings.Fields(v), " ")
				}
			}
		}
	}
	return ""
}

// nvidiaDriver returns the version in /proc/driver/nvidia/version, such as
// "550.54.15" from "NVRM version: NVIDIA UNIX x86_64 Kernel Module
// 550.54.15  Tue Mar  5 ...", or "".
func nvidiaDriver(version string) string {
	first, _, _ := strings.Cut(version, "\n")
	if !strings.HasPrefix(first, "NVRM version:") {
		return ""
	}
	for _, f := range strings.Fields(first) {
		if isDriverVersion(f) {
			return f
		}
	}
	return ""
}

// isDriverVersion reports whether s looks like 550.54.15 or 535.104.
func isDriverVersion(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
