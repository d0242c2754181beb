package report

import "testing"

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
}
