package cpu

// Tests of the CPU backend as workers of the job layer.

import (
	"context"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Three CPU backends sharing one job, two with one goroutine each and
// one with two, give the published counts.
func TestCPUWorkers(t *testing.T) {
	for _, algo := range []nq.Algo{nq.Symmetry, nq.CarryChain, nq.Mirror, nq.Eightfold} {
		for _, n := range []int{1, 4, 5, 8, 11, 12} {
			j, err := job.New(job.Config{Spec: plan.Normalize(nq.Spec{N: n, Algo: algo, Batch: 8}), NeedPlan: true,
				Backends: []job.Backend{New(1), New(1), New(2)}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := j.Run(context.Background())
			if err != nil {
				t.Fatalf("%s N=%d: %v", algo, n, err)
			}
			want, _ := known.Lookup(n)
			if res.Counts.Total() != want.Total || res.Counts.Unique() != want.Unique {
				t.Errorf("%s N=%d: %v, want total %d unique %d", algo, n, res.Counts, want.Total, want.Unique)
			}
			if !res.HavePlan || res.Batches != res.Plan.Batches {
				t.Errorf("%s N=%d: %d batches counted, plan %+v", algo, n, res.Batches, res.Plan)
			}
		}
	}
}

func TestPlan(t *testing.T) {
	for _, algo := range nq.Algos() {
		for _, n := range []int{1, 3, 4, 5, 8, 12} {
			p, err := plan.Make(plan.Normalize(nq.Spec{N: n, Algo: algo}))
			if err != nil {
				t.Fatal(err)
			}
			var batches []int
			_, err = SolvePartial(context.Background(), n, algo, Options{Workers: 1,
				Done: func(b []int, _ nq.Partial) { batches = append(batches, b...) }})
			if (nq.Spec{N: n, Algo: algo}).Whole() {
				// The job counts it as its one batch.
				if err == nil || p.Batches != 1 {
					t.Errorf("%s N=%d: plan of %d batches, SolvePartial error %v; want 1 and an error", algo, n, p.Batches, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if (nq.Spec{N: n, Algo: algo}).HostBatch() {
				batches = append(batches, p.Batches-1) // counted by the job
			}
			if len(batches) != p.Batches {
				t.Errorf("%s N=%d: plan has %d batches, the CPU counted %d", algo, n, p.Batches, len(batches))
			}
		}
	}
	a, _ := plan.Make(plan.Normalize(nq.Spec{N: 12, Algo: nq.Symmetry}))
	b, _ := plan.Make(plan.Normalize(nq.Spec{N: 12, Algo: nq.Symmetry, Batch: 100}))
	c, _ := plan.Make(plan.Normalize(nq.Spec{N: 12, Algo: nq.Symmetry, Depth: 4}))
	if a.Fingerprint() == b.Fingerprint() || a.Fingerprint() == c.Fingerprint() || a.TaskSHA256 != b.TaskSHA256 || a.TaskSHA256 == c.TaskSHA256 {
		t.Error("fingerprints do not tell batch sizes or depths apart")
	}
	if _, err := plan.Make(plan.Normalize(nq.Spec{N: 29, Algo: nq.Symmetry})); err == nil {
		t.Error("N=29 accepted")
	}
}
