package gpu

import (
	"context"
	"sync"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// head is the first batches of an eightfold list, 0 to last-1, packed
// into parts split to levels (PrepareEightfold), for the solve of spec
// that takes it.
type head struct {
	levels int
	parts  []*part
	last   int
}

// end is the first batch h does not hold: 0 for none.
func (h *head) end() int {
	if h == nil {
		return 0
	}
	return h.last
}

// heads holds the heads packed and not yet taken, by N, split and batch;
// gen counts ForgetPrepared's calls, and cancels stops the packing of the
// heads in progress.
var heads struct {
	sync.Mutex
	m       map[[3]int]*head
	gen     int
	cancels []context.CancelFunc
}

// PrepareEightfold prepares the task list of spec, a normalized eightfold
// spec (tasks.PrepareEightfold), and packs the tasks of its first launch,
// at most a slot's, split as a solve's first launches split them; the
// next solve of spec starts from them (its producer claims their
// batches as it hands them over), unless ForgetPrepared drops them first.
// So a count started after the GPUs have opened launches at once, the
// packing done while they opened.
func PrepareEightfold(ctx context.Context, spec nq.Spec) error {
	heads.Lock()
	gen := heads.gen
	hctx, cancel := context.WithCancel(ctx)
	heads.cancels = append(heads.cancels, cancel)
	heads.Unlock()
	defer cancel()
	if err := tasks.PrepareEightfold(ctx, spec.N, spec.Depth); err != nil {
		return err
	}
	return prepareHead(hctx, spec, slotBytes/taskBytes(eightfoldLayout, spec), gen)
}

// prepareHead packs the head of spec's list, of at most capTasks tasks,
// into heads, unless ForgetPrepared was called after gen.
func prepareHead(ctx context.Context, spec nq.Spec, capTasks, gen int) error {
	levels := firstLevels(spec)
	plan := newGroupPlan(capTasks, levels)
	plan.seen = nil // no launch to wait for: one group of up to capTasks
	p := producer{spec: spec, capTasks: capTasks, plan: plan, chunkTasks: headChunkTasks}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, errc := p.start(pctx, 1)
	g := <-out
	cancel()
	for range out {
	}
	if err := <-errc; g == nil || ctx.Err() != nil {
		return err
	}
	h := &head{levels: levels, parts: g.parts}
	if n := len(g.parts); n > 0 {
		bs := g.parts[n-1].batches
		h.last = bs[len(bs)-1] + 1
	}
	heads.Lock()
	defer heads.Unlock()
	if heads.gen != gen {
		return nil // forgotten while it was packed
	}
	if heads.m == nil {
		heads.m = map[[3]int]*head{}
	}
	heads.m[[3]int{spec.N, spec.Depth, spec.Batch}] = h
	return nil
}

// headChunkTasks bounds the parts of a head, so that the small groups a
// solve sends before a launch has ended can be made of them.
const headChunkTasks = 1 << 13

// ForgetPrepared drops the heads PrepareEightfold packed that no solve
// has taken, and their memory, and stops the packing of those in
// progress, which then keep nothing.
func ForgetPrepared() {
	heads.Lock()
	defer heads.Unlock()
	heads.m = nil
	heads.gen++
	for _, cancel := range heads.cancels {
		cancel()
	}
	heads.cancels = nil
}

// firstLevels is the levels a solve of spec splits the tasks of its
// first launches to (launchPlanner.startLevels), counting solutions.
func firstLevels(spec nq.Spec) int {
	p := newLaunchPlanner(1, 1, DefaultLaunchTime).splits(efLevels(spec.N, spec.Depth), 2, spec.Batch)
	return p.startLevels()
}

// takeHead removes the head of spec from heads and returns it if its
// tasks are split to levels and each part holds at most capTasks tasks;
// else nil.
func takeHead(spec nq.Spec, levels, capTasks int) *head {
	heads.Lock()
	defer heads.Unlock()
	k := [3]int{spec.N, spec.Depth, spec.Batch}
	h := heads.m[k]
	if h == nil {
		return nil
	}
	delete(heads.m, k)
	if h.levels != levels {
		return nil
	}
	for _, pt := range h.parts {
		if pt.count > capTasks {
			return nil
		}
	}
	return h
}

// addHead adds the parts of h, less the batches sel rejects, to the
// groups, in order.
func (a *assembler) addHead(ctx context.Context, h *head) error {
	if h == nil {
		return nil
	}
	for _, pt := range h.parts {
		if err := a.add(ctx, pt.selected(a.p.sel)); err != nil {
			return err
		}
	}
	return nil
}

// selected is the eightfold part pt less the batches sel rejects, asking
// sel once for each batch, in order: pt itself where it rejects none.
func (pt *part) selected(sel func(batch int) bool) *part {
	if sel == nil {
		return pt
	}
	keep := make([]bool, len(pt.batches))
	all := true
	for i, b := range pt.batches {
		keep[i] = sel(b)
		all = all && keep[i]
	}
	if all {
		return pt
	}
	kept := 0
	for i := range keep {
		if keep[i] {
			kept += int(pt.sizes[i])
		}
	}
	q := newPart(nq.Spec{Algo: nq.Eightfold}, kept)
	q.levels = pt.levels
	off := 0
	for i, b := range pt.batches {
		n := int(pt.sizes[i])
		if keep[i] {
			q.batches = append(q.batches, b)
			q.sizes = append(q.sizes, pt.sizes[i])
			q.count += n
			q.left64 = append(q.left64, pt.left64[off:off+n]...)
			q.right64 = append(q.right64, pt.right64[off:off+n]...)
			q.down = append(q.down, pt.down[off:off+n]...)
			q.meta = append(q.meta, pt.meta[off:off+n]...)
		}
		off += n
	}
	return q
}
