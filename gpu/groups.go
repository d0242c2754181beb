package gpu

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// This file is the host side of a GPU solve that needs no CUDA, so that
// every build tests it: the enumeration of tasks into launch groups.

// part is the tasks of some batches of a launch group, packed as the
// kernels read them; one worker packs each part.
type part struct {
	batches []int
	sizes   []int32 // eightfold: the tasks of each batch, as split
	count   int
	levels  int      // eightfold: the most levels its tasks were split to
	rows    []uint32 // rowWords per task
	left    []uint32 // boards only
	down    []uint32
	right   []uint32
	weight  []uint8 // frames only
	sym180  []uint8
	left64  []uint64 // eightfold: left and right, with down and meta
	right64 []uint64
	meta    []uint32
}

// group is the tasks of one launch: its parts, in order.
type group struct {
	parts    []*part
	count    int
	nbatches int       // the parts' batches
	packed   time.Time // when the producer handed it over (for Tuning.Trace)
}

// groupOf is the group of the parts ps.
func groupOf(ps ...*part) *group {
	g := &group{parts: ps}
	for _, p := range ps {
		g.count += p.count
		g.nbatches += len(p.batches)
	}
	return g
}

// batches lists the batches of g's parts.
func (g *group) batches() []int {
	var bs []int
	for _, p := range g.parts {
		bs = append(bs, p.batches...)
	}
	return bs
}

// levels is the most levels of g's parts.
func (g *group) levels() int {
	l := 0
	for _, p := range g.parts {
		l = max(l, p.levels)
	}
	return l
}

// groupPlan is what the consumer's planner asks of the producer: the
// tasks of the next groups, the levels to split eightfold tasks to, the
// most batches a group may hold (0: any; those the GPU runs within the
// planner's bound, which holds for parts packed before the levels
// changed too), and whether a launch has ended (seen).
type groupPlan struct {
	tasks   atomic.Int64
	levels  atomic.Int32
	batches atomic.Int64
	once    sync.Once
	seen    chan struct{} // closed once a launch has ended
}

// newGroupPlan is a plan of groups of tasks tasks split to levels.
func newGroupPlan(tasks, levels int) *groupPlan {
	gp := &groupPlan{seen: make(chan struct{})}
	gp.set(tasks, levels)
	return gp
}

// set stores the planner's next group.
func (gp *groupPlan) set(tasks, levels int) {
	gp.tasks.Store(int64(tasks))
	gp.levels.Store(int32(levels))
}

// observed records that a launch has ended, whose time the planner has
// seen.
func (gp *groupPlan) observed() { gp.once.Do(func() { close(gp.seen) }) }

// producer enumerates the tasks of a solve's spec and packs the batches
// sel selects into launch groups of about the plan's tasks (read as each
// group fills) and at most capTasks. The groups it packs before a launch
// has ended, at most inFlight, are small (firstTasks): so the GPU starts
// as soon as a few tasks are packed, and a slow GPU's first launches are
// short and claim few batches (another GPU takes the rest). Eightfold tasks are
// listed and packed by workers goroutines at once (parallel.go); the
// others by one.
type producer struct {
	spec       nq.Spec
	capTasks   int
	plan       *groupPlan
	sel        func(batch int) bool // nil: every batch
	firstTasks int                  // the first group's tasks; 0: no ramp
	workers    int                  // 0: GOMAXPROCS
	head       bool                 // eightfold: start from the head PrepareEightfold packed, if any
	chunkTasks int                  // eightfold: the most tasks of a chunk; 0: chunkTasks

	groups   atomic.Int64  // the groups sent
	perBatch atomic.Uint64 // tasks per batch, lately, at the default levels (a float64's bits)
}

// firstTasksPerThread is the tasks per resident thread of the groups a
// solve packs before a launch has ended (their tasks short:
// launchPlanner.startLevels): the GPU starts after a millisecond or two of
// packing on a GPU host. Small launches cost in their tails (the replay,
// TestLaunchReplayProducer, docs/performance.md).
const firstTasksPerThread = 4

// target is the tasks of the group being packed.
func (p *producer) target() int {
	t := int(min(p.plan.tasks.Load(), int64(p.capTasks)))
	if p.firstTasks > 0 && !p.seen() {
		t = min(t, p.firstTasks)
	}
	return max(1, t)
}

// seen reports whether a launch has ended (groupPlan.observed).
func (p *producer) seen() bool {
	select {
	case <-p.plan.seen:
		return true
	default:
		return p.plan.seen == nil
	}
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

// start runs p in a goroutine: its groups come on the first channel,
// which holds buffer of them and is closed when p returns, and then its
// error on the second.
func (p *producer) start(ctx context.Context, buffer int) (<-chan *group, <-chan error) {
	out, errc := make(chan *group, buffer), make(chan error, 1)
	go func() {
		defer close(out)
		errc <- p.run(ctx, out)
	}()
	return out, errc
}

// run sends the groups to out until the tasks are through, or returns
// ctx's error.
func (p *producer) run(ctx context.Context, out chan<- *group) error {
	if p.spec.Algo == nq.Eightfold {
		return p.runEightfold(ctx, out)
	}
	return p.runSerial(ctx, out)
}

// runSerial lists the batches of a board or frame spec in order and packs
// those sel selects, one part per group.
func (p *producer) runSerial(ctx context.Context, out chan<- *group) error {
	n, depth, batch := p.spec.N, p.spec.Depth, p.spec.Batch
	words := rowWords(p.spec)
	a := assembler{p: p, out: out}
	var err error
	if p.spec.Algo == nq.CarryChain {
		err = tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
			return a.batch(ctx, f.Len(), func(pt *part) {
				pt.rows = append(pt.rows, f.Rows...)
				pt.weight = append(pt.weight, f.Weight...)
				pt.sym180 = append(pt.sym180, f.Sym180...)
			})
		})
	} else {
		err = tasks.EnumerateBoards(n, tasks.Symmetry, depth, batch, func(b *tasks.Boards) error {
			return a.batch(ctx, b.Len(), func(pt *part) {
				pt.rows = append(pt.rows, b.Rows[:b.Len()*words]...)
				pt.left = append(pt.left, b.Left...)
				pt.down = append(pt.down, b.Down...)
				pt.right = append(pt.right, b.Right...)
			})
		})
	}
	if err != nil {
		return err
	}
	return a.flush(ctx)
}

