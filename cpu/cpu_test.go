package cpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/burnside"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// maxN is the largest N each algorithm is checked at against the published
// table: the reference searches classify every solution and are slower.
var maxN = map[nq.Algo]int{
	nq.Backtrack:  13,
	nq.Bitmap:     13,
	nq.Mirror:     15,
	nq.Symmetry:   15,
	nq.CarryChain: 15,
}

func TestSolveMatchesPublishedTable(t *testing.T) {
	for _, algo := range nq.Algos() {
		for n := 1; n <= maxN[algo]; n++ {
			if testing.Short() && n > 12 {
				continue
			}
			t.Run(fmt.Sprintf("%s/N=%d", algo, n), func(t *testing.T) {
				got, err := Solve(context.Background(), n, algo, Options{})
				if err != nil {
					t.Fatal(err)
				}
				want, _ := known.Lookup(n)
				if got.Total() != want.Total || got.Unique() != want.Unique {
					t.Errorf("got total=%d unique=%d, want %d and %d", got.Total(), got.Unique(), want.Total, want.Unique)
				}
				if cl, ok := known.ClassTable[n]; ok {
					if got.C2 != cl.C2 || got.C4 != cl.C4 || got.C8 != cl.C8 || got.C1 != 0 {
						t.Errorf("got %v, want c2=%d c4=%d c8=%d", got, cl.C2, cl.C4, cl.C8)
					}
				}
			})
		}
	}
}

func TestSmallN(t *testing.T) {
	tests := []struct {
		n    int
		want nq.Counts
	}{
		{1, nq.Counts{C1: 1}},
		{2, nq.Counts{}},
		{3, nq.Counts{}},
		{4, nq.Counts{C2: 1}},
		{5, nq.Counts{C2: 1, C8: 1}},
	}
	for _, algo := range nq.Algos() {
		for _, tt := range tests {
			got, err := Solve(context.Background(), tt.n, algo, Options{})
			if err != nil || got != tt.want {
				t.Errorf("%s N=%d: got %v, %v; want %v", algo, tt.n, got, err, tt.want)
			}
		}
	}
}

// The algorithms agree class by class with each other, whatever the
// number of workers, the depth of the partial boards and the batch size.
func TestAlgorithmsAgree(t *testing.T) {
	opts := []Options{{}, {Workers: 1}, {Workers: 3, Depth: 2, Batch: 1}, {Workers: 5, Depth: 6, Batch: 7}}
	for n := 6; n <= 12; n++ {
		ref, err := Solve(context.Background(), n, nq.Backtrack, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, algo := range nq.Algos() {
			for _, o := range opts {
				if o.Depth > n-1 {
					continue
				}
				got, err := Solve(context.Background(), n, algo, o)
				if err != nil || got != ref {
					t.Errorf("N=%d %s %+v: got %v, %v; backtrack gives %v", n, algo, o, got, err, ref)
				}
			}
		}
	}
}

func TestSolveRejects(t *testing.T) {
	tests := []struct {
		name string
		n    int
		algo nq.Algo
		opt  Options
	}{
		{"N too small", 0, nq.Symmetry, Options{}},
		{"N too large", 29, nq.Symmetry, Options{}},
		{"unknown algorithm", 8, nq.Algo("quantum"), Options{}},
		{"depth too large", 8, nq.Symmetry, Options{Depth: 8}},
		{"depth too small", 8, nq.Bitmap, Options{Depth: 1}},
	}
	for _, tt := range tests {
		if c, err := Solve(context.Background(), tt.n, tt.algo, tt.opt); err == nil {
			t.Errorf("%s: got %v and no error", tt.name, c)
		}
	}
}

func TestSolveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, algo := range nq.Algos() {
		_, err := Solve(ctx, 14, algo, Options{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got error %v, want context.Canceled", algo, err)
		}
	}
}

// A job whose one backend is the CPU counts N=12 with the symmetry
// search.
func ExampleBackend_Count() {
	spec := plan.Normalize(nq.Spec{N: 12, Algo: nq.Symmetry})
	c, err := job.Count(context.Background(), job.Config{Spec: spec, Backends: []job.Backend{New(0)}})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Total(), c.Unique(), c.C2, c.C4, c.C8)
	// Output: 14200 1787 4 18 1765
}

func BenchmarkSolve(b *testing.B) {
	for _, algo := range []nq.Algo{nq.Symmetry, nq.CarryChain, nq.Mirror} {
		b.Run(fmt.Sprintf("%s/N=14", algo), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Solve(context.Background(), 14, algo, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Batches selected in two disjoint halves add up to the whole count, and
// Done reports every searched batch exactly once: the basis of shards and
// checkpoints.
func TestSelectedBatchesAddUp(t *testing.T) {
	for _, algo := range nq.Algos() {
		for _, n := range []int{1, 4, 5, 11} {
			whole, err := Solve(context.Background(), n, algo, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if (nq.Spec{N: n, Algo: algo}).Whole() {
				// No task batches: the job counts the board whole.
				if _, err := SolvePartial(context.Background(), n, algo, Options{}); err == nil {
					t.Errorf("%s N=%d: SolvePartial of a whole board did not fail", algo, n)
				}
				continue
			}
			var sum nq.Partial
			seen := map[int]bool{}
			var mu sync.Mutex
			for part := 0; part < 2; part++ {
				opt := Options{
					Batch:  3,
					Select: func(b int) bool { return b%2 == part },
					Done: func(bs []int, p nq.Partial) {
						mu.Lock()
						defer mu.Unlock()
						for _, b := range bs {
							if seen[b] || b%2 != part {
								t.Errorf("%s N=%d: batch %d reported in part %d", algo, n, b, part)
							}
							seen[b] = true
						}
					},
				}
				p, err := SolvePartial(context.Background(), n, algo, opt)
				if err != nil {
					t.Fatal(err)
				}
				sum.Add(p)
			}
			if (nq.Spec{N: n, Algo: algo}).HostBatch() {
				// The job's own batch: the symmetric solutions.
				s90, s180, err := burnside.Symmetric(context.Background(), n)
				if err != nil {
					t.Fatal(err)
				}
				sum.Add(nq.Partial{0, s90, s180, 0})
			}
			got, err := nq.Reduce(algo, sum)
			if err != nil || got != whole {
				t.Errorf("%s N=%d: halves give %v, %v; whole run %v", algo, n, got, err, whole)
			}
		}
	}
}
