package report

import (
	"os"
	"runtime"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
)

// Probe is what the caller knows of the build and the GPUs, for GatherEnv.
type Probe struct {
	// GPUs lists the GPUs the driver reports; GPUNote says why there are
	// none, or what failed while asking.
	GPUs    []GPU
	GPUNote string
	// CUDABuild, PTXBuild, NVIDIADriver and CUDADriver are those of Env.
	CUDABuild                bool
	PTXBuild                 string
	NVIDIADriver, CUDADriver string
	// Build is the program's build: its version and commit.
	Build buildinfo.Info
	// CPUSearch is Env.CPUSearch.
	CPUSearch string
}

// GatherEnv describes the machine and the build for a bench or check
// report: p, and what the runtime and /proc say.
func GatherEnv(p Probe) Env {
	e := Env{
		Version:      p.Build.Version,
		GoVersion:    runtime.Version(),
		OS:           runtime.GOOS,
		Arch:         runtime.GOARCH,
		CPUModel:     CPUModel(readFileString("/proc/cpuinfo")),
		CPUCores:     runtime.NumCPU(),
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		Commit:       p.Build.Commit,
		CommitTime:   p.Build.CommitTime,
		Modified:     p.Build.Modified,
		CPUSearch:    p.CPUSearch,
		CUDABuild:    p.CUDABuild,
		PTXBuild:     p.PTXBuild,
		CUDADriver:   p.CUDADriver,
		NVIDIADriver: p.NVIDIADriver,
		GPUs:         p.GPUs,
		GPUNote:      p.GPUNote,
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
