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
	rows    []uint32  // rowWords per task
	left    []uint32  // boards only
	down    []uint32
	right   []uint32
	weight  []uint8 // frames only
	sym180  []uint8
	left64  []uint64 // eightfold: left and right, with down and meta
	right64 []uint64
	meta    []uint32
}

// producer enumerates the tasks of a solve's spec and packs the batches
// sel selects into launch groups of about target tasks (the planner's,
// read as each group fills) and at most capTasks.
type producer struct {
	spec     nq.Spec
	capTasks int
	target   *atomic.Int64
	sel      func(batch int) bool // nil: every batch

	index int    // the next batch's number
	g     *group // the group being packed
	full  int    // the tasks g's arrays are packed for (grow)
}

// rowWords is the row words of one task of spec: the placed rows of a
// partial board, the n rows of a frame, none for an eightfold task.
func rowWords(spec nq.Spec) int {
	switch spec.Algo {
	case nq.CarryChain:
		return spec.N
	case nq.Eightfold:
		return 0
	}
	return spec.Depth
}

// run sends the groups to out until the tasks are through, or returns
// ctx's error.
func (p *producer) run(ctx context.Context, out chan<- *group) error {
	n, depth, batch := p.spec.N, p.spec.Depth, p.spec.Batch
	words := rowWords(p.spec)
	var err error
	switch p.spec.Algo {
	case nq.Eightfold:
		// The tasks of the most levels go as their children, so that
		// every thread's stack is a frame shorter (efFrames).
		var short tasks.Eightfold
		err = tasks.EnumerateEightfoldContext(ctx, n, depth, batch, func(b *tasks.Eightfold) error {
			e := efSplit(b, n, depth, &short)
			return p.add(ctx, out, e.Len(), func(g *group, full int) {
				g.left64 = pack(g.left64, e.Left, full)
				g.right64 = pack(g.right64, e.Right, full)
				g.down = pack(g.down, e.Down, full)
				g.meta = pack(g.meta, e.Meta, full)
			})
		})
	case nq.CarryChain:
		err = tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
			return p.add(ctx, out, f.Len(), func(g *group, full int) {
				g.rows = pack(g.rows, f.Rows, full*words)
				g.weight = pack(g.weight, f.Weight, full)
				g.sym180 = pack(g.sym180, f.Sym180, full)
			})
		})
	default:
		err = tasks.EnumerateBoards(n, tasks.Symmetry, depth, batch, func(b *tasks.Boards) error {
			return p.add(ctx, out, b.Len(), func(g *group, full int) {
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
	return p.flush(ctx, out)
}

// add packs the next batch, of count tasks, with fill (which appends its
// arrays, grown for full tasks) unless sel rejects it, and sends the group
// once it holds its target.
func (p *producer) add(ctx context.Context, out chan<- *group, count int, fill func(g *group, full int)) error {
	i := p.index
	p.index++
	if p.sel != nil && !p.sel(i) {
		return ctx.Err()
	}
	if p.g != nil && p.g.count+count > p.capTasks {
		if err := p.flush(ctx, out); err != nil {
			return err
		}
	}
	if p.g == nil {
		p.g = &group{}
	}
	p.g.batches = append(p.g.batches, i)
	p.g.count += count
	p.full = int(min(p.target.Load(), int64(p.capTasks)))
	fill(p.g, p.full)
	if int64(p.g.count) >= p.target.Load() {
		return p.flush(ctx, out)
	}
	return nil
}

// flush sends the group in hand, if it has tasks.
func (p *producer) flush(ctx context.Context, out chan<- *group) error {
	if p.g == nil || p.g.count == 0 {
		return nil
	}
	p.g.packed = time.Now()
	select {
	case out <- p.g:
		p.g = nil
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
