package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// countLine is the -json record of c at n from backend.
func countLine(t *testing.T, n int, c nq.Counts, backend string) string {
	t.Helper()
	b, err := json.Marshal(report.Record{N: n, CountsJSON: c.JSON(), Seconds: 0.5, Backend: backend, Algo: "eightfold", Device: "0"}) // as the binary writes it
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// published is the published classes of n (4 <= n <= 17).
func published(n int) nq.Counts {
	c := known.ClassTable[n]
	return nq.Counts{C2: c.C2, C4: c.C4, C8: c.C8}
}

const fallbackNotice = "nqueens-gpu: counting on the CPU (16 workers): the NVIDIA driver sees no GPU; to use a GPU, check nvidia-smi and CUDA_VISIBLE_DEVICES\n"

// outcome is how a judgement ended: "pass", "skip: WHY" or "fail: WHY".
func outcome(err error) string {
	switch err.(type) {
	case nil:
		return "pass"
	case skipError:
		return "skip: " + err.Error()
	}
	return "fail: " + err.Error()
}

func TestCheckCounts(t *testing.T) {
	eight, nine := countLine(t, 8, published(8), "gpu"), countLine(t, 9, published(9), "gpu")
	tests := []struct {
		name   string
		r      run
		lo, hi int
		want   string // a prefix of outcome
	}{
		{"published", run{out: eight + nine}, 8, 9, "pass"},
		{"every record", run{out: "========= COMPUTE-SANITIZER\n" + nine + eight}, 0, 0, "pass"},
		{"no record", run{out: "N: Total\n"}, 0, 0, "fail: no -json count record"},
		{"missing N", run{out: eight}, 8, 9, "fail: wrong counts: N=9: no result"},
		{"wrong classes", run{out: countLine(t, 8, nq.Counts{C4: 2, C8: 11}, "gpu")}, 8, 8,
			"fail: wrong counts: N=8: total 96, published 92; unique 13, published 12; C2/C4/C8 0/2/11, published 0/1/11"},
		{"wrong total field", run{out: strings.Replace(eight, `"total":92`, `"total":93`, 1)}, 8, 8, "fail: wrong counts: N=8: total 93 and unique 12 disagree"},
		{"unpublished", run{out: countLine(t, 28, nq.Counts{C8: 1}, "gpu")}, 28, 28, "fail: wrong counts: N=28: nothing published"},
		{"cpu", run{out: countLine(t, 8, published(8), "cpu"), err: fallbackNotice}, 8, 8, "fail: ran on the CPU: the NVIDIA driver sees no GPU"},
		{"exit", run{rc: 1, ended: "exit 1", err: "nqueens-gpu: boom\nmore"}, 8, 8, "fail: exit 1: nqueens-gpu: boom / more"},
		{"timeout", run{rc: 124, ended: "timed out after 2 s (STEP_TIMEOUT)"}, 8, 8, "fail: timed out after 2 s (STEP_TIMEOUT): "},
	}
	for _, tt := range tests {
		if got := outcome(checkCounts(tt.r, tt.lo, tt.hi)); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want %q...", tt.name, got, tt.want)
		}
	}
}

