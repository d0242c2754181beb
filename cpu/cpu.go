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
	// Batch is the number of tasks handed to a worker at a time; 0 means
	// DefaultBatch. Depth and Batch fix the numbering of batches, which
	// checkpoints and shards refer to.
	Batch int
	// Select, if not nil, picks the batches to search by index, in the
	// order they are enumerated (0, 1, ...); the others are skipped.
	Select func(batch int) bool
	// Done, if not nil, is called as batches finish, with their indexes and
	// their summed partials (see nq.Reduce); the CPU reports one batch per
	// call. It is called from several goroutines at once.
	Done func(batches []int, p nq.Partial)
}

// DefaultBatch is the number of tasks in a batch unless Options say
// otherwise.
const DefaultBatch = 256

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
// With Options.Select it counts only the selected batches: use SolvePartial
// for those, whose sums are not counts on their own.
func Solve(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Counts, error) {
	p, err := SolvePartial(ctx, n, algo, opt)
	if err != nil {
		return nq.Counts{}, err
	}
	return nq.Reduce(algo, p)
}

// SolvePartial searches the batches of n and algo that opt selects (all by
// default) and returns their summed partials, to be added to the partials
// of the other batches and reduced with nq.Reduce.
func SolvePartial(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Partial, error) {
	if err := nq.CheckN(n); err != nil {
		return nq.Partial{}, err
	}
	if _, err := nq.ParseAlgo(string(algo)); err != nil {
		return nq.Partial{}, err
	}
	if err := ctx.Err(); err != nil {
		return nq.Partial{}, err
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	depth := opt.Depth
	if depth == 0 {
		depth = tasks.DefaultDepth(n)
	}
	if n < 4 || (algo == nq.CarryChain && n < 5) {
		// Boards this small have no rows to split the search on, and at
		// N=4 a carry-chain frame is the whole board: one batch (index 0)
		// of the plain search, exact and instant, whose sums are counts
		// (scaled to what the algorithm's reduction expects).
		if opt.Select != nil && !opt.Select(0) {
			return nq.Partial{}, nil
		}
		p := smallSolve(n, algo)
		if opt.Done != nil {
			opt.Done([]int{0}, p)
		}
		return p, nil
	}
	if depth < 2 || depth > n-1 {
		return nq.Partial{}, fmt.Errorf("depth %d out of range 2..%d for N=%d", depth, n-1, n)
	}
	boards := func(kind tasks.Kind) func(func(*tasks.Boards) error) error {
		return func(send func(*tasks.Boards) error) error {
			return tasks.EnumerateBoards(n, kind, depth, batch, func(b *tasks.Boards) error {
				return send(cloneBoards(b))
			})
		}
	}
	w, sel, done := opt.workers(), opt.Select, opt.Done
	switch algo {
	case nq.Backtrack:
		return runPool(ctx, w, sel, done, boards(tasks.Plain), backtrackBoards)
	case nq.Bitmap:
		return runPool(ctx, w, sel, done, boards(tasks.Plain), bitmapBoards)
	case nq.Mirror:
		return runPool(ctx, w, sel, done, boards(tasks.Half), mirrorBoards)
	case nq.Symmetry:
		return runPool(ctx, w, sel, done, boards(tasks.Symmetry), symmetryBoards)
	default: // nq.CarryChain
		return runPool(ctx, w, sel, done, func(send func(*tasks.Frames) error) error {
			return tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
				return send(cloneFrames(f))
			})
		}, framesBoards)
	}
}

// smallSolve runs the placement-flag search from the empty board and
// returns its counts as the partial sums algo's reduction expects.
func smallSolve(n int, algo nq.Algo) nq.Partial {
	var t tally
	s := flagSearch{n: n, q: make([]int, n), scratch: make([]int, n), t: &t}
	s.place(0)
	p := t.partial()
	switch algo {
	case nq.Mirror:
		p[2], p[3] = 2*p[2], 4*p[3]
	case nq.CarryChain:
		p[1], p[2], p[3] = 2*p[1], 4*p[2], 8*p[3]
	}
	return p
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
