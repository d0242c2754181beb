package boards

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
)

// isSolution reports whether p places len(p) non-attacking queens.
func isSolution(p []int) bool {
	n := len(p)
	for r := 0; r < n; r++ {
		if p[r] < 0 || p[r] >= n {
			return false
		}
		for s := 0; s < r; s++ {
			d := r - s
			if p[s] == p[r] || p[s] == p[r]-d || p[s] == p[r]+d {
				return false
			}
		}
	}
	return true
}

// TestEnumerateKnown compares the enumerator and its classes with the
// published table. The fake solvers of the command's tests rely on it.
func TestEnumerateKnown(t *testing.T) {
	for n := 1; n <= 12; n++ {
		sols := Enumerate(n)
		e, _ := known.Lookup(n)
		c := Count(sols)
		if uint64(len(sols)) != e.Total || c.Total() != e.Total || c.Unique() != e.Unique {
			t.Errorf("N=%d: %d boards, %v; want total %d unique %d", n, len(sols), c, e.Total, e.Unique)
		}
		if k, ok := known.ClassTable[n]; ok && (c.C2 != k.C2 || c.C4 != k.C4 || c.C8 != k.C8 || c.C1 != 0) {
			t.Errorf("N=%d: classes %v, want %+v", n, c, k)
		}
		if n == 1 && c != (nq.Counts{C1: 1}) {
			t.Errorf("N=1: %v, want C1=1", c)
		}
		if !slices.IsSortedFunc(sols, slices.Compare) {
			t.Errorf("N=%d: boards not in lexicographic order", n)
		}
		for _, p := range sols {
			if !isSolution(p) {
				t.Fatalf("N=%d: %v is not a solution", n, p)
			}
		}
	}
	if Enumerate(0) != nil {
		t.Error("Enumerate(0) is not empty")
	}
}

// TestClassesAreOrbits checks that every image of every solution is a
// solution of the same class, represented by the same board.
func TestClassesAreOrbits(t *testing.T) {
	for n := 1; n <= 9; n++ {
		sols := Enumerate(n)
		rep := map[string]Class{}
		for _, k := range Classes(sols) {
			rep[fmt.Sprint(k.Rep)] = k
		}
		for _, s := range sols {
			var mine []int
			for _, op := range symmetry.Ops {
				img := symmetry.Apply(op, s, make([]int, n))
				if !isSolution(img) {
					t.Fatalf("N=%d: image %v of %v is not a solution", n, img, s)
				}
				if mine == nil || slices.Compare(img, mine) < 0 {
					mine = img
				}
			}
			k, ok := rep[fmt.Sprint(mine)]
			if !ok {
				t.Fatalf("N=%d: the smallest image %v of %v is not a representative", n, mine, s)
			}
			orbit, _ := symmetry.Classify(s, make([]int, n))
			if orbit != k.Orbit {
				t.Fatalf("N=%d: %v has an orbit of %d, its class %d", n, s, orbit, k.Orbit)
			}
		}
	}
	if cs := Classes(Enumerate(4)); len(cs) != 1 || !slices.Equal(cs[0].Rep, []int{1, 3, 0, 2}) || cs[0].Orbit != 2 {
		t.Errorf("classes of N=4: %+v, want one class [1 3 0 2] of 2", cs)
	}
}

func ExampleCounts() {
	fmt.Println(Counts(8))
	// Output: total=92 unique=12 c2=0 c4=1 c8=11
}

func TestDraw(t *testing.T) {
	var b strings.Builder
	Draw(&b, []int{0, 1})
	if b.String() != "+-+-+\n|Q| |\n+-+-+\n| |Q|\n+-+-+\n" {
		t.Errorf("Draw([0 1]) =\n%s", b.String())
	}
}
