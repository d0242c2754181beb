package gpu

import (
	"context"
	"math"
	"sync"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The eightfold producer lists its batches in chunks of consecutive
// batches, handed out in order to its workers. Each worker lists its
// chunk's batches from where they start (tasks.EightfoldList.Range),
// claims them (sel), splits their tasks to the plan's levels and packs
// them; the assembler takes the chunks' parts in the batches' order and
// fills the groups. So the first group goes out once its own few chunks
// are packed, and packing runs on every core.

// chunk is a run of batches of the list, first to last-1, that one worker
// packs, split to levels.
type chunk struct {
	first, last int
	levels      int
	parts       []*part
	done        chan struct{} // closed when parts are packed
}

// Chunks hold about chunkTasks tasks once split, and at least one batch;
// while the groups are small, less (a group takes 2 × workers chunks).
const chunkTasks = 1 << 16

// runEightfold runs the workers and the assembler of an eightfold spec.
func (p *producer) runEightfold(ctx context.Context, out chan<- *group) error {
	l, err := tasks.NewEightfoldList(ctx, p.spec.N, p.spec.Depth)
	if err != nil {
		return err
	}
	if len(p.spec.SMs) <= 1 && l.Tasks() <= p.plan.tasks.Load() {
		// The whole list is one launch of the planner's first size, on
		// the one GPU that counts: no small launches before it, whose
		// tails would cost more than the few milliseconds of packing
		// they save. (Several GPUs share a list in small groups.)
		p.firstTasks = 0
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var h *head
	if p.head {
		h = takeHead(p.spec, p.levels(), p.capTasks)
	}
	w := p.workerCount()
	jobs, order := make(chan *chunk), make(chan *chunk, 2*w)
	go p.dispatch(ctx, l, h.end(), w, jobs, order)
	var wg sync.WaitGroup
	errs := make(chan error, w)
	for i := 0; i < w; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.work(ctx, l, jobs)
			if err != nil {
				cancel() // the assembler waits for this worker's chunks
			}
			errs <- err
		}()
	}
	a := assembler{p: p, out: out}
	err = a.addHead(ctx, h)
	if err == nil {
		err = a.collect(ctx, order)
	}
	if err == nil {
		err = a.flush(ctx)
	}
	cancel()
	wg.Wait()
	close(errs)
	for werr := range errs {
		if (err == nil || err == context.Canceled) && werr != nil && werr != context.Canceled {
			err = werr
		}
	}
	return err
}

// dispatch hands out the chunks of l's batches from batch from on, in
// order, to the workers (jobs) and to the assembler (order), until the
// batches are through or ctx is cancelled; then it closes both.
func (p *producer) dispatch(ctx context.Context, l *tasks.EightfoldList, from, workers int, jobs, order chan<- *chunk) {
	defer close(jobs)
	defer close(order)
	total := l.Batches(p.spec.Batch)
	for first := from; first < total; {
		levels := p.levels()
		most := chunkTasks
		if p.chunkTasks > 0 {
			most = p.chunkTasks
		}
		k := max(1, int(float64(min(most, p.target()/(2*workers)))/p.tasksPerBatch(levels)))
		if most := int(p.plan.batches.Load()); most > 0 {
			k = min(k, most) // a part fits in a launch of the bound
		}
		c := &chunk{first: first, levels: levels, done: make(chan struct{})}
		c.last = min(total, first+k)
		first = c.last
		for _, ch := range []chan<- *chunk{order, jobs} {
			select {
			case ch <- c:
			case <-ctx.Done():
				return
			}
		}
	}
}

// tasksPerBatch is the tasks a batch makes split to levels: as lately, at
// the levels packed then, with levelGrowth per level between them (the
// batch size before any).
func (p *producer) tasksPerBatch(levels int) float64 {
	t := math.Float64frombits(p.perBatch.Load())
	if t <= 0 {
		t = float64(p.spec.Batch)
	}
	return t * math.Pow(levelGrowth, float64(efLevels(p.spec.N, p.spec.Depth)-levels))
}

// levels is the most levels of the eightfold tasks to pack now: the
// plan's, at most the default (efLevels).
func (p *producer) levels() int {
	def := efLevels(p.spec.N, p.spec.Depth)
	if l := int(p.plan.levels.Load()); l > 0 {
		return min(l, def)
	}
	return def
}

// work packs the chunks of jobs until there are none, or ctx's error.
func (p *producer) work(ctx context.Context, l *tasks.EightfoldList, jobs <-chan *chunk) error {
	var scratch tasks.Eightfold
	for c := range jobs {
		err := p.pack(ctx, l, c, &scratch)
		close(c.done)
		if err != nil {
			return err
		}
	}
	return nil
}

// pack lists chunk c's batches, and splits and packs those sel selects
// into parts of at most capTasks tasks (one batch at least).
func (p *producer) pack(ctx context.Context, l *tasks.EightfoldList, c *chunk, scratch *tasks.Eightfold) error {
	room := int(min(float64(p.capTasks), 1.25*p.tasksPerBatch(c.levels)*float64(c.last-c.first)))
	pt := newPart(p.spec, room)
	pt.levels = c.levels
	in, outTasks := 0, 0
	err := l.Range(ctx, p.spec.Batch, c.first, c.last, false, func(i int, e *tasks.Eightfold) error {
		if p.sel != nil && !p.sel(i) {
			return nil
		}
		s := splitTo(e, c.levels, scratch)
		if pt.count > 0 && pt.count+s.Len() > p.capTasks {
			c.parts = append(c.parts, pt)
			pt = newPart(p.spec, room)
			pt.levels = c.levels
		}
		pt.batches = append(pt.batches, i)
		pt.sizes = append(pt.sizes, int32(s.Len()))
		pt.count += s.Len()
		pt.left64 = append(pt.left64, s.Left...)
		pt.right64 = append(pt.right64, s.Right...)
		pt.down = append(pt.down, s.Down...)
		pt.meta = append(pt.meta, s.Meta...)
		in, outTasks = in+1, outTasks+s.Len()
		return nil
	})
	c.parts = append(c.parts, pt)
	if in > 0 {
		def := efLevels(p.spec.N, p.spec.Depth)
		p.perBatch.Store(math.Float64bits(float64(outTasks) / float64(in) / math.Pow(levelGrowth, float64(def-c.levels))))
	}
	return err
}

// splitTo returns batch b with each task of more than levels levels
// split into its children (tasks.Eightfold.SplitLevels), in scratch, or b
// itself where no task has more.
func splitTo(b *tasks.Eightfold, levels int, scratch *tasks.Eightfold) *tasks.Eightfold {
	for i := range b.Meta {
		if b.Levels(i) > levels {
			scratch.Reset()
			return b.SplitLevels(levels, scratch)
		}
	}
	return b
}

// collect adds the parts of the chunks of order, in order, to the groups,
// until order is closed or ctx is cancelled.
func (a *assembler) collect(ctx context.Context, order <-chan *chunk) error {
	for c := range order {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		for _, pt := range c.parts {
			if err := a.add(ctx, pt); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}
