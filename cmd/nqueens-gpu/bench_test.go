package main

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// publishedCounts returns the published counts of n (4 <= n <= 16, and
// the trivial sizes), what a correct solver returns.
func publishedCounts(n int) nq.Counts {
	switch n {
	case 1:
		return nq.Counts{C1: 1}
	case 2, 3:
		return nq.Counts{}
	}
	c, ok := known.ClassTable[n]
	if !ok {
		panic("no published classes for this N")
	}
	return nq.Counts{C2: c.C2, C4: c.C4, C8: c.C8}
}

// solverFake stands for the solvers in bench and check tests: by default
// every algorithm on every backend returns the published counts after a
// fixed time; wrong lets a test make one (backend, algorithm, N) lie.
type solverFake struct {
	mu      sync.Mutex
	calls   []string // "cpu symmetry 12", "gpu0 carrychain 12", ...
	devices []gpu.DeviceInfo
	devErr  error
	openErr error
	// wrong, if not nil, may change the counts of a call.
	wrong func(backend string, algo nq.Algo, n, call int) (nq.Counts, bool)
	err   error // returned by every Solve
	// fail, if not nil, may make a call fail.
	fail func(backend string, algo nq.Algo, n int) error
	// elapsed is the time every count and every open takes.
	elapsed time.Duration
	closed  int
}

func (f *solverFake) solve(backend string, n int, algo nq.Algo) (nq.Counts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := backend + " " + string(algo) + " " + strconv.Itoa(n)
	call := 0
	for _, c := range f.calls {
		if c == key {
			call++
		}
	}
	f.calls = append(f.calls, key)
	if f.err != nil {
		return nq.Counts{}, f.err
	}
	if f.fail != nil {
		if err := f.fail(backend, algo, n); err != nil {
			return nq.Counts{}, err
		}
	}
	if f.wrong != nil {
		if c, ok := f.wrong(backend, algo, n, call); ok {
			return c, nil
		}
	}
	return publishedCounts(n), nil
}

func (f *solverFake) hooks() hooks {
	el := f.elapsed
	if el == 0 {
		el = 2 * time.Millisecond
	}
	return hooks{
		Drivers: func(gpu.Tuning) device.Drivers {
			return device.Drivers{
				CPU:   func(int) job.Backend { return &solverBackend{f: f, name: "cpu"} },
				Procs: func() int { return 4 },
				GPUs: func() ([]gpu.DeviceInfo, error) {
					if f.devErr != nil {
						return nil, f.devErr
					}
					return f.devices, nil
				},
				OpenGPU: func(ordinal int) (job.Backend, error) {
					if f.openErr != nil {
						return nil, f.openErr
					}
					for _, d := range f.devices {
						if d.Ordinal == ordinal {
							return &solverBackend{f: f, name: "gpu" + strconv.Itoa(ordinal), gpu: true}, nil
						}
					}
					return nil, errors.New("fake: no such GPU")
				},
				GPUAlgos: gpu.Algos(),
			}
		},
		Since:     func(time.Time) time.Duration { return el },
		Plan:      fakePlan,
		Symmetric: fakeSymmetric,
	}
}

// solverBackend is a device whose counts come from solverFake: the whole
// count as the one batch 0.
type solverBackend struct {
	f    *solverFake
	name string
	gpu  bool
}

func (b *solverBackend) Name() string { return b.name }

func (b *solverBackend) Count(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	if b.gpu && !gpu.Supports(spec.Algo) {
		return errors.New("fake: no kernel")
	}
	if !sel(0) {
		return nil
	}
	c, err := b.f.solve(b.name, spec.N, spec.Algo)
	if err != nil {
		return err
	}
	done([]int{0}, workerPartial(spec.Algo, c))
	return nil
}

func (b *solverBackend) Close() error {
	if b.gpu {
		b.f.mu.Lock()
		b.f.closed++
		b.f.mu.Unlock()
	}
	return nil
}

func oneFakeGPU() *solverFake {
	return &solverFake{devices: []gpu.DeviceInfo{{Ordinal: 0, Name: "Fake H100", SMs: 132, Major: 9, Minor: 0, MemBytes: 80 << 30}}}
}