func TestFallbackCause(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{fallbackNotice, "the NVIDIA driver sees no GPU"},
		{"nqueens-gpu: counting on the CPU (2 workers, about 3.5 hours for N=20): built without CUDA; to use a GPU, install the CUDA toolkit (make cuda-deps), then make\n", "built without CUDA"},
		{"warming up\nnqueens-gpu: counting on the CPU (2 workers): GPU 0 did not open: cuCtxCreate: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n",
			"GPU 0 did not open: cuCtxCreate: CUDA_ERROR_OUT_OF_MEMORY: out of memory"},
		{"", "the binary fell back to the CPU"},
	}
	for _, tt := range tests {
		if got := fallbackCause(tt.stderr); got != tt.want {
			t.Errorf("fallbackCause(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}

func TestNodes(t *testing.T) {
	a := run{name: "a", err: "nodes: 120 (1e+09 nodes/s)\nnodes: 4500 (2e+09 nodes/s)\n"}
	b := run{name: "b", err: "nodes: 120 (3e+09 nodes/s)\nnodes: 4500 (1e+09 nodes/s)\n"}
	c := run{name: "c", err: "nodes: 120 (3e+09 nodes/s)\nnodes: 4501 (1e+09 nodes/s)\n"}
	short := run{name: "d", err: "nodes: 120 (3e+09 nodes/s)\n"}
	none := run{name: "e", err: "nqueens-gpu: N=10: -gpu-nodes: no GPU counted, so no nodes were counted\n"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"same", sameNodes(a, b), "pass"},
		{"differ", sameNodes(a, c), "fail: their 'nodes: K' lines differ: a has 2 (120 4500), c 2 (120 4501)"},
		{"fewer", sameNodes(a, short), "fail: their 'nodes: K' lines differ: a has 2 (120 4500), d 1 (120)"},
		{"has", checkNodes(a), "pass"},
		{"none", checkNodes(none), "fail: no 'nodes: K' line on stderr: nqueens-gpu: N=10"},
	}
	for _, tt := range tests {
		if got := outcome(tt.err); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want %q...", tt.name, got, tt.want)
		}
	}
}

func TestSameClasses(t *testing.T) {
	var cpu, gpu string
	for n := 4; n <= 9; n++ {
		cpu += countLine(t, n, published(n), "cpu")
		gpu += countLine(t, n, published(n), "gpu")
	}
	bad := strings.Replace(gpu, `"count2":0,"count4":4`, `"count2":2,"count4":3`, 1) // N=9
	tests := []struct {
		name     string
		gpu, cpu string
		maxN     int
		want     string
	}{
		{"agree", gpu, cpu, 9, "pass"},
		{"up to 6", bad, cpu, 6, "pass"},
		{"C2 and C4", bad, cpu, 9, "fail: GPU and CPU classes differ: N=9: GPU total=352 unique=47 c2=2 c4=3 c8=42, CPU total=352 unique=46 c2=0 c4=4 c8=42"},
		{"CPU short", gpu, countLine(t, 4, published(4), "cpu"), 5, "fail: GPU and CPU classes differ: N=5: no CPU count (cpu)"},
		{"nothing", "", cpu, 9, "fail: no count of N <= 9 to compare"},
	}
	for _, tt := range tests {
		err := sameClasses(run{name: "gpu", out: tt.gpu}, run{name: "cpu", out: tt.cpu}, tt.maxN)
		if got := outcome(err); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want %q...", tt.name, got, tt.want)
		}
	}
}

// shardLine is a shard record like the binary's, of backend with sums.
func shardLine(backend, sums string) string {
	return `{"kind":"nqueens-gpu shard","n":21,"algo":"symmetry","depth":7,"batch":256,"shard":0,"shards":86,"batches":12,"job_batches":1000,` +
		`"fingerprint":"d38d60f1","sums":` + sums + `,"version":"devel","backend":"` + backend + `","device":"0","seconds":1.5,"sha256":"86385b54"}` + "\n"
}

func TestShard(t *testing.T) {
	sums := `{"orbit1":0,"orbit2":0,"orbit4":5,"orbit8":482}`
	cpu := run{name: "largen-cpu", out: shardLine("cpu", sums)}
	tests := []struct {
		name string
		gpu  run
		cpu  run
		want string
	}{
		{"agree", run{out: shardLine("gpu", sums)}, cpu, "pass"},
		{"sums", run{out: shardLine("gpu", `{"orbit1":0,"orbit2":0,"orbit4":5,"orbit8":483}`)}, cpu,
			`fail: GPU and CPU shard results differ: sums {"orbit1":0,"orbit2":0,"orbit4":5,"orbit8":483} on the GPU, {"orbit1":0,"orbit2":0,"orbit4":5,"orbit8":482} on the CPU`},
		{"fingerprint", run{out: strings.Replace(shardLine("gpu", sums), "d38d60f1", "00000000", 1)}, cpu, `fail: GPU and CPU shard results differ: fingerprint "00000000"`},
		{"no solution", run{out: shardLine("gpu", `{"orbit1":0,"orbit2":0,"orbit4":0,"orbit8":0}`)},
			run{out: shardLine("cpu", `{"orbit1":0,"orbit2":0,"orbit4":0,"orbit8":0}`)}, "fail: the shard holds no solution on either side"},
		{"on the CPU", run{out: shardLine("cpu", sums), err: fallbackNotice}, cpu, "fail: ran on the CPU: the NVIDIA driver sees no GPU"},
		{"no CPU", run{out: shardLine("gpu", sums)}, run{name: "largen-cpu", rc: 124}, "fail: no CPU result to compare with (largen-cpu)"},
		{"no GPU record", run{name: "largen-static", out: "{}\n"}, cpu, "fail: no shard result in largen-static.out"},
		{"a field short", run{name: "g", out: strings.Replace(shardLine("gpu", sums), `"batches":12,`, "", 1)}, cpu, "fail: no shard result in g.out"},
		{"exit", run{rc: 2, ended: "exit 2", err: "bad flag"}, cpu, "fail: exit 2: bad flag"},
	}
	for _, tt := range tests {
		if got := outcome(sameShard(tt.gpu, tt.cpu)); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want %q...", tt.name, got, tt.want)
		}
	}
	if got := outcome(checkShard(cpu)); got != "pass" {
		t.Errorf("checkShard(the CPU's) = %q", got)
	}
}

