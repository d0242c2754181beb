package nq

import (
	"fmt"
	"testing"
)

func TestCounts(t *testing.T) {
	tests := []struct {
		c             Counts
		total, unique uint64
	}{
		{Counts{C1: 1}, 1, 1},
		{Counts{}, 0, 0},
		{Counts{C2: 1}, 2, 1},
		{Counts{C2: 4, C4: 18, C8: 1765}, 14200, 1787},
		// N=27: the class split is made up, the sums are what matter; the
		// counters must not overflow near 2^58.
		{Counts{C8: 29363495934315694}, 234907967474525552, 29363495934315694},
	}
	for _, tt := range tests {
		if tt.c.Total() != tt.total || tt.c.Unique() != tt.unique {
			t.Errorf("%+v: total %d unique %d, want %d and %d", tt.c, tt.c.Total(), tt.c.Unique(), tt.total, tt.unique)
		}
	}
	var sum Counts
	sum.Add(Counts{1, 2, 3, 4})
	sum.Add(Counts{10, 20, 30, 40})
	if sum != (Counts{11, 22, 33, 44}) {
		t.Errorf("Add gave %+v", sum)
	}
}

func TestCheckN(t *testing.T) {
	for n := -1; n <= 30; n++ {
		err := CheckN(n)
		if ok := n >= MinN && n <= MaxN; ok != (err == nil) {
			t.Errorf("CheckN(%d) = %v", n, err)
		}
	}
}

func TestParseAlgo(t *testing.T) {
	for _, a := range Algos() {
		if got, err := ParseAlgo(string(a)); err != nil || got != a {
			t.Errorf("ParseAlgo(%q) = %q, %v", a, got, err)
		}
	}
	for _, s := range []string{"", "Symmetry", "carry-chain", "gpu"} {
		if _, err := ParseAlgo(s); err == nil {
			t.Errorf("ParseAlgo(%q): no error", s)
		}
	}
}

func ExampleCounts() {
	c := Counts{C2: 4, C4: 18, C8: 1765} // N=12
	fmt.Println(c.Total(), c.Unique())
	// Output: 14200 1787
}

func TestReduce(t *testing.T) {
	tests := []struct {
		algo    Algo
		p       Partial
		want    Counts
		wantErr bool
	}{
		{Symmetry, Partial{0, 4, 18, 1765}, Counts{C2: 4, C4: 18, C8: 1765}, false},
		{Mirror, Partial{0, 4, 36, 7060}, Counts{C2: 4, C4: 18, C8: 1765}, false},
		{CarryChain, Partial{0, 8, 72, 14120}, Counts{C2: 4, C4: 18, C8: 1765}, false},
		{CarryChain, Partial{0, 8, 72, 14121}, Counts{}, true},
		{Mirror, Partial{0, 0, 3, 0}, Counts{}, true},
		// Eightfold: S90, S180 and Total (N=12: 8, 80, 14200).
		{Eightfold, Partial{0, 8, 80, 14200}, Counts{C2: 4, C4: 18, C8: 1765}, false},
		{Eightfold, Partial{1, 0, 0, 0}, Counts{C1: 1}, false},
		{Eightfold, Partial{0, 8, 80, 14201}, Counts{}, true},
		{Eightfold, Partial{0, 8, 14200, 80}, Counts{}, true},
	}
	for _, tt := range tests {
		got, err := Reduce(tt.algo, tt.p)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Reduce(%s, %v) = %v, %v; want %v, error %v", tt.algo, tt.p, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestPartialOfInvertsReduce checks that PartialOf gives back the sums
// Reduce turns into the same counts, for every algorithm.
func TestPartialOfInvertsReduce(t *testing.T) {
	for _, c := range []Counts{{C1: 1}, {C2: 4, C4: 18, C8: 1765}, {}} {
		for _, a := range Algos() {
			got, err := Reduce(a, PartialOf(a, c))
			if err != nil || got != c {
				t.Errorf("Reduce(%s, PartialOf(%s, %v)) = %v, %v", a, a, c, got, err)
			}
		}
	}
}
