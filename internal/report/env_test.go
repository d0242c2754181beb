package report

import (
	"strings"
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

// The driver row never contradicts the GPU row: with the driver's library
// and no kernel module (CI's machine) it says so, not "NVIDIA unknown".
func TestDriverRow(t *testing.T) {
	tests := []struct {
		env  Env
		want string
	}{
		{Env{CUDABuild: true, NVIDIADriver: "550.54.15", CUDADriver: "12.4", GPUs: []GPU{{Name: "H100"}}}, "NVIDIA 550.54.15, CUDA 12.4"},
		{Env{CUDABuild: true, CUDADriver: "12.2", GPUNote: "NVIDIA kernel module not loaded: /lib/libcuda.so.1 is installed"},
			"the library only (libcuda.so.1, CUDA 12.2), no kernel module loaded"},
		{Env{CUDABuild: true, CUDADriver: "12.6", GPUs: []GPU{{Name: "RTX 4090"}}}, "NVIDIA, CUDA 12.6"},
		{Env{CUDABuild: true, GPUNote: "no NVIDIA driver (libcuda.so.1: cannot open shared object file)"}, "none"},
		{Env{GPUNote: "built without CUDA"}, ""},
	}
	for _, tt := range tests {
		var b strings.Builder
		WriteEnvText(&b, &tt.env)
		_, row, _ := strings.Cut(b.String(), "\n  driver     ")
		row, _, _ = strings.Cut(row, "\n")
		if row != tt.want || strings.Contains(b.String(), "NVIDIA unknown") {
			t.Errorf("%+v: driver row %q, want %q\n%s", tt.env, row, tt.want, b.String())
		}
	}
}