func TestGPUFlags(t *testing.T) {
	tests := []struct {
		out  string
		want string
	}{
		{shardLine("cpu", `{"orbit1":0,"orbit2":0,"orbit4":5,"orbit8":482}`), "-depth 7"},
		{strings.Replace(shardLine("cpu", `{}`), `"depth":7`, `"depth":0`, 1), ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(gpuFlags(run{out: tt.out}), " "); got != tt.want {
			t.Errorf("gpuFlags(%.40q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestCheckSanitizer(t *testing.T) {
	banner := "========= COMPUTE-SANITIZER\n"
	count := countLine(t, 11, nq.Counts{C4: 12, C8: 329}, "gpu")
	tests := []struct {
		name  string
		r     run
		probe bool
		n     int
		want  string
	}{
		{"probe ran", run{out: banner + "========= ERROR SUMMARY: 3 errors\n"}, true, 0, "pass"},
		{"probe refused", run{rc: 1, ended: "exit 1", err: banner + "==ERROR== not supported in this environment\n"}, true, 0,
			"skip: compute-sanitizer refused: exit 1: ==ERROR== not supported in this environment"},
		{"probe silent", run{rc: 1, ended: "exit 1"}, true, 0, "skip: compute-sanitizer refused: exit 1: no ERROR SUMMARY line"},
		{"memcheck clean", run{name: "s", out: banner + count + "========= ERROR SUMMARY: 0 errors\n"}, false, 11, "pass"},
		{"racecheck clean", run{name: "s", out: banner + count + "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"}, false, 11, "pass"},
		{"errors", run{name: "s", rc: 99, ended: "exit 99", out: banner + "========= ERROR SUMMARY: 2 errors\n"}, false, 11, "fail: exit 99; see s.err in logs.tar.gz"},
		{"refused run", run{name: "s", rc: 1, ended: "exit 1"}, false, 11, "fail: exit 1; see s.err"},
		{"on the CPU", run{name: "s", out: strings.Replace(count, `"gpu"`, `"cpu"`, 1) + "========= ERROR SUMMARY: 0 errors\n", err: fallbackNotice}, false, 11, "fail: ran on the CPU"},
	}
	for _, tt := range tests {
		if got := outcome(checkSanitizer(tt.r, tt.probe, tt.n)); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want %q...", tt.name, got, tt.want)
		}
	}
}

func TestCheckNcu(t *testing.T) {
	tests := []struct {
		name  string
		r     run
		first bool
		want  string
	}{
		{"report", run{out: "  Section: Occupancy\n"}, true, "pass"},
		{"refused", run{name: "p", rc: 1, ended: "exit 1", out: "==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM - no access\n"}, true, "skip: ncu refused: ==ERROR== ERR_NVGPUCTRPERM - no access"},
		{"refused later", run{name: "p", rc: 1, ended: "exit 1", out: "==ERROR== ERR_NVGPUCTRPERM\n"}, false, "fail: exit 1; see p.err in logs.tar.gz"},
		{"no report", run{name: "p", out: "==PROF== Disconnected\n"}, true, "fail: exit 0; see p.err"},
	}
	for _, tt := range tests {
		if tt.r.ended == "" {
			tt.r.ended = "exit 0"
		}
		if got := outcome(checkNcu(tt.r, tt.first)); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want %q...", tt.name, got, tt.want)
		}
	}
}

func TestCheckDriver(t *testing.T) {
	devices := `{
  "go_version": "go1.26.8",
  "nvidia_driver": "580.65.06",
  "cuda_driver": "13.0"
}
`
	noModule := `{"go_version": "go1.26.8", "cuda_driver": "12.2"}`
	tests := []struct {
		smi      string
		smiFound bool
		devices  string
		version  string
		want     string
	}{
		{"550.54.15\n", true, "", "550.54.15", "pass"},
		{" 550.54.15 \n550.54.15\n", true, devices, "550.54.15", "pass"},
		{"Failed to initialize NVML\n", true, devices, "580.65.06", "pass"},
		{"", false, devices, "580.65.06", "pass"},
		{"470.82.01\n", true, "", "470.82.01", "fail: driver 470.82.01 (from nvidia-smi) is older than R520"},
		{"", false, strings.Replace(devices, "580.65.06", "515.105.01", 1), "515.105.01", "fail: driver 515.105.01 (from /proc/driver/nvidia/version) is older than R520"},
		{"Failed to initialize NVML\n", true, noModule, "", "skip: nvidia-smi gave no version and /proc/driver/nvidia/version is missing"},
		{"", false, "", "", "skip: nvidia-smi not found and /proc/driver/nvidia/version is missing"},
	}
	for _, tt := range tests {
		v, err := checkDriver(tt.smi, tt.smiFound, tt.devices)
		if got := outcome(err); v != tt.version || !strings.HasPrefix(got, tt.want) {
			t.Errorf("checkDriver(%q, %v, %.20q) = %q, %q; want %q, %q...", tt.smi, tt.smiFound, tt.devices, v, got, tt.version, tt.want)
		}
	}
}
