// Package cpu counts N-Queens solutions on all CPU cores with goroutines.
//
// Every algorithm of nq.Algos is available. The parallel ones split the
// search into task batches (partial boards or carry-chain frames from
// internal/tasks), hand batches to one worker per core on demand, keep 64-bit
// counters per worker and add them up at the end.
package cpu

import (
	"context"
	"runtime"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Options tunes a CPU run. The zero value picks sensible defaults.
type Options struct {
	// Workers is the number of goroutines that search; 0 means one per core.
	Workers int
	// Depth is the number of rows placed when partial boards are enumerated;
	// 0 picks one from N.
	Depth int
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// DefaultAlgo is the fastest algorithm of this backend.
const DefaultAlgo = nq.Symmetry

// Solve counts the solutions of the n-queens problem with algo. It returns
// ctx's error if ctx is cancelled before the count is complete.
func Solve(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Counts, error) {
	panic("not yet written")
}
