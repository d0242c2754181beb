package job

import (
	"context"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// funcBackend is a Backend made of a name and a count function.
type funcBackend struct {
	name string
	run  func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error
}

func (f funcBackend) Name() string { return f.name }
func (f funcBackend) Close() error { return nil }
func (f funcBackend) Count(ctx context.Context, _ nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	return f.run(ctx, sel, done)
}

// norm is the spec s with its defaults, as a count sets it up.
func norm(s nq.Spec) nq.Spec { return plan.Normalize(s) }
