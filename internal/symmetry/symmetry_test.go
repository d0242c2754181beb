package symmetry

import (
	"reflect"
	"testing"
)

func TestOpsFormAGroup(t *testing.T) {
	// Each op is a bijection of the board, the 8 images of an asymmetric
	// board are distinct, and rotating four times is the identity.
	q := []int{1, 3, 0, 2, 4} // any permutation works for the group check
	seen := map[string]bool{}
	for _, op := range Ops {
		img := Apply(op, q, make([]int, len(q)))
		key := ""
		for _, c := range img {
			key += string(rune('a' + c))
		}
		seen[key] = true
	}
	if len(seen) != 8 {
		t.Fatalf("8 symmetries gave %d distinct images of %v", len(seen), q)
	}
	cur := append([]int(nil), q...)
	for i := 0; i < 4; i++ {
		cur = Apply(Rot90, cur, make([]int, len(q)))
	}
	if !reflect.DeepEqual(cur, q) {
		t.Fatalf("four quarter turns gave %v, want %v", cur, q)
	}
}

func TestPoint(t *testing.T) {
	tests := []struct {
		op         Op
		r, c       int
		wantR, wan int
	}{
		{Identity, 0, 1, 0, 1},
		{Rot90, 0, 1, 1, 3},
		{Rot180, 0, 1, 3, 2},
		{Rot270, 0, 1, 2, 0},
		{Mirror, 0, 1, 0, 2},
		{MirrorRot90, 0, 1, 2, 3},
	}
	for _, tt := range tests {
		r, c := tt.op.Point(4, tt.r, tt.c)
		if r != tt.wantR || c != tt.wan {
			t.Errorf("op %d maps (%d,%d) to (%d,%d), want (%d,%d)", tt.op, tt.r, tt.c, r, c, tt.wantR, tt.wan)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		q         []int
		orbit     int
		canonical bool
	}{
		{[]int{0}, 1, true},
		{[]int{1, 3, 0, 2}, 2, true},  // N=4: fixed by a quarter turn
		{[]int{2, 0, 3, 1}, 2, false}, // its mirror image
		{[]int{0, 2, 4, 1, 3}, 8, true},
		{[]int{1, 3, 5, 0, 2, 4}, 4, true}, // N=6: the only unique solution
		{[]int{0, 4, 7, 5, 2, 6, 1, 3}, 8, true},
	}
	for _, tt := range tests {
		orbit, canon := Classify(tt.q, make([]int, len(tt.q)))
		if orbit != tt.orbit || canon != tt.canonical {
			t.Errorf("Classify(%v) = %d, %v; want %d, %v", tt.q, orbit, canon, tt.orbit, tt.canonical)
		}
		if len(tt.q) > 1 && Orbit(tt.q) != tt.orbit {
			t.Errorf("Orbit(%v) = %d, want %d", tt.q, Orbit(tt.q), tt.orbit)
		}
	}
}

// TestHandCheckedImages checks the images of one N=8 solution, worked out
// by hand: the quarter turn clockwise moves the queen at (row 0, column 0)
// to (row 0, column 7).
func TestHandCheckedImages(t *testing.T) {
	p := []int{0, 4, 7, 5, 2, 6, 1, 3} // N=8, an orbit of 8
	want := map[Op][]int{
		Identity:     {0, 4, 7, 5, 2, 6, 1, 3},
		Rot90:        {7, 1, 3, 0, 6, 4, 2, 5}, // quarter turn clockwise
		Rot180:       {4, 6, 1, 5, 2, 0, 3, 7},
		Rot270:       {2, 5, 3, 1, 7, 4, 6, 0}, // quarter turn anticlockwise
		Mirror:       {7, 3, 0, 2, 5, 1, 6, 4}, // left-right
		MirrorRot180: {3, 1, 6, 2, 5, 7, 4, 0}, // top-bottom
		MirrorRot270: {0, 6, 4, 7, 1, 3, 5, 2}, // main diagonal
		MirrorRot90:  {5, 2, 4, 6, 0, 3, 1, 7}, // anti-diagonal
	}
	for op, w := range want {
		if got := Apply(op, p, make([]int, len(p))); !reflect.DeepEqual(got, w) {
			t.Errorf("op %d: %v, want %v", op, got, w)
		}
	}
	if orbit, canonical := Classify([]int{2, 0, 3, 1}, make([]int, 4)); orbit != 2 || canonical {
		t.Errorf("Classify([2 0 3 1]) = %d, %v; want 2, false ([1 3 0 2] is smaller)", orbit, canonical)
	}
}
