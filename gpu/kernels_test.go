package gpu

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/kernels"
)

// recorder is a launcher that keeps what each launch got: the kernel, the
// shape and the argument values, read with the parameters' sizes.
type recorder struct {
	sizes []int // the PTX parameter sizes
	f     kernelFunc
	shape launchShape
	n     int      // argument pointers passed
	vals  []uint64 // their values, read at sizes
}

func (r *recorder) launch(f kernelFunc, shape launchShape, args []unsafe.Pointer) {
	r.f, r.shape, r.n = f, shape, len(args)
	r.vals = nil
	for i, p := range args {
		if i >= len(r.sizes) {
			break
		}
		switch r.sizes[i] {
		case 4:
			r.vals = append(r.vals, uint64(*(*uint32)(p)))
		case 8:
			r.vals = append(r.vals, *(*uint64)(p))
		default:
			r.vals = append(r.vals, 0xbad)
		}
	}
}

// embeddedPTX is kernels.PTX in the cuda build (set by cuda_test.go), for
// a test binary run away from the repository; nil without CUDA.
var embeddedPTX func() map[string]string

// committedEntries reads the kernel entries of kernels/ptx from disk,
// keyed by name, or, away from the repository, those of the embedded PTX;
// skipped where there is neither.
func committedEntries(t *testing.T) map[string]kernels.Entry {
	t.Helper()
	files, err := filepath.Glob("../kernels/ptx/*.ptx")
	if err != nil {
		t.Fatal(err)
	}
	texts := make(map[string]string)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	if len(files) == 0 {
		_, err := os.Stat("../kernels/sources.go")
		switch {
		case err == nil:
			t.Fatal("no PTX in kernels/ptx: run make ptx")
		case errors.Is(err, fs.ErrNotExist) && embeddedPTX != nil:
			texts = embeddedPTX()
		default:
			t.Skip("not run in the repository, and no PTX embedded")
		}
	}
	m := make(map[string]kernels.Entry)
	for name, text := range texts {
		es, err := kernels.Entries(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range es {
			m[e.Name] = e
		}
	}
	return m
}

// Every line of the registry names a kernel that the sources declare and
// the committed PTX holds, with its _nodes twin, and its wrapper passes
// each groupArgs field to the kernel parameter of the same name in the
// .cu file, at the parameter's place and of its size. Every kernel the
// sources declare has a line.
func TestRegistryMatchesPTX(t *testing.T) {
	entries := committedEntries(t)
	decls, err := kernels.Decls()
	if err != nil {
		t.Fatal(err)
	}
	// Distinct values, each with bits in both halves where 64-bit.
	g := groupArgs{n: 11, depth: 7, count: 1234567,
		rows: 0x1111_0000_0101, left: 0x2222_0000_0202, down: 0x3333_0000_0303, right: 0x4444_0000_0404, meta: 0x9999_0000_0909,
		weight: 0x5555_0000_0505, sym180: 0x6666_0000_0606, out: 0x7777_0000_0707, next: 0x8888_0000_0808}
	gv := reflect.ValueOf(g)
	var named []string
	for _, k := range kernelTable {
		t.Run(k.name, func(t *testing.T) {
			i := slices.IndexFunc(decls, func(d kernels.Decl) bool { return d.Name == k.name })
			if i < 0 {
				t.Fatalf("no kernels/*.cu declares NQ_KERNEL(%s)", k.name)
			}
			d := decls[i]
			for _, name := range []string{k.name, k.name + "_nodes"} {
				e, ok := entries[name]
				if !ok {
					t.Errorf("kernels/ptx has no entry %s: run make ptx", name)
					continue
				}
				r := &recorder{sizes: e.ParamSizes}
				shape := launchShape{blocks: 3, threads: 64, sharedBytes: 96}
				k.launch(r, kernelFunc(0xf00d), shape, &g)
				if r.f != 0xf00d || r.shape != shape {
					t.Errorf("%s: launched %#x with %+v, want %#x with %+v", name, r.f, r.shape, 0xf00d, shape)
				}
				if r.n != len(e.ParamSizes) || len(d.Params) != len(e.ParamSizes) {
					t.Fatalf("%s: the wrapper passes %d arguments, the PTX has %d parameters, %s declares %d",
						name, r.n, len(e.ParamSizes), d.File, len(d.Params))
				}
				for j, p := range d.Params {
					f := gv.FieldByName(p.Name)
					if !f.IsValid() {
						t.Errorf("%s: parameter %s has no groupArgs field of that name", name, p.Name)
						continue
					}
					var want uint64
					if f.CanInt() {
						want = uint64(f.Int())
					} else {
						want = f.Uint()
					}
					if size := e.ParamSizes[j]; size == 4 {
						want &= 0xffffffff
					}
					if r.vals[j] != want {
						t.Errorf("%s: argument %d (%s) is %#x, want groupArgs.%s = %#x", name, j, p.Name, r.vals[j], p.Name, want)
					}
				}
			}
			if k.fetch != slices.ContainsFunc(d.Params, func(p kernels.Param) bool { return p.Name == "next" }) {
				t.Errorf("fetch is %v, but the kernel's parameters are %+v", k.fetch, d.Params)
			}
		})
		named = append(named, k.name)
	}
	for _, d := range decls {
		if !slices.Contains(named, d.Name) {
			t.Errorf("%s declares kernel %s, which has no line in kernelTable", d.File, d.Name)
		}
	}
}

func TestLookupKernel(t *testing.T) {
	tests := []struct {
		algo     nq.Algo
		opt      Options
		want     string // kernel name, or "" for an error
		errWords string
	}{
		{nq.Symmetry, Options{}, "nq_symmetry_boards", ""},
		{nq.Symmetry, Options{Tuning: Tuning{Dynamic: true}}, "nq_symmetry_boards_dyn", ""},
		{nq.Symmetry, Options{Tuning: Tuning{SharedStack: true}}, "nq_symmetry_boards_smem", ""},
		{nq.Symmetry, Options{Tuning: Tuning{Dynamic: true, SharedStack: true}}, "nq_symmetry_boards_smem", ""},
		{nq.Symmetry, Options{Tuning: Tuning{Variant: Dynamic, SharedStack: true}}, "nq_symmetry_boards_dyn", ""},
		{nq.CarryChain, Options{}, "nq_carry_frames", ""},
		{nq.CarryChain, Options{Tuning: Tuning{Dynamic: true}}, "nq_carry_frames", ""},
		{nq.CarryChain, Options{Tuning: Tuning{SharedStack: true}}, "nq_carry_frames", ""},
		{nq.CarryChain, Options{Tuning: Tuning{Variant: Dynamic}}, "", "carrychain has no dynamic GPU kernel (variants: static)"},
		{nq.Eightfold, Options{}, "nq_eightfold", ""},
		{nq.Eightfold, Options{Tuning: Tuning{Dynamic: true}}, "nq_eightfold", ""},
		{nq.Eightfold, Options{Tuning: Tuning{SharedStack: true}}, "nq_eightfold", ""},
		{nq.Eightfold, Options{Tuning: Tuning{Variant: Static}}, "nq_eightfold_static", ""},
		{nq.Eightfold, Options{Tuning: Tuning{Variant: SharedStacks}}, "", "eightfold has no smem GPU kernel (variants: static, dynamic)"},
		{nq.Bitmap, Options{}, "", "bitmap has no GPU kernel (GPU kernels: symmetry, carrychain, eightfold)"},
		{nq.Symmetry, Options{Tuning: Tuning{Variant: "nope"}}, "", "symmetry has no nope GPU kernel (variants: static, dynamic, smem)"},
	}
	for _, tt := range tests {
		v, explicit := tt.opt.variant()
		k, err := lookupKernel(tt.algo, v, explicit)
		switch {
		case tt.want == "" && (err == nil || !strings.Contains(err.Error(), tt.errWords)):
			t.Errorf("%s %+v: error %v, want one saying %q", tt.algo, tt.opt, err, tt.errWords)
		case tt.want != "" && (err != nil || k.name != tt.want):
			t.Errorf("%s %+v: %v, %v; want %s", tt.algo, tt.opt, k, err, tt.want)
		}
	}
}

func TestAlgosFollowTable(t *testing.T) {
	if got, want := Algos(), []nq.Algo{nq.Symmetry, nq.CarryChain, nq.Eightfold}; !slices.Equal(got, want) {
		t.Errorf("Algos() = %v, want %v", got, want)
	}
	for _, tt := range []struct {
		algo nq.Algo
		want bool
	}{{nq.Symmetry, true}, {nq.CarryChain, true}, {nq.Eightfold, true}, {nq.Bitmap, false}, {nq.Backtrack, false}, {nq.Mirror, false}} {
		if got := Supports(tt.algo); got != tt.want {
			t.Errorf("Supports(%s) = %v, want %v", tt.algo, got, tt.want)
		}
	}
	if !Supports(plan.DefaultAlgo) {
		t.Errorf("the GPU's default algorithm %s has no kernel", plan.DefaultAlgo)
	}
	if got, want := Variants(nq.Symmetry), []Variant{Static, Dynamic, SharedStacks}; !slices.Equal(got, want) {
		t.Errorf("Variants(symmetry) = %v, want %v", got, want)
	}
	for _, a := range Algos() {
		if vs := Variants(a); vs[0] != Static {
			t.Errorf("the first kernel of %s is %s, want static (the shortcuts fall back to it)", a, vs[0])
		}
	}
	if got := Variants(nq.Bitmap); got != nil {
		t.Errorf("Variants(bitmap) = %v, want none", got)
	}
}

// efFrames follows kernels/nqtotal.h: NQ_EF_FRAMES of the most levels a
// task produce sends has (n-4-split levels once the enumeration's of
// n-3-split are split, one frame fewer, at least 1), and no task produce
// sends has more levels.
func TestEightfoldFramesFollowNqtotal(t *testing.T) {
	for _, c := range []struct{ n, split, want int }{{16, 4, 7}, {20, 3, 12}, {22, 3, 14}, {28, 4, 19}, {6, 0, 1}, {5, 3, 1}, {4, 3, 1}} {
		if got := efFrames(c.n, c.split); got != c.want {
			t.Errorf("efFrames(%d, %d) = %d, want %d", c.n, c.split, got, c.want)
		}
	}
	for n := 5; n <= 14; n++ {
		for split := 0; split <= 3; split++ {
			var target atomic.Int64
			target.Store(1 << 30)
			out := make(chan *group, 1<<12)
			if err := produce(context.Background(), n, nq.Eightfold, split, 1<<12, 1<<30, &target, nil, out); err != nil {
				t.Fatal(err)
			}
			close(out)
			most := 0
			for g := range out {
				for _, m := range g.flat().meta {
					most = max(most, int(m&0xff))
				}
			}
			if frames := max(1, most-1); frames > efFrames(n, split) {
				t.Errorf("N=%d split %d: a task of %d levels, more than efFrames %d can take", n, split, most, efFrames(n, split))
			}
		}
	}
}

// An argument block hands the launcher a pointer to each field of its
// parameters, in order, whatever their sizes, holding the values passed.
func TestArgBlock(t *testing.T) {
	type params struct {
		a int32
		b devPtr
		c uint32
		d int64
		e int32
	}
	var blk argBlock[params]
	r := &recorder{sizes: []int{4, 8, 4, 8, 4}}
	shape := launchShape{blocks: 2, threads: 32}
	blk.launch(r, kernelFunc(7), shape, params{a: -3, b: 0x1234_0000_5678, c: 9, d: -(1 << 40), e: 11})
	want := []uint64{uint64(uint32(0xfffffffd)), 0x1234_0000_5678, 9, uint64(1<<64 - 1<<40), 11}
	if r.f != 7 || r.shape != shape || r.n != 5 || !slices.Equal(r.vals, want) {
		t.Errorf("launched %d with %+v, %d arguments %#x; want 7 with %+v, 5 arguments %#x", r.f, r.shape, r.n, r.vals, shape, want)
	}
	blk.launch(r, kernelFunc(8), shape, params{e: 1})
	if want := []uint64{0, 0, 0, 0, 1}; !slices.Equal(r.vals, want) {
		t.Errorf("second launch: arguments %#x, want %#x", r.vals, want)
	}
}
