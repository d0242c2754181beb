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

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

func workers(k int) int {
	if k > 0 {
		return k
	}
	return runtime.GOMAXPROCS(0)
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

// Backend counts task batches on the CPU cores: the CPU device of a job
// (nq.Backend).
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
