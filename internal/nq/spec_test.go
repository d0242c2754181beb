package nq

import (
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

func TestSpecNormalize(t *testing.T) {
	h100 := []int{132}
	tests := []struct {
		name string
		in   Spec
		want Spec
	}{
		{"cpu default", Spec{N: 16}, Spec{N: 16, Algo: Eightfold, Depth: tasks.DefaultSplit(16), Batch: DefaultBatch(16)}},
		{"eightfold on a gpu", Spec{N: 16, Algo: Eightfold, SMs: h100}, Spec{N: 16, Algo: Eightfold, Depth: 4, Batch: DefaultBatch(16), SMs: h100}},
		{"symmetry on the cpu", Spec{N: 16, Algo: Symmetry}, Spec{N: 16, Algo: Symmetry, Depth: tasks.DefaultDepth(16), Batch: DefaultBatch(16)}},
		{"explicit kept", Spec{N: 16, Algo: Mirror, Depth: 4, Batch: 10}, Spec{N: 16, Algo: Mirror, Depth: 4, Batch: 10}},
		{"carry chain has no depth", Spec{N: 16, Algo: CarryChain, Depth: 5}, Spec{N: 16, Algo: CarryChain, Batch: DefaultBatch(16)}},
		{"whole board has no depth", Spec{N: 3, Algo: Symmetry}, Spec{N: 3, Algo: Symmetry, Batch: DefaultBatch(3)}},
		{"carry chain N=4 is whole", Spec{N: 4, Algo: CarryChain}, Spec{N: 4, Algo: CarryChain, Batch: DefaultBatch(4)}},
		// One H100 needs 2,162,688 boards: depth 8 at N=16 (see tasks.DepthFor).
		{"gpu depth from SMs", Spec{N: 16, Algo: Symmetry, SMs: h100}, Spec{N: 16, Algo: Symmetry, Depth: 8, Batch: DefaultBatch(16), SMs: h100}},
		{"gpu depth only for symmetry", Spec{N: 16, Algo: CarryChain, SMs: h100}, Spec{N: 16, Algo: CarryChain, Batch: DefaultBatch(16), SMs: h100}},
		{"explicit depth wins on a gpu", Spec{N: 16, Algo: Symmetry, Depth: 6, SMs: h100}, Spec{N: 16, Algo: Symmetry, Depth: 6, Batch: DefaultBatch(16), SMs: h100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.Normalize()
			if got.N != tt.want.N || got.Algo != tt.want.Algo || got.Depth != tt.want.Depth || got.Batch != tt.want.Batch || len(got.SMs) != len(tt.want.SMs) {
				t.Errorf("Normalize(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate(%+v): %v", got, err)
			}
		})
	}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		s    Spec
		want string
	}{
		{Spec{N: 0, Algo: Symmetry, Batch: 1}, "out of range"},
		{Spec{N: 29, Algo: Symmetry, Batch: 1}, "out of range"},
		{Spec{N: 8, Algo: "fast", Batch: 1}, "unknown algorithm"},
		{Spec{N: 8, Algo: Symmetry, Depth: 8, Batch: 1}, "depth 8 out of range 2..7"},
		{Spec{N: 8, Algo: Symmetry, Depth: 1, Batch: 1}, "depth 1"},
		{Spec{N: 8, Algo: Symmetry, Depth: 3, Batch: 0}, "batch size 0"},
		{Spec{N: 8, Algo: Symmetry, Depth: 3, Batch: MaxBatch + 1}, "batch size"},
	}
	for _, tt := range tests {
		err := tt.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want an error containing %q", tt.s, err, tt.want)
		}
	}
}

func TestWhole(t *testing.T) {
	for n := 1; n <= 6; n++ {
		for _, a := range Algos() {
			want := n < 4 || ((a == CarryChain || a == Eightfold) && n == 4)
			if got := (Spec{N: n, Algo: a}).Whole(); got != want {
				t.Errorf("Spec{N: %d, Algo: %s}.Whole() = %v", n, a, got)
			}
		}
	}
}

func TestCheckDepth(t *testing.T) {
	tests := []struct {
		depth, lo, hi int
		ok            bool
	}{
		{0, 1, 28, true},
		{5, 6, 20, true},
		{6, 6, 20, false},
		{3, 1, 3, false}, // nothing in 1..3 is split: the depth would be ignored
		{2, 2, 2, false},
		{3, 1, 4, true},
		{4, 1, 4, false},
		{1, 8, 8, false},
	}
	for _, tt := range tests {
		if err := CheckDepth(tt.depth, tt.lo, tt.hi); (err == nil) != tt.ok {
			t.Errorf("CheckDepth(%d, %d, %d) = %v, want ok=%v", tt.depth, tt.lo, tt.hi, err, tt.ok)
		}
	}
	if err := CheckDepth(5, 2, 3); err == nil || err.Error() != "boards up to N=3 are searched whole, so no depth applies to N=2-3; leave the flag out" {
		t.Errorf("CheckDepth(5, 2, 3) = %v", err)
	}
}

func TestMinTasks(t *testing.T) {
	if got := MinTasks([]int{132}); got != 2162688 {
		t.Errorf("MinTasks(one H100) = %d, want 2162688", got)
	}
	if got := MinTasks(nil); got != 0 {
		t.Errorf("MinTasks(no GPU) = %d", got)
	}
}