// newPart is an empty part of spec's layout with room for tasks tasks, so
// that a part of millions of tasks is not copied as append grows it.
func newPart(spec nq.Spec, tasks int) *part {
	words := rowWords(spec)
	switch spec.Algo {
	case nq.CarryChain:
		return &part{rows: make([]uint32, 0, tasks*words), weight: make([]uint8, 0, tasks), sym180: make([]uint8, 0, tasks)}
	case nq.Eightfold:
		return &part{left64: make([]uint64, 0, tasks), right64: make([]uint64, 0, tasks),
			down: make([]uint32, 0, tasks), meta: make([]uint32, 0, tasks)}
	}
	return &part{rows: make([]uint32, 0, tasks*words), left: make([]uint32, 0, tasks),
		down: make([]uint32, 0, tasks), right: make([]uint32, 0, tasks)}
}

// assembler fills groups from parts in order and sends them.
type assembler struct {
	p     *producer
	out   chan<- *group
	g     *group
	index int // runSerial: the next batch's number
}

// batch packs runSerial's next batch, of count tasks, into the group in
// hand with fill, unless sel rejects it, and sends the group once it
// holds its target.
func (a *assembler) batch(ctx context.Context, count int, fill func(*part)) error {
	i := a.index
	a.index++
	if a.p.sel != nil && !a.p.sel(i) {
		return ctx.Err()
	}
	if a.g != nil && a.g.count+count > a.p.capTasks {
		if err := a.flush(ctx); err != nil {
			return err
		}
	}
	if a.g == nil {
		if err := a.begin(ctx, groupOf(newPart(a.p.spec, min(a.p.target()+count, a.p.capTasks)))); err != nil {
			return err
		}
	}
	pt := a.g.parts[0]
	pt.batches = append(pt.batches, i)
	pt.count += count
	a.g.count += count
	a.g.nbatches++
	fill(pt)
	if a.g.count >= a.p.target() {
		return a.flush(ctx)
	}
	return nil
}

// add appends part pt to the group in hand (after sending that group if
// pt would take it past capTasks) and sends the group once it holds its
// target.
func (a *assembler) add(ctx context.Context, pt *part) error {
	if pt.count == 0 {
		return nil
	}
	if a.g != nil && a.g.count+pt.count > a.p.capTasks {
		if err := a.flush(ctx); err != nil {
			return err
		}
	}
	if a.g == nil {
		if err := a.begin(ctx, &group{}); err != nil {
			return err
		}
	}
	a.g.parts = append(a.g.parts, pt)
	a.g.count += pt.count
	a.g.nbatches += len(pt.batches)
	if most := a.p.plan.batches.Load(); a.g.count >= a.p.target() || most > 0 && int64(a.g.nbatches) >= most {
		return a.flush(ctx)
	}
	return nil
}

// begin starts a group. Before a launch has ended the producer makes no
// more than inFlight groups, sized blind: then it waits for the planner's
// first word on the GPU's speed.
func (a *assembler) begin(ctx context.Context, g *group) error {
	if a.p.groups.Load() >= inFlight && a.p.plan.seen != nil {
		select {
		case <-a.p.plan.seen:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a.g = g
	return nil
}

// flush sends the group in hand, if it has tasks.
func (a *assembler) flush(ctx context.Context) error {
	if a.g == nil || a.g.count == 0 {
		return nil
	}
	a.g.packed = time.Now()
	select {
	case a.out <- a.g:
		a.g = nil
		a.p.groups.Add(1)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runAll runs fs on every core and returns when all have returned.
func runAll(fs []func()) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := min(len(fs), runtime.GOMAXPROCS(0)); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(fs)); i = next.Add(1) - 1 {
				fs[i]()
			}
		}()
	}
	wg.Wait()
}

// setArrays sets the device addresses of the arrays of layout in a, in
// the order slot.pack lays them out.
func (a *groupArgs) setArrays(layout taskLayout, at []devPtr) {
	switch layout {
	case frameLayout:
		a.rows, a.weight, a.sym180 = at[0], at[1], at[2]
	case boardLayout:
		a.rows, a.left, a.down, a.right = at[0], at[1], at[2], at[3]
	case eightfoldLayout:
		a.left, a.right, a.down, a.meta = at[0], at[1], at[2], at[3]
	}
}

// workerCount is the producer's workers: its own number, or GOMAXPROCS.
func (p *producer) workerCount() int {
	if p.workers > 0 {
		return p.workers
	}
	return runtime.GOMAXPROCS(0)
}
