// Package cpu counts N-Queens solutions on all CPU cores with goroutines.
//
// Every algorithm of nq.Algos is available. Each splits its search into task
// batches from internal/tasks (partial boards or carry-chain frames), which
// one goroutine enumerates while one worker per core takes batches as it
// becomes free, keeps 64-bit counters of its own, and hands them back for
// one sum at the end.
package cpu

import (
	"context"
	"fmt"
	"runtime"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// Options tunes a CPU run. The zero value picks sensible defaults.
type Options struct {
	// Workers is the number of goroutines that search; 0 means one per core.
	Workers int
	// Depth is the number of rows placed when partial boards are enumerated;
	// 0 picks one from N.
	Depth int
	// Batch is the number of tasks handed to a worker at a time; 0 picks one.
	Batch int
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// DefaultAlgo is the fastest algorithm of this backend.
const DefaultAlgo = nq.Symmetry

// Solve counts the solutions of the n-queens problem with algo on the CPU.
// It returns ctx's error if ctx is cancelled before the count is complete.
func Solve(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Counts, error) {
	if err := nq.CheckN(n); err != nil {
		return nq.Counts{}, err
	}
	if _, err := nq.ParseAlgo(string(algo)); err != nil {
		return nq.Counts{}, err
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = 64
	}
	depth := opt.Depth
	if depth == 0 {
		depth = tasks.DefaultDepth(n)
	}
	// The carry chain needs an inner board; at N=4 the frame is the whole
	// board, and the plain search is exact and instant.
	if algo == nq.CarryChain && n < 5 {
		algo = nq.Backtrack
	}
	if n < 4 {
		// Boards this small have no rows to split the search on.
		return smallSolve(n), nil
	}
	if depth < 2 || depth > n-1 {
		return nq.Counts{}, fmt.Errorf("depth %d out of range 2..%d for N=%d", depth, n-1, n)
	}
	boards := func(kind tasks.Kind) func(func(*tasks.Boards) error) error {
		return func(send func(*tasks.Boards) error) error {
			return tasks.EnumerateBoards(n, kind, depth, batch, func(b *tasks.Boards) error {
				return send(cloneBoards(b))
			})
		}
	}
	w := opt.workers()
	var t tally
	var err error
	switch algo {
	case nq.Backtrack:
		t, err = runPool(ctx, w, boards(tasks.Plain), backtrackBoards)
	case nq.Bitmap:
		t, err = runPool(ctx, w, boards(tasks.Plain), bitmapBoards)
	case nq.Mirror:
		t, err = runPool(ctx, w, boards(tasks.Half), mirrorBoards)
		// An orbit of k has k/2 members in the half board.
		t.orbit[4] /= 2
		t.orbit[8] /= 4
	case nq.Symmetry:
		t, err = runPool(ctx, w, boards(tasks.Symmetry), symmetryBoards)
	case nq.CarryChain:
		t, err = runPool(ctx, w, func(send func(*tasks.Frames) error) error {
			return tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
				return send(cloneFrames(f))
			})
		}, framesBoards)
		// Weighted completions: COUNTk = Wk / k.
		t.orbit[2] /= 2
		t.orbit[4] /= 4
		t.orbit[8] /= 8
	}
	if err != nil {
		return nq.Counts{}, err
	}
	return nq.Counts{C1: t.orbit[1], C2: t.orbit[2], C4: t.orbit[4], C8: t.orbit[8]}, nil
}

// smallSolve runs the placement-flag search from the empty board.
func smallSolve(n int) nq.Counts {
	var t tally
	s := flagSearch{n: n, q: make([]int, n), scratch: make([]int, n), t: &t}
	s.place(0)
	return nq.Counts{C1: t.orbit[1], C2: t.orbit[2], C4: t.orbit[4], C8: t.orbit[8]}
}

func cloneBoards(b *tasks.Boards) *tasks.Boards {
	c := *b
	c.Rows = append([]uint32(nil), b.Rows...)
	c.Left = append([]uint32(nil), b.Left...)
	c.Down = append([]uint32(nil), b.Down...)
	c.Right = append([]uint32(nil), b.Right...)
	return &c
}

func cloneFrames(f *tasks.Frames) *tasks.Frames {
	c := *f
	c.Rows = append([]uint32(nil), f.Rows...)
	c.Weight = append([]uint8(nil), f.Weight...)
	c.Sym180 = append([]uint8(nil), f.Sym180...)
	return &c
}
