package plan

import (
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

func TestSpecNormalize(t *testing.T) {
	h100 := []int{132}
	tests := []struct {
		name string
		in   nq.Spec
		want nq.Spec
	}{
		{"cpu default", nq.Spec{N: 16}, nq.Spec{N: 16, Algo: nq.Eightfold, Depth: tasks.DefaultSplit(16), Batch: DefaultBatch(16)}},
		{"eightfold on a gpu", nq.Spec{N: 16, Algo: nq.Eightfold, SMs: h100}, nq.Spec{N: 16, Algo: nq.Eightfold, Depth: 4, Batch: DefaultBatch(16), SMs: h100}},
		{"symmetry on the cpu", nq.Spec{N: 16, Algo: nq.Symmetry}, nq.Spec{N: 16, Algo: nq.Symmetry, Depth: tasks.DefaultDepth(16), Batch: DefaultBatch(16)}},
		{"explicit kept", nq.Spec{N: 16, Algo: nq.Mirror, Depth: 4, Batch: 10}, nq.Spec{N: 16, Algo: nq.Mirror, Depth: 4, Batch: 10}},
		{"carry chain has no depth", nq.Spec{N: 16, Algo: nq.CarryChain, Depth: 5}, nq.Spec{N: 16, Algo: nq.CarryChain, Batch: DefaultBatch(16)}},
		{"whole board has no depth", nq.Spec{N: 3, Algo: nq.Symmetry}, nq.Spec{N: 3, Algo: nq.Symmetry, Batch: DefaultBatch(3)}},
		{"carry chain N=4 is whole", nq.Spec{N: 4, Algo: nq.CarryChain}, nq.Spec{N: 4, Algo: nq.CarryChain, Batch: DefaultBatch(4)}},
		// One H100 needs 2,162,688 boards: depth 8 at N=16 (see tasks.DepthFor).
		{"gpu depth from SMs", nq.Spec{N: 16, Algo: nq.Symmetry, SMs: h100}, nq.Spec{N: 16, Algo: nq.Symmetry, Depth: 8, Batch: DefaultBatch(16), SMs: h100}},
		{"gpu depth only for symmetry", nq.Spec{N: 16, Algo: nq.CarryChain, SMs: h100}, nq.Spec{N: 16, Algo: nq.CarryChain, Batch: DefaultBatch(16), SMs: h100}},
		{"explicit depth wins on a gpu", nq.Spec{N: 16, Algo: nq.Symmetry, Depth: 6, SMs: h100}, nq.Spec{N: 16, Algo: nq.Symmetry, Depth: 6, Batch: DefaultBatch(16), SMs: h100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(tt.in)
			if got.N != tt.want.N || got.Algo != tt.want.Algo || got.Depth != tt.want.Depth || got.Batch != tt.want.Batch || len(got.SMs) != len(tt.want.SMs) {
				t.Errorf("Normalize(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate(%+v): %v", got, err)
			}
		})
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
