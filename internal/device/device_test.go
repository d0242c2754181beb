package device

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Set
		err  string
	}{
		{"cpu", Set{CPU: true}, ""},
		{"CPU", Set{CPU: true}, ""},
		{"0", Set{Ordinals: []int{0}}, ""},
		{"all", Set{All: true}, ""},
		{"0,2", Set{Ordinals: []int{0, 2}}, ""},
		{"all,cpu", Set{CPU: true, All: true}, ""},
		{"cpu,1", Set{CPU: true, Ordinals: []int{1}}, ""},
		{"", Set{}, "want cpu, a GPU ordinal"},
		{"gpu0", Set{}, "want cpu, a GPU ordinal"},
		{"0,x", Set{}, `"x" is not cpu`},
		{"0,0", Set{}, "0 is listed twice"},
		{"cpu,CPU", Set{}, "cpu is listed twice"},
		{"all,1", Set{}, "all already takes every GPU"},
		{"-1", Set{}, "want cpu"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		var ue *UsageError
		if tt.err != "" {
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) = %v, want a usage error with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) || got.String() == "" {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if again, err := Parse(got.String()); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("Parse(%q).String() = %q does not parse back", tt.in, got.String())
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := ParseList("cpu, 0,all")
	want := []Set{{CPU: true}, {Ordinals: []int{0}}, {All: true}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseList = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"cpu,0,cpu", "x", "0,,1"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("ParseList(%q) accepted", bad)
		}
	}
}

// fake is a backend that records its counts.
type fake struct {
	name   string
	counts *[]string
	closed *int
}

func (f *fake) Name() string { return f.name }
func (f *fake) Count(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	*f.counts = append(*f.counts, fmt.Sprintf("%s N=%d depth %d", f.name, spec.N, spec.Depth))
	if sel(0) {
		done([]int{0}, nq.Partial{0, 0, 1, 11}) // N=8
	}
	return nil
}
func (f *fake) Close() error { *f.closed++; return nil }

// drivers are two fake GPUs (an H100 and an A100) and the CPU; failing
// makes single GPUs fail to open.
func drivers(gpus []gpu.DeviceInfo, listErr error, failing map[int]error, counts *[]string, closed *int) Drivers {
	return Drivers{
		CPU:   func(w int) job.Backend { return &fake{name: fmt.Sprintf("cpu/%d", w), counts: counts, closed: closed} },
		Procs: func() int { return 4 },
		GPUs:  func() ([]gpu.DeviceInfo, error) { return gpus, listErr },
		OpenGPU: func(o int) (job.Backend, error) {
			if err := failing[o]; err != nil {
				return nil, err
			}
			return &fake{name: fmt.Sprintf("gpu%d", o), counts: counts, closed: closed}, nil
		},
		GPUAlgos: []nq.Algo{nq.Symmetry, nq.CarryChain},
		// The cause is the text before a colon, the rest its details.
		Cause: func(err error) string { c, _, _ := strings.Cut(err.Error(), ": "); return c },
		Fix:   func(err error) string { return "fix " + err.Error() },
	}
}

var twoGPUs = []gpu.DeviceInfo{{Ordinal: 0, Name: "H100", SMs: 132}, {Ordinal: 1, Name: "A100", SMs: 108}}