func noGPUFake() *solverFake { return &solverFake{devErr: gpu.ErrNoCUDA, openErr: gpu.ErrNoCUDA} }

type cmdResult struct {
	code           int
	stdout, stderr string
}

func runBenchFake(f *solverFake, args ...string) cmdResult {
	var out, errb bytes.Buffer
	code := runBenchWith(context.Background(), args, &out, &errb, f.hooks())
	return cmdResult{code, out.String(), errb.String()}
}

// wantFailure checks an exit status and a single error line on stderr.
func wantFailure(t *testing.T, r cmdResult, code int, msg string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, progName+": ") {
		t.Errorf("stderr %q, want one line", r.stderr)
	}
	if !strings.Contains(r.stderr, msg) {
		t.Errorf("stderr %q does not say %q", r.stderr, msg)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{nil, "missing -n"},
		{[]string{"-n", "0"}, "invalid -n"},
		{[]string{"-n", "9-8"}, "range is empty"},
		{[]string{"-n", "8", "-runs", "0"}, "invalid -runs"},
		{[]string{"-n", "8", "-warmup", "-1"}, "invalid -warmup"},
		{[]string{"-n", "8", "-device", "gpu"}, "invalid -device"},
		{[]string{"-n", "8", "-device", "cpu,cpu"}, "listed twice"},
		{[]string{"-n", "8", "-algo", "fast"}, "unknown algorithm"},
		{[]string{"-n", "8", "-algo", "bitmap,bitmap"}, "listed twice"},
		{[]string{"-n", "8", "-plot", "x.jpg"}, ".png or .svg"},
		{[]string{"-n", "8", "extra"}, "unexpected argument"},
		{[]string{"-n", "8", "-o", "a.json", "-baseline", "a.json"}, "same file"},
		{[]string{"-from", "a.json", "-n", "8"}, "-n does not apply to -from"},
		{[]string{"-from", "a.json,", "-plot", "x.png"}, "invalid -from"},
		{[]string{"-from", "a.json,b.json", "-baseline", "c.json"}, "single file"},
		{[]string{"-n", "8", "-o", "a.svg", "-plot", "a.svg"}, "-o and -plot name the same file"},
		{[]string{"-bogus"}, "not defined"},
		{[]string{"-n", "8", "-gpu-launch", "0"}, "invalid -gpu-launch 0s"},
		{[]string{"-n", "8", "-gpu-threads", "0"}, "invalid -gpu-threads 0"},
		{[]string{"-n", "1-3", "-depth", "2"}, "no depth applies to N=1-3"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			f := &solverFake{}
			r := runBenchFake(f, tc.args...)
			wantFailure(t, r, exitUsage, tc.msg)
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
			if len(f.calls) != 0 {
				t.Errorf("solved %v before failing", f.calls)
			}
		})
	}
}

