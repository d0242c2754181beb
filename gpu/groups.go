package gpu

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// This file is the host side of a GPU solve that needs no CUDA, so that
// every build tests it: the enumeration of tasks into launch groups.

// group is the tasks of one launch.
type group struct {
	batches []int
	count   int
	packed  time.Time // when the producer handed it over (for Tuning.Trace)
	rows    []uint32  // words per task: depth (boards) or n (frames)
	left    []uint32  // boards only
	down    []uint32
	right   []uint32
	weight  []uint8 // frames only
	sym180  []uint8
	left64  []uint64 // eightfold: left and right, with down and meta
	right64 []uint64
	meta    []uint32
}

// produce enumerates the tasks and sends them in launch groups.
func produce(ctx context.Context, n int, algo nq.Algo, depth, batch, words, capTasks int, target *atomic.Int64,
	sel func(int) bool, out chan<- *group) error {
	var g *group
	index := 0
	flush := func() error {
		if g == nil || g.count == 0 {
			return nil
		}
		g.packed = time.Now()
		select {
		case out <- g:
			g = nil
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// add appends one batch; full says when the group is big enough.
	add := func(count int, fill func(g *group)) error {
		i := index
		index++
		if sel != nil && !sel(i) {
			return ctx.Err()
		}
		if g != nil && g.count+count > capTasks {
			if err := flush(); err != nil {
				return err
			}
		}
		if g == nil {
			g = &group{}
		}
		g.batches = append(g.batches, i)
		g.count += count
		fill(g)
		if int64(g.count) >= target.Load() {
			return flush()
		}
		return nil
	}
	var err error
	switch algo {
	case nq.Eightfold:
		// The tasks of the most levels go as their children, so that
		// every thread's stack is a frame shorter (efFrames).
		var short tasks.Eightfold
		err = tasks.EnumerateEightfoldContext(ctx, n, depth, batch, func(b *tasks.Eightfold) error {
			short.Reset()
			e := b.SplitLevels(efLevels(n, depth), &short)
			return add(e.Len(), func(g *group) {
				g.left64 = append(g.left64, e.Left...)
				g.right64 = append(g.right64, e.Right...)
				g.down = append(g.down, e.Down...)
				g.meta = append(g.meta, e.Meta...)
			})
		})
	case nq.CarryChain:
		err = tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
			return add(f.Len(), func(g *group) {
				g.rows = append(g.rows, f.Rows...)
				g.weight = append(g.weight, f.Weight...)
				g.sym180 = append(g.sym180, f.Sym180...)
			})
		})
	default:
		err = tasks.EnumerateBoards(n, tasks.Symmetry, depth, batch, func(b *tasks.Boards) error {
			return add(b.Len(), func(g *group) {
				g.rows = append(g.rows, b.Rows...)
				g.left = append(g.left, b.Left...)
				g.down = append(g.down, b.Down...)
				g.right = append(g.right, b.Right...)
			})
		})
	}
	if err != nil {
		return err
	}
	return flush()
}
