package nq

import (
	"strings"
	"testing"
)

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