func TestBenchHelp(t *testing.T) {
	r := runBenchFake(&solverFake{}, "-h")
	if r.code != 0 || !strings.Contains(r.stdout, "nqueens-gpu bench -n N|A-B") || r.stderr != "" {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestBenchCPUJSON(t *testing.T) {
	f := &solverFake{elapsed: 3 * time.Millisecond}
	r := runBenchFake(f, "-n", "8-10", "-runs", "4", "-warmup", "2", "-json", "-workers", "3")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if len(f.calls) != 3*6 {
		t.Errorf("%d counts, want 3 N x (2 warm-up + 4 runs)", len(f.calls))
	}
	d, err := report.Read(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatalf("stdout is not a bench document: %v\n%s", err, r.stdout)
	}
	if d.Runs != 4 || d.Warmup != 2 || len(d.Series) != 1 {
		t.Fatalf("runs %d warmup %d series %d", d.Runs, d.Warmup, len(d.Series))
	}
	s := d.Series[0]
	if s.Label != "cpu "+string(plan.DefaultAlgo) || s.Backend != "cpu" || s.Algo != string(plan.DefaultAlgo) || s.Workers != 3 || s.Fallback != "" {
		t.Errorf("series %+v", s)
	}
	if len(s.Results) != 3 {
		t.Fatalf("%d results", len(s.Results))
	}
	for i, res := range s.Results {
		if res.N != 8+i || res.Counts() != publishedCounts(res.N) || res.Verified != known.VerifiedClasses {
			t.Errorf("result %+v", res)
		}
		if len(res.Seconds) != 4 || len(res.WarmupSeconds) != 2 || res.Stats.Mean != 0.003 || res.Stats.StdDev != 0 {
			t.Errorf("N=%d: seconds %v warm-up %v stats %+v", res.N, res.Seconds, res.WarmupSeconds, res.Stats)
		}
		if res.NodesPerSecond != nil {
			t.Errorf("nodes/s set without a node count")
		}
	}
	if d.Env.GoVersion == "" || d.Env.CPUCores < 1 || d.Command[1] != "bench" {
		t.Errorf("env %+v command %v", d.Env, d.Command)
	}
}

func TestBenchText(t *testing.T) {
	f := &solverFake{}
	dir := t.TempDir()
	out := filepath.Join(dir, "b.json")
	r := runBenchFake(f, "-n", "6-7", "-runs", "2", "-o", out)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"environment\n", "CPU ", "Go ", "commit ", "GPU        none",
		"cpu eightfold: backend cpu, device cpu, 4 workers; start-up 2ms",
		"    mean    geomean       95% CI of geomean", "nodes/s",
		"\n  6                    4    2        2ms        2ms              2ms .. 2ms        2ms         0s        2ms        2ms      n/a\n",
		"\n  7                   40    2",
		"Task enumeration runs alongside",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := report.ReadFile(out); err != nil {
		t.Errorf("-o: %v", err)
	}
}

func TestBenchWrongCounts(t *testing.T) {
	tests := []struct {
		name  string
		wrong func(string, nq.Algo, int, int) (nq.Counts, bool)
		msg   string
	}{
		{
			name: "against the table",
			wrong: func(_ string, _ nq.Algo, n, _ int) (nq.Counts, bool) {
				if n == 9 {
					c := publishedCounts(9)
					c.C8++
					return c, true
				}
				return nq.Counts{}, false
			},
			msg: "wrong counts: N=9: total 360, published 352; unique 47, published 46; C2/C4/C8 0/4/43, published 0/4/42",
		},
		{
			name: "between runs",
			wrong: func(_ string, _ nq.Algo, n, call int) (nq.Counts, bool) {
				if n == 8 && call == 2 {
					return nq.Counts{C8: 1}, true
				}
				return nq.Counts{}, false
			},
			msg: "N=8: run 3 counted",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &solverFake{wrong: tc.wrong}
			r := runBenchFake(f, "-n", "8-10", "-runs", "3", "-json")
			wantFailure(t, r, exitRuntime, tc.msg)
			if r.stdout != "" {
				t.Errorf("a document was written despite wrong counts: %q", r.stdout)
			}
		})
	}
	f := &solverFake{err: errors.New("out of memory")}
	wantFailure(t, runBenchFake(f, "-n", "8"), exitRuntime, "N=8: out of memory")
}

func TestBenchGPU(t *testing.T) {
	f := oneFakeGPU()
	f.elapsed = 250 * time.Millisecond
	r := runBenchFake(f, "-n", "10", "-device", "cpu,0", "-algo", "symmetry,carrychain", "-runs", "2", "-json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	d, err := report.Read(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, s := range d.Series {
		labels = append(labels, s.Label)
	}
	if strings.Join(labels, ",") != "cpu symmetry,cpu carrychain,gpu0 symmetry,gpu0 carrychain" {
		t.Errorf("series %v", labels)
	}
	g := d.Series[2]
	if g.Backend != "gpu" || g.Device != "0" || g.DeviceName != "Fake H100" || g.StartupSeconds != 0.25 || d.Series[3].StartupSeconds != 0 || d.Series[3].StartupWith != "gpu0 symmetry" {
		t.Errorf("GPU series %+v", g)
	}
	if len(d.Env.GPUs) != 1 || d.Env.GPUs[0].ComputeCapability != "9.0" || d.Env.GPUs[0].SMs != 132 {
		t.Errorf("env GPUs %+v", d.Env.GPUs)
	}
	if f.closed != 1 {
		t.Errorf("GPU closed %d times, want 1", f.closed)
	}

	wantFailure(t, runBenchFake(oneFakeGPU(), "-n", "8", "-device", "0", "-algo", "bitmap"), exitUsage, "no GPU kernel")
	if r := runBenchFake(oneFakeGPU(), "-n", "8", "-device", "3", "-runs", "1", "-json"); r.code != 0 || !strings.Contains(r.stderr, "no GPU 3 (the driver sees GPU 0)") {
		t.Errorf("-device 3 of 1 GPU: exit %d, stderr %q; want the fallback line", r.code, r.stderr)
	}
}

func TestBenchFallback(t *testing.T) {
	f := noGPUFake()
	r := runBenchFake(f, "-n", "8", "-device", "0", "-runs", "2", "-json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "counting on the CPU (4 workers)") {
		t.Errorf("stderr %q, want one fallback line", r.stderr)
	}
	d, err := report.Read(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	s := d.Series[0]
	if s.Backend != "cpu" || s.Requested != "0" || !strings.Contains(s.Fallback, "built without CUDA") || !strings.Contains(s.Label, "fallback") {
		t.Errorf("series %+v", s)
	}
	if d.Env.GPUNote != gpu.ErrNoCUDA.Error() {
		t.Errorf("GPU note %q", d.Env.GPUNote)
	}
}

func TestBenchBaseline(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if r := runBenchFake(&solverFake{elapsed: 10 * time.Millisecond}, "-n", "8-9", "-runs", "3", "-o", base); r.code != 0 {
		t.Fatalf("baseline run: exit %d, %q", r.code, r.stderr)
	}
	// Every run takes the same time on each side, so the difference is
	// either exact or nil.
	r := runBenchFake(&solverFake{elapsed: 5 * time.Millisecond}, "-n", "8-10", "-runs", "3", "-baseline", base)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"compared with " + base,
		"Welch's t-test",
		"cpu eightfold        5ms       10ms       -5ms   0.500",
		"faster, significant at 5% (p<0.0001), large effect",
		`note: series "cpu eightfold" N=10: not in the baseline`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	// One run: no test.
	r = runBenchFake(&solverFake{elapsed: 10 * time.Millisecond}, "-n", "8", "-runs", "1", "-json", "-baseline", base)
	if r.code != 0 || !strings.Contains(r.stderr, "cannot test: needs at least 2 runs on each side (have 1 now, 3 before)") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := report.Read(strings.NewReader(r.stdout)); err != nil {
		t.Errorf("with -json the comparison must stay off stdout: %v", err)
	}
	// The same comparison between files.
	cur := filepath.Join(dir, "cur.json")
	runBenchFake(&solverFake{elapsed: 20 * time.Millisecond}, "-n", "8", "-runs", "2", "-o", cur)
	r = runBenchFake(&solverFake{}, "-from", cur, "-baseline", base)
	if r.code != 0 || !strings.Contains(r.stdout, "slower, significant at 5%") {
		t.Errorf("-from -baseline: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestBenchPlotAndFrom(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	pa := filepath.Join(dir, "a.png")
	if r := runBenchFake(&solverFake{elapsed: time.Millisecond}, "-n", "6-9", "-runs", "2", "-o", a, "-plot", pa); r.code != 0 {
		t.Fatalf("exit %d, %q", r.code, r.stderr)
	}
	data, err := os.ReadFile(pa)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("-plot: %v", err)
	}
	runBenchFake(oneFakeGPU(), "-n", "7-9", "-runs", "2", "-device", "0", "-o", b)

	svg := filepath.Join(dir, "ab.svg")
	r := runBenchFake(&solverFake{}, "-from", a+","+b, "-plot", svg)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	s, _ := os.ReadFile(svg)
	if !strings.Contains(string(s), "a.json: cpu eightfold") || !strings.Contains(string(s), "b.json: gpu0 eightfold") || !strings.Contains(string(s), "<path") {
		t.Errorf("the SVG lacks a series or paths")
	}

	r = runBenchFake(&solverFake{}, "-from", a+","+b)
	if r.code != 0 || !strings.Contains(r.stdout, "a.json: recorded") || !strings.Contains(r.stdout, "gpu0 eightfold: backend gpu, device 0 (Fake H100)") {
		t.Errorf("-from: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestBenchInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := runBenchWith(ctx, []string{"-n", "8"}, &out, &errb, (&solverFake{}).hooks())
	if code != exitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
