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
	"sync"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// Options tunes a CPU run. The zero value picks the defaults of nq.Spec.
type Options struct {
	// Workers is the number of goroutines that search; 0 means one per core.
	Workers int
	// Depth is the number of rows placed when partial boards are enumerated;
	// 0 picks one from N.
	Depth int
	// Batch is the number of tasks handed to a worker at a time; 0 means
	// nq.DefaultBatch. Depth and Batch fix the numbering of batches, which
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

func workers(k int) int {
	if k > 0 {
		return k
	}
	return runtime.GOMAXPROCS(0)
}

// Solve counts the solutions of the n-queens problem with algo on the CPU:
// a job (internal/job) of the spec that opt gives, with this backend as
// its only worker. It returns ctx's error if ctx is cancelled before the
// count is complete. opt.Select and opt.Done are not used: SolvePartial
// counts chosen batches.
func Solve(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Counts, error) {
	spec := nq.Spec{N: n, Algo: algo, Depth: opt.Depth, Batch: opt.Batch}
	b := New(opt.Workers)
	return job.Count(ctx, job.Config{Spec: spec, Workers: []job.Worker{{Name: b.Name(), Run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		return b.Count(ctx, spec.Normalize(), sel, done)
	}}}})
}

// SolvePartial searches the task batches of n and algo that opt selects
// (all by default) and returns their summed partials, to be added to the
// partials of the other batches and reduced with nq.Reduce. A board too
// small to split (nq.Spec.Whole) has no task batches: the job counts it.
func SolvePartial(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Partial, error) {
	spec := nq.Spec{N: n, Algo: algo, Depth: opt.Depth, Batch: opt.Batch}.Normalize()
	if err := checkTasks(spec); err != nil {
		return nq.Partial{}, err
	}
	if err := ctx.Err(); err != nil {
		return nq.Partial{}, err
	}
	return count(ctx, spec, workers(opt.Workers), opt.Select, opt.Done)
}

// checkTasks returns an error unless spec is valid and split into tasks.
func checkTasks(spec nq.Spec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Whole() {
		return fmt.Errorf("cpu: N=%d -algo %s is counted whole by the job, not in task batches", spec.N, spec.Algo)
	}
	return nil
}

// Backend counts task batches on the CPU cores: the CPU device of the
// device layer (internal/device).
type Backend struct {
	workers int
}

// New returns the CPU backend with the given number of worker goroutines
// (0: one per core).
func New(workers int) *Backend { return &Backend{workers: workers} }

// Name is "cpu".
func (b *Backend) Name() string { return "cpu" }

// Workers is the number of goroutines that search.
func (b *Backend) Workers() int { return workers(b.workers) }

// Count searches the task batches of spec that sel selects, reporting each
// to done, and returns when every batch is through or ctx is cancelled
// (with ctx's error). spec must be normalized and split into tasks: the job
// layer counts whole boards itself.
func (b *Backend) Count(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	if err := checkTasks(spec); err != nil {
		return err
	}
	_, err := count(ctx, spec, b.Workers(), sel, done)
	return err
}

// Close does nothing: the CPU holds no resources between counts.
func (b *Backend) Close() error { return nil }

// count runs the search of spec's task batches on w goroutines.
func count(ctx context.Context, spec nq.Spec, w int, sel func(int) bool, done func([]int, nq.Partial)) (nq.Partial, error) {
	n, depth, batch := spec.N, spec.Depth, spec.Batch
	boardsOf := func(kind tasks.Kind) func(func(*tasks.Boards) error) error {
		return func(send func(*tasks.Boards) error) error {
			return tasks.EnumerateBoards(n, kind, depth, batch, func(b *tasks.Boards) error {
				return send(cloneBoards(b))
			})
		}
	}
	switch spec.Algo {
	case nq.Backtrack:
		return runPool(ctx, w, sel, done, boardsOf(tasks.Plain), backtrackBoards)
	case nq.Bitmap:
		return runPool(ctx, w, sel, done, boardsOf(tasks.Plain), bitmapBoards)
	case nq.Mirror:
		return runPool(ctx, w, sel, done, boardsOf(tasks.Half), mirrorBoards)
	case nq.Symmetry:
		return runPool(ctx, w, sel, done, boardsOf(tasks.Symmetry), symmetryBoards)
	case nq.Eightfold:
		// The batches' arrays go round: a worker hands its batch back
		// once searched, and the enumeration fills it again, so a count
		// allocates a few batches, not one per batch.
		var free sync.Pool
		return runPool(ctx, w, sel, done, func(send func(*tasks.Eightfold) error) error {
			return tasks.EnumerateEightfoldContext(ctx, n, depth, batch, func(e *tasks.Eightfold) error {
				c, _ := free.Get().(*tasks.Eightfold)
				return send(copyEightfoldWords(c, e))
			})
		}, func(e *tasks.Eightfold, t *tally, stop *atomic.Bool) {
			eightfoldBatch(e, t, stop)
			free.Put(e)
		})
	default: // nq.CarryChain
		return runPool(ctx, w, sel, done, func(send func(*tasks.Frames) error) error {
			return tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
				return send(cloneFrames(f))
			})
		}, framesBoards)
	}
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
