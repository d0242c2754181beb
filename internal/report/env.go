package report

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Probe is what the caller knows of the build and the GPUs, for GatherEnv.
type Probe struct {
	// GPUs lists the GPUs the driver reports; GPUNote says why there are
	// none, or what failed while asking.
	GPUs    []GPU
	GPUNote string
	// CUDABuild, PTXBuild and CUDADriver are those of Env.
	CUDABuild  bool
	PTXBuild   string
	CUDADriver string
	// Commit and Modified are the build's commit as the build stamped it;
	// Go's own VCS stamp, where there is one, wins.
	Commit   string
	Modified bool
}

// GatherEnv describes the machine and the build for a bench or check
// report: p, and what the runtime, the build information and /proc say.
func GatherEnv(p Probe) Env {
	e := Env{
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		CPUModel:   CPUModel(readFileString("/proc/cpuinfo")),
		CPUCores:   runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Commit:     p.Commit,
		Modified:   p.Modified,
		CUDABuild:  p.CUDABuild,
		PTXBuild:   p.PTXBuild,
		CUDADriver: p.CUDADriver,
		GPUs:       p.GPUs,
		GPUNote:    p.GPUNote,
	}
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
	if e.CUDABuild {
		e.NVIDIADriver = NVIDIADriver(readFileString("/proc/driver/nvidia/version"))
	}
	return e
}

func readFileString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// CPUModel returns the first "model name" of /proc/cpuinfo (x86), or its
// "Model" or "CPU part" line (ARM), or "".
func CPUModel(cpuinfo string) string {
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

// NVIDIADriver returns the version in /proc/driver/nvidia/version, such as
// "550.54.15" from "NVRM version: NVIDIA UNIX x86_64 Kernel Module
// 550.54.15  Tue Mar  5 ...", or "".
func NVIDIADriver(version string) string {
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