func TestOpen(t *testing.T) {
	busy := errors.New("busy")
	tests := []struct {
		set      string
		opt      Options
		gpus     []gpu.DeviceInfo
		listErr  error
		failing  map[int]error
		kind     string
		device   string
		workers  int
		fallback string
		detail   string
		leftOut  int
	}{
		{"cpu", Options{}, twoGPUs, nil, nil, "cpu", "cpu", 4, "", "", 0},
		{"cpu", Options{Workers: 2}, twoGPUs, nil, nil, "cpu", "cpu", 2, "", "", 0},
		{"all", Options{}, twoGPUs, nil, nil, "gpu", "0,1", 0, "", "", 0},
		{"1,0", Options{}, twoGPUs, nil, nil, "gpu", "1,0", 0, "", "", 0},
		{"all,cpu", Options{}, twoGPUs, nil, nil, "gpu+cpu", "0,1,cpu", 2, "", "", 0}, // a core per GPU left free
		{"0,cpu", Options{Workers: 3}, twoGPUs, nil, nil, "gpu+cpu", "0,cpu", 3, "", "", 0},
		{"all", Options{}, twoGPUs, nil, map[int]error{1: busy}, "gpu", "0", 0, "", "", 1},
		{"all", Options{}, twoGPUs, nil, map[int]error{0: busy, 1: busy}, "cpu", "cpu", 4, "GPU 0 did not open: busy; GPU 1 did not open: busy", "", 0},
		{"0", Options{}, twoGPUs, nil, map[int]error{0: errors.New("busy: context in use")}, "cpu", "cpu", 4, "GPU 0 did not open: busy", "GPU 0: busy: context in use", 0},
		{"0", Options{}, nil, errors.New("built without CUDA"), nil, "cpu", "cpu", 4, "built without CUDA", "", 0},
		{"0", Options{}, nil, errors.New("NVIDIA kernel module not loaded: /lib/libcuda.so.1 is installed"), nil, "cpu", "cpu", 4,
			"NVIDIA kernel module not loaded", "NVIDIA kernel module not loaded: /lib/libcuda.so.1 is installed", 0},
		{"all,cpu", Options{Workers: 1}, nil, nil, nil, "cpu", "cpu", 1, "the driver sees no GPU", "", 0},
		{"2", Options{}, twoGPUs, nil, nil, "cpu", "cpu", 4, "no GPU 2 (the driver sees GPUs 0 to 1)", "", 0},
		{"5", Options{}, twoGPUs[1:], nil, nil, "cpu", "cpu", 4, "no GPU 5 (the driver sees GPU 1)", "", 0},
		{"0,2", Options{}, twoGPUs, nil, nil, "gpu", "0", 0, "", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			set, err := Parse(tt.set)
			if err != nil {
				t.Fatal(err)
			}
			var counts []string
			closed := 0
			tt.opt.Algo = nq.Symmetry // the fake counts report symmetry's sums
			d, err := Open(set, tt.opt, drivers(tt.gpus, tt.listErr, tt.failing, &counts, &closed))
			if err != nil {
				t.Fatal(err)
			}
			if d.Kind != tt.kind || d.Device != tt.device || d.CPUWorkers != tt.workers || d.Fallback != tt.fallback ||
				d.FallbackDetail != tt.detail || len(d.LeftOut) != tt.leftOut {
				t.Errorf("Open = %+v", d)
			}
			if tt.fallback != "" && d.FallbackLine("") != fmt.Sprintf("counting on the CPU (%s): %s; to use a GPU, %s", Workers(tt.workers), tt.fallback, d.FallbackFix) {
				t.Errorf("FallbackLine = %q", d.FallbackLine(""))
			}
			c, err := job.Count(context.Background(), job.Config{Spec: d.Spec(8, "", 0), Backends: d.Backends, Beside: d.Beside()})
			if err != nil || c != (nq.Counts{C4: 1, C8: 11}) {
				t.Errorf("Count = %v, %v", c, err)
			}
			if len(counts) != len(d.Backends) {
				t.Errorf("counts %v: every backend goes through the job's batches", counts)
			}
			if err := d.Close(); err != nil || closed != len(d.Backends) {
				t.Errorf("Close: %v, %d of %d closed", err, closed, len(d.Backends))
			}
		})
	}
}

func TestOpenUsageErrors(t *testing.T) {
	tests := []struct {
		set  string
		algo nq.Algo
		msg  string
	}{
		{"0", nq.Bitmap, "-algo bitmap has no GPU kernel; use -algo symmetry or -algo carrychain, or -device cpu"},
		{"all,cpu", nq.Backtrack, "-algo backtrack has no GPU kernel"},
	}
	for _, tt := range tests {
		set, _ := Parse(tt.set)
		var counts []string
		closed := 0
		_, err := Open(set, Options{Algo: tt.algo}, drivers(twoGPUs, nil, nil, &counts, &closed))
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("-device %s -algo %s: %v, want %q", tt.set, tt.algo, err, tt.msg)
		}
	}
	// Without GPUs every algorithm runs, on the CPU.
	var counts []string
	closed := 0
	d, err := Open(Set{Ordinals: []int{0}}, Options{Algo: nq.Bitmap}, drivers(nil, errors.New("no driver"), nil, &counts, &closed))
	if err != nil || d.Algo != nq.Bitmap || d.Check(nq.Backtrack) != nil {
		t.Errorf("fallback with -algo bitmap: %+v, %v", d, err)
	}
}

