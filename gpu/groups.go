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
	// full is the tasks the group in hand is packed to (its arrays' room,
	// grow).
	full := 0
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
		full = int(min(target.Load(), int64(capTasks)))
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
			e := efSplit(b, n, depth, &short)
			return add(e.Len(), func(g *group) {
				g.left64 = pack(g.left64, e.Left, full)
				g.right64 = pack(g.right64, e.Right, full)
				g.down = pack(g.down, e.Down, full)
				g.meta = pack(g.meta, e.Meta, full)
			})
		})
	case nq.CarryChain:
		err = tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
			return add(f.Len(), func(g *group) {
				g.rows = pack(g.rows, f.Rows, full*words)
				g.weight = pack(g.weight, f.Weight, full)
				g.sym180 = pack(g.sym180, f.Sym180, full)
			})
		})
	default:
		err = tasks.EnumerateBoards(n, tasks.Symmetry, depth, batch, func(b *tasks.Boards) error {
			return add(b.Len(), func(g *group) {
				g.rows = pack(g.rows, b.Rows, full*words)
				g.left = pack(g.left, b.Left, full)
				g.down = pack(g.down, b.Down, full)
				g.right = pack(g.right, b.Right, full)
			})
		})
	}
	if err != nil {
		return err
	}
	return flush()
}

// pack appends add to s, its room grown by grow (full: the elements s
// holds once its group is packed).
func pack[T any](s, add []T, full int) []T { return append(grow(s, len(add), full), add...) }

// grow returns s with room for k more elements: first room for
// smallGroup elements, then, once that is full, for full (the tasks the
// group is packed to, times the elements per task), and past that twice
// the room it had; so packing a launch group of millions of tasks copies
// its arrays about once, and a small count allocates little. Append's own
// growth, a quarter at a time for large slices, made packing N=20's first
// group (11.2 million eightfold tasks) take 0.75 s on the project's 2-core
// VM, against 0.25 s with its arrays allocated at once.
func grow[T any](s []T, k, full int) []T {
	if len(s)+k <= cap(s) {
		return s
	}
	c := full
	if cap(s) < smallGroup {
		c = min(c, smallGroup)
	}
	if c <= cap(s) { // past full (the group's last batch, or a target raised meanwhile)
		c = 2 * cap(s)
	}
	t := make([]T, len(s), max(c, len(s)+k))
	copy(t, s)
	return t
}

// smallGroup is the first capacity of a launch group's arrays (grow).
const smallGroup = 1 << 20
