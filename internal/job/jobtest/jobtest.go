// Package jobtest runs one backend on one spec for the tests of the
// backends and the kernels: a count with its defaults filled in, as the
// program would set it up, without the device layer.
package jobtest

import (
	"context"
	"sync"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Solve counts s, with its defaults filled in (plan.Normalize), as a job
// whose only backend is b, and returns the exact counts.
func Solve(ctx context.Context, b job.Backend, s nq.Spec) (nq.Counts, error) {
	s = plan.Normalize(s)
	if err := s.Validate(); err != nil {
		return nq.Counts{}, err
	}
	return job.Count(ctx, job.Config{Spec: s, Backends: []job.Backend{b}})
}

// Partial runs b over the task batches of s (defaults filled in) that sel
// selects (nil: all) and returns the sum of the partials it reports. A
// board too small to split has no batches: b refuses it.
func Partial(ctx context.Context, b job.Backend, s nq.Spec, sel func(int) bool) (nq.Partial, error) {
	var mu sync.Mutex
	var sum nq.Partial
	if sel == nil {
		sel = func(int) bool { return true }
	}
	err := b.Count(ctx, plan.Normalize(s), sel, func(_ []int, p nq.Partial) {
		mu.Lock()
		sum.Add(p)
		mu.Unlock()
	})
	return sum, err
}
