package cpu

import (
	"context"
	"fmt"
	"sync"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job/jobtest"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// Options are the choices of a test count on the CPU: the backend's
// workers (0: one per core), the spec's depth and batch (0: the
// defaults), and which batches to search and where to report them.
type Options struct {
	Workers, Depth, Batch int
	Select                func(batch int) bool
	Done                  func(batches []int, p nq.Partial)
}

// Solve counts n with algo on the CPU as a job (jobtest.Solve).
func Solve(ctx context.Context, n int, algo nq.Algo, o Options) (nq.Counts, error) {
	return jobtest.Solve(ctx, New(o.Workers), nq.Spec{N: n, Algo: algo, Depth: o.Depth, Batch: o.Batch})
}

// SolvePartial searches the batches of n and algo that o selects (all by
// default) on the CPU, reports each to o.Done (if set), and returns their
// summed partials.
func SolvePartial(ctx context.Context, n int, algo nq.Algo, o Options) (nq.Partial, error) {
	var mu sync.Mutex
	var sum nq.Partial
	sel := o.Select
	if sel == nil {
		sel = func(int) bool { return true }
	}
	spec := plan.Normalize(nq.Spec{N: n, Algo: algo, Depth: o.Depth, Batch: o.Batch})
	err := New(o.Workers).Count(ctx, spec, sel, func(bs []int, p nq.Partial) {
		mu.Lock()
		sum.Add(p)
		mu.Unlock()
		if o.Done != nil {
			o.Done(bs, p)
		}
	})
	return sum, err
}

// solveEightfoldTotal counts Total for n (5 <= n <= 28) with the eightfold
// search on workers goroutines, split rows of prefix and batches of batch
// tasks, through the backend's count; split < 0 picks the default.
func solveEightfoldTotal(ctx context.Context, n, split, batch, workers int) (uint64, error) {
	spec := nq.Spec{N: n, Algo: nq.Eightfold, Depth: split, Batch: batch}
	if split < 0 {
		spec.Depth = tasks.DefaultSplit(n)
	}
	if err := checkTasks(spec); err != nil {
		return 0, fmt.Errorf("eightfold N=%d: %w", n, err)
	}
	p, err := count(ctx, spec, workers, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("eightfold N=%d: %w", n, err)
	}
	return p[3], nil
}