// The depth of a count: -depth if given, else the depth that gives the
// GPUs that count enough symmetry boards, else the default (the CPU, the
// carry chain).
func TestSpecDepth(t *testing.T) {
	h100 := gpu.DeviceInfo{Ordinal: 0, Name: "H100", SMs: 132}
	a100 := gpu.DeviceInfo{Ordinal: 1, Name: "A100", SMs: 108}
	one := []gpu.DeviceInfo{h100}
	tests := []struct {
		name      string
		n         int
		algo      nq.Algo
		userDepth int
		gpus      []gpu.DeviceInfo
		want      int
	}{
		{"CPU N=16", 16, nq.Symmetry, 0, nil, tasks.DefaultDepth(16)},
		{"CPU N=20", 20, nq.Symmetry, 0, nil, tasks.DefaultDepth(20)},
		{"CPU bitmap", 14, nq.Bitmap, 0, nil, tasks.DefaultDepth(14)},
		// 8 × 132 × 2048 = 2,162,688: depth 7 has 1,168,189 boards at
		// N=16, depth 8 4,231,484; at N=17 depth 7 has 2,272,413.
		{"H100 N=16", 16, nq.Symmetry, 0, one, 8},
		{"H100 N=17", 17, nq.Symmetry, 0, one, 7},
		{"H100 N=18", 18, nq.Symmetry, 0, one, 7},
		{"H100 N=20", 20, nq.Symmetry, 0, one, 7},
		{"H100 N=24", 24, nq.Symmetry, 0, one, 8},
		// 240 SMs: 3,932,160 boards, more than depth 7's 2,272,413.
		{"H100+A100 N=17", 17, nq.Symmetry, 0, []gpu.DeviceInfo{h100, a100}, 8},
		{"H100 N=12", 12, nq.Symmetry, 0, one, 6}, // never enough: depth 7 less than doubles the boards
		{"H100 N=3", 3, nq.Symmetry, 0, one, 0},   // searched whole
		{"user depth on a GPU", 16, nq.Symmetry, 5, one, 5},
		{"user depth on the CPU", 16, nq.Symmetry, 9, nil, 9},
		{"carry chain on a GPU", 16, nq.CarryChain, 0, one, 0}, // frames have no depth
		{"GPU without an SM count", 16, nq.Symmetry, 0, []gpu.DeviceInfo{{Ordinal: 0}}, tasks.DefaultDepth(16)},
	}
	for _, tt := range tests {
		d := &Devices{GPUs: tt.gpus, Algo: nq.Symmetry}
		if got := d.Spec(tt.n, tt.algo, tt.userDepth); got.Depth != tt.want || got.Algo != tt.algo {
			t.Errorf("%s: Spec(%d, %s, %d) on %d GPUs = %+v, want depth %d", tt.name, tt.n, tt.algo, tt.userDepth, len(tt.gpus), got, tt.want)
		}
	}
}

// -require-gpu turns every fallback into a *FallbackError, and leaves a
// count that has a GPU alone.
func TestRequireGPU(t *testing.T) {
	tests := []struct {
		set     string
		gpus    []gpu.DeviceInfo
		listErr error
		failing map[int]error
		refused string // "": no error
	}{
		{"0", nil, errors.New("no NVIDIA driver"), nil, "no NVIDIA driver; to use a GPU, fix no NVIDIA driver; -require-gpu refuses"},
		{"3", twoGPUs, nil, nil, "no GPU 3 (the driver sees GPUs 0 to 1); to use a GPU, nqueens-gpu devices lists them;"},
		{"all", twoGPUs, nil, map[int]error{0: errors.New("busy"), 1: errors.New("busy")}, "GPU 0 did not open: busy; GPU 1 did not open: busy; to use a GPU, fix busy;"},
		{"all", twoGPUs, nil, map[int]error{1: errors.New("busy")}, ""},
		{"cpu", nil, errors.New("no NVIDIA driver"), nil, ""},
	}
	for _, tt := range tests {
		set, _ := Parse(tt.set)
		var counts []string
		closed := 0
		d, err := Open(set, Options{RequireGPU: true, Algo: nq.Symmetry}, drivers(tt.gpus, tt.listErr, tt.failing, &counts, &closed))
		var fe *FallbackError
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("-device %s: %v", tt.set, err)
		case tt.refused != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), tt.refused)):
			t.Errorf("-device %s: %v, want a FallbackError with %q", tt.set, err, tt.refused)
		case err == nil:
			d.Close()
		}
	}
}

func TestFallbackLine(t *testing.T) {
	d := &Devices{Fallback: "built without CUDA", FallbackFix: "build with make", CPUWorkers: 1}
	want := "counting on the CPU (1 worker, about 3 hours for N=20): built without CUDA; to use a GPU, build with make"
	if got := d.FallbackLine("about 3 hours for N=20"); got != want {
		t.Errorf("FallbackLine = %q, want %q", got, want)
	}
	if got := (&Devices{}).FallbackLine("x"); got != "" {
		t.Errorf("no fallback: %q", got)
	}
}
