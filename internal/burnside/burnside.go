package burnside

import (
	"context"
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Symmetric returns the number of solutions of the n-queens problem fixed
// by the quarter turn (s90) and by the half turn (s180) of the board. Every
// solution fixed by the quarter turn is fixed by the half turn too, so
// s90 <= s180. The counts are exact for nq.MinN <= n <= nq.MaxN; other n give
// an error. For n = 1 both are 1 (the single queen is fixed by everything).
//
// The half-turn search runs on runtime.GOMAXPROCS goroutines for large n.
// When ctx is cancelled, Symmetric stops within milliseconds (the
// half-turn search looks at it inside a task too: a task of n = 28 runs for
// minutes) and returns an error that wraps ctx.Err().
func Symmetric(ctx context.Context, n int) (s90, s180 uint64, err error) {
	if err := nq.CheckN(n); err != nil {
		return 0, 0, fmt.Errorf("burnside: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, fmt.Errorf("burnside: N=%d: %w", n, err)
	}
	if n == 1 {
		return 1, 1, nil
	}
	s90, err = quarterTurn(ctx, n)
	if err != nil {
		return 0, 0, fmt.Errorf("burnside: quarter turn, N=%d: %w", n, err)
	}
	s180, err = halfTurn(ctx, n)
	if err != nil {
		return 0, 0, fmt.Errorf("burnside: half turn, N=%d: %w", n, err)
	}
	return s90, s180, nil
}
