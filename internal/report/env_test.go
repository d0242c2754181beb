package report

import (
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
)

func TestEnvParsing(t *testing.T) {
	if got := CPUModel("processor\t: 0\nmodel name\t: Intel(R)  Xeon(R)   CPU @ 2.20GHz\n"); got != "Intel(R) Xeon(R) CPU @ 2.20GHz" {
		t.Errorf("CPUModel = %q", got)
	}
	if got := CPUModel("processor : 0\nCPU part : 0xd0c\n"); got != "0xd0c" {
		t.Errorf("CPUModel(arm) = %q", got)
	}
	if got := CPUModel(""); got != "" {
		t.Errorf("CPUModel(\"\") = %q", got)
	}
}

func TestGatherEnv(t *testing.T) {
	b := buildinfo.Info{Version: "v1.2.3", Commit: "abc", Modified: true, CommitTime: "2026-12-01T09:30:00Z", Go: "go1.26.8"}
	e := GatherEnv(Probe{GPUNote: "built without CUDA", Build: b})
	if e.GoVersion == "" || e.CPUCores < 1 || e.GOMAXPROCS < 1 || e.GPUNote != "built without CUDA" || e.CUDABuild || e.NVIDIADriver != "" {
		t.Errorf("GatherEnv = %+v", e)
	}
	if e.Version != b.Version || e.Commit != b.Commit || !e.Modified || e.CommitTime != b.CommitTime {
		t.Errorf("GatherEnv: version %q commit %q modified %v time %q, want the build's %+v", e.Version, e.Commit, e.Modified, e.CommitTime, b)
	}
}
