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
	e := GatherEnv(Probe{GPUNote: "built without CUDA", Commit: "abc"})
	if e.GoVersion == "" || e.CPUCores < 1 || e.GOMAXPROCS < 1 || e.GPUNote != "built without CUDA" || e.CUDABuild || e.NVIDIADriver != "" {
		t.Errorf("GatherEnv = %+v", e)
	}
	// The build's version, and its commit where it knows one, else the
	// caller's (a test binary has no VCS stamp).
	b := buildinfo.Read("")
	want := b.Commit
	if want == "" {
		want = "abc"
	}
	if e.Version != b.Version || e.Version == "" || e.Commit != want {
		t.Errorf("GatherEnv: version %q commit %q, want %q and %q", e.Version, e.Commit, b.Version, want)
	}
}
