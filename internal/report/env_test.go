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
	for in, want := range map[string]string{
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version: gcc 12\n": "550.54.15",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  (dvs-builder@U16)\n":        "535.104.05",
		"GCC version: 12.2": "",
		"":                  "",
	} {
		if got := NVIDIADriver(in); got != want {
			t.Errorf("NVIDIADriver(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGatherEnv(t *testing.T) {
	e := GatherEnv(Probe{GPUNote: "built without CUDA", Commit: "abc"})
	if e.GoVersion == "" || e.CPUCores < 1 || e.GOMAXPROCS < 1 || e.GPUNote != "built without CUDA" || e.CUDABuild || e.NVIDIADriver != "" {
		t.Errorf("GatherEnv = %+v", e)
	}
}
