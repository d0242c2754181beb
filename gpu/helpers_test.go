package gpu

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Options are the choices of a test solve: the spec's depth and batch
// (0: the defaults), the batches to search and where to report them, the
// tuning, and where to add the nodes of the _nodes kernels (nil: the
// plain kernels).
type Options struct {
	Depth, Batch int
	Select       func(batch int) bool
	Done         func(batches []int, p nq.Partial)
	Tuning
	Nodes *uint64
}

// tuning is the Tuning of o.
func (o Options) tuning() Tuning {
	t := o.Tuning
	t.Nodes = o.Nodes != nil
	return t
}

// variant is the kernel variant o asks for (Tuning.variant).
func (o Options) variant() (Variant, bool) { return variantOf(o.tuning()) }

// SolvePartial counts the batches of n and algo that opt selects on b's
// GPU with opt's tuning, through Count, and returns their summed
// partials.
func (b *Backend) SolvePartial(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Partial, error) {
	t := &Backend{ctx: b.ctx, info: b.info, tune: opt.tuning()}
	sel := opt.Select
	if sel == nil {
		sel = func(int) bool { return true }
	}
	var mu sync.Mutex
	var sum nq.Partial
	spec := plan.Normalize(nq.Spec{N: n, Algo: algo, Depth: opt.Depth, Batch: opt.Batch})
	err := t.Count(ctx, spec, sel, func(bs []int, p nq.Partial) {
		mu.Lock()
		sum.Add(p)
		mu.Unlock()
		if opt.Done != nil {
			opt.Done(bs, p)
		}
	})
	if opt.Nodes != nil {
		*opt.Nodes += t.TakeNodes()
	}
	if err != nil {
		return nq.Partial{}, err
	}
	return sum, nil
}

// produce runs the producer of the tasks of n and algo at depth in batches
// of batch, with groups of target tasks and at most capTasks.
func produce(ctx context.Context, n int, algo nq.Algo, depth, batch, capTasks int, target *atomic.Int64,
	sel func(int) bool, out chan<- *group) error {
	p := producer{spec: nq.Spec{N: n, Algo: algo, Depth: depth, Batch: batch}, capTasks: capTasks, plan: planOf(int(target.Load())), sel: sel}
	return p.run(ctx, out)
}

// planOf is a plan of groups of tasks tasks, unsplit, as after a launch
// has ended.
func planOf(tasks int) *groupPlan {
	p := newGroupPlan(tasks, 0)
	p.observed()
	return p
}

// targetOf is a target of tasks tasks for produce.
func targetOf(tasks int) *atomic.Int64 {
	var t atomic.Int64
	t.Store(int64(tasks))
	return &t
}

// flat is the tasks of g's parts, one array each, as the slot packs them.
func (g *group) flat() *part {
	f := &part{count: g.count, batches: g.batches()}
	for _, p := range g.parts {
		f.rows = append(f.rows, p.rows...)
		f.left = append(f.left, p.left...)
		f.down = append(f.down, p.down...)
		f.right = append(f.right, p.right...)
		f.weight = append(f.weight, p.weight...)
		f.sym180 = append(f.sym180, p.sym180...)
		f.left64 = append(f.left64, p.left64...)
		f.right64 = append(f.right64, p.right64...)
		f.meta = append(f.meta, p.meta...)
		f.levels = max(f.levels, p.levels)
	}
	return f
}
