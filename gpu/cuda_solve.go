//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/mumax/3/cuda/cu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// How a solve runs on the GPU:
//
//   - A producer enumerates the tasks on the CPU in numbered batches (the
//     CPU backend's numbering), drops those sel rejects, and packs the rest
//     into launch groups of the launchPlanner's size (launchplan.go):
//     eightfold tasks on every core, the first groups small (groups.go,
//     parallel.go).
//   - The context's thread (consume) goes round inFlight slots, each with
//     pinned host buffers, device buffers, a stream and device counters,
//     so that enumeration, copies and kernels overlap.
//   - Each launch ends with a read-back of a few 64-bit counters (the
//     kernels reduce them on the device), reported with its batches to
//     done as soon as it ends: about every second at most (the bound).

const (
	// outBytes is a slot's device results: four 64-bit counters (C2, C4,
	// C8 and, for the _nodes kernels, the nodes), then the dynamic
	// kernels' 32-bit task counter at nextOffset (and padding).
	outBytes   = 48
	nextOffset = 32
	outCounts  = 4
	// readBytes is what a launch copies back: the counters and next.
	readBytes = nextOffset + 8
)

// solve is one count of a spec's task batches on a backend's GPU: what its
// producer and its consumer share.
type solve struct {
	b      *Backend
	spec   nq.Spec
	sel    func(int) bool
	done   func([]int, nq.Partial)
	kernel *kernelSpec
	nodes  bool          // the kernel's _nodes twin
	target time.Duration // the kernel time a launch aims at
	start  time.Time     // for Tuning.Trace

	threads     int         // per block
	sharedBytes int         // dynamic shared memory per block
	shared      sharedShape // the kernel's static shared memory and the GPU's limit
	perTask     int         // bytes of one task in a slot
	capTasks    int         // the most tasks of one launch
	fn          cu.Function // the kernel
	resident    int         // blocks the GPU keeps resident, for a fetching kernel's grid
	firstTasks  int         // the first group's tasks (producer.firstTasks)
	planner     *launchPlanner
	plan        *groupPlan // the planner's next group, for the producer
}

// solve counts the task batches of spec that sel selects, reports them to
// done and returns the search nodes the _nodes kernels counted.
func (b *Backend) solve(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) (uint64, error) {
	s, err := b.newSolve(spec, sel, done)
	if err != nil {
		return 0, fmt.Errorf("gpu: %w", err)
	}
	if err := b.ctx.Do("size the launches of "+s.kernelName(), s.size); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.run(ctx)
}

// newSolve checks spec and the tuning and chooses the kernel.
func (b *Backend) newSolve(spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) (*solve, error) {
	v, explicit := variantOf(b.tune)
	kernel, err := lookupKernel(spec.Algo, v, explicit)
	if err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Whole() {
		return nil, fmt.Errorf("N=%d -algo %s is counted whole by the job, not in task batches", spec.N, spec.Algo)
	}
	if err := CheckTuning(b.tune.Threads, b.tune.LaunchTime); err != nil {
		return nil, err
	}
	s := &solve{b: b, spec: spec, sel: sel, done: done, kernel: kernel, nodes: b.tune.Nodes,
		target: b.tune.LaunchTime, start: time.Now(), perTask: taskBytes(kernel.layout, spec)}
	if s.target == 0 {
		s.target = DefaultLaunchTime
	}
	s.capTasks = slotBytes / s.perTask
	if b.tune.MaxTasks > 0 {
		s.capTasks = min(s.capTasks, b.tune.MaxTasks)
	}
	return s, nil
}

// size chooses the block size and its shared memory (the stacks, for the
// kernels that keep them there) from the kernel's own shared memory and
// the GPU's limit (without a block size asked for, blocks shrink to fit),
// and prepares the launches. It runs on the context's thread and panics
// with an *Error.
func (s *solve) size() {
	s.fn = s.b.ctx.Function(s.kernelName())
	s.shared = s.b.ctx.sharedShapeOf(s.fn)
	var err error
	s.threads, s.sharedBytes, err = fitShared(s.kernel.sharedBytes, s.spec.N, s.spec.Depth, s.b.tune.Threads, s.shared)
	if err != nil {
		panic(&Error{Op: "size the launches of " + s.kernelName(), Detail: err.Error()})
	}
	s.prepare()
}

// prepare allows the kernel's shared memory and makes the planner for the
// blocks the GPU keeps resident: before the producer starts, so that its
// first group is sized for this GPU. On the context's thread.
func (s *solve) prepare() {
	allowShared(s.fn, s.shared, s.sharedBytes)
	s.resident = residentBlocks(s.fn, s.threads, s.sharedBytes, s.b.info.SMs)
	s.planner = newLaunchPlanner(s.resident*s.threads, s.capTasks, s.target)
	if s.spec.Algo == nq.Eightfold {
		levels := efLevels(s.spec.N, s.spec.Depth)
		deepest := 2
		if s.nodes {
			deepest = levels // the nodes a count reports are those of its spec's tasks
		}
		s.planner.splits(levels, deepest, s.spec.Batch)
	}
	s.plan = newGroupPlan(s.planner.next())
	s.firstTasks = min(s.planner.floor(), s.resident*s.threads*firstTasksPerThread)
}

// kernelName is the PTX entry that s runs.
func (s *solve) kernelName() string {
	if s.nodes {
		return s.kernel.name + "_nodes"
	}
	return s.kernel.name
}

// run starts the producer and consumes its groups on the context's
// thread; it returns the nodes counted, or the first error.
func (s *solve) run(ctx context.Context) (uint64, error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &producer{spec: s.spec, capTasks: s.capTasks, plan: s.plan, sel: s.sel, firstTasks: s.firstTasks, head: true}
	groups, prodErr := p.start(pctx, 2)
	c := consumer{solve: s}
	var consumeErr error
	err := s.b.ctx.Do(fmt.Sprintf("count N=%d with %s", s.spec.N, s.kernelName()), func() {
		consumeErr = c.consume(pctx, groups)
	})
	if err == nil && consumeErr != nil && pctx.Err() == nil {
		err = consumeErr // else cancelled: ctx's error below
	}
	cancel()
	for range groups { // let the producer finish
	}
	if perr := <-prodErr; err == nil && perr != nil && perr != context.Canceled {
		err = perr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return 0, err
	}
	return c.nodes, nil
}

// slot is one set of launch buffers with its own stream.
type slot struct {
	stream  cu.Stream
	host    unsafe.Pointer // pinned: the task arrays, packed as on the device
	hostOut unsafe.Pointer // pinned: the counters and next (readBytes)
	dev     cu.DevicePtr   // the task arrays
	devOut  cu.DevicePtr   // the counters and next (outBytes)
	bytes   int64
	busy    *group // launched, not yet read back
	queued  time.Time
	index   int // the launch's number in the solve
}

// pollMax is the longest a wait for a launch sleeps between two looks at
// its stream: a cancelled count notices within it.
const pollMax = 10 * time.Millisecond

// stopGrace is how long a cancelled solve still waits for the launches in
// flight, whose batches it then reports; it abandons those that take
// longer. It is below the job's wait for a stopped backend
// (job.DefaultStopWait), so that their reports are kept.
const stopGrace = 1500 * time.Millisecond

// consumer launches a solve's groups on the context's thread, slots deep,
// and reads their results back.
type consumer struct {
	*solve
	slots    [inFlight]slot
	order    []*slot // the slots in flight, oldest first
	pending  *group  // the rest of a group split (split), launched next
	nodes    uint64
	lastEnd  time.Time
	launches int
}

// pollMin is the first pause of a wait for a launch or a group.
const pollMin = 20 * time.Microsecond

// consume launches the groups of groups, up to a slot each, and reports
// each launch as soon as it ends: between groups and while it waits for
// one it looks at the oldest launch's stream, pausing at most pollMax, so
// that it notices the end of a launch, or a cancelled ctx, within pollMax
// whatever the launch's length. Once ctx is cancelled it queues no more
// launches (see drain). A failed driver call panics with an *Error naming
// the call, and Context.Do turns it into the error of the solve.
func (c *consumer) consume(ctx context.Context, groups <-chan *group) error {
	c.setup()
	defer c.release()
	wake := time.NewTimer(pollMax)
	defer wake.Stop()
	for d := pollMin; groups != nil || len(c.order) > 0 || c.pending != nil; {
		if err := c.reportEnded(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return c.drain(ctx)
		}
		free := len(c.order) < len(c.slots)
		if free && c.pending != nil {
			c.launch(c.split(c.pending))
			continue
		}
		var in <-chan *group
		if free {
			in = groups
		}
		wake.Reset(d)
		select {
		case g, ok := <-in:
			if !ok {
				groups = nil
				continue
			}
			c.launch(c.split(g))
			d = pollMin
		case <-wake.C:
			d = min(2*d, pollMax)
		}
	}
	return ctx.Err()
}

// split returns the part of g to launch now, the rest kept in pending for
// the next launch: g, or its first parts up to the batches the planner's
// bound allows (a group packed before a launch had ended, on a slow GPU).
func (c *consumer) split(g *group) *group {
	c.pending = nil
	most := c.planner.maxBatches()
	if most <= 0 || g.nbatches <= most || len(g.parts) < 2 {
		return g
	}
	head := &group{packed: g.packed}
	for len(g.parts) > 1 && (head.nbatches == 0 || head.nbatches+len(g.parts[0].batches) <= most) {
		p := g.parts[0]
		head.parts, g.parts = append(head.parts, p), g.parts[1:]
		head.count, head.nbatches = head.count+p.count, head.nbatches+len(p.batches)
		g.count, g.nbatches = g.count-p.count, g.nbatches-len(p.batches)
	}
	c.pending = g
	return head
}

// launch queues g on a free slot.
func (c *consumer) launch(g *group) {
	for i := range c.slots {
		if s := &c.slots[i]; s.busy == nil {
			s.launch(kernelFunc(c.fn), c.solve, c.resident, g)
			s.queued, s.index = time.Now(), c.launches
			c.launches++
			c.order = append(c.order, s)
			return
		}
	}
	panic("gpu: no free slot") // consume launches only with one free
}

// reportEnded reports the launches in flight that have ended, oldest
// first.
func (c *consumer) reportEnded() error {
	for len(c.order) > 0 && streamDone(c.order[0].stream) {
		if err := c.report(c.order[0]); err != nil {
			return err
		}
		c.order = c.order[1:]
	}
	return nil
}

// drain is the end of a cancelled solve: it still reports the launches in
// flight that end within stopGrace, abandons the others (their batches
// are not reported) and returns ctx's error.
func (c *consumer) drain(ctx context.Context) error {
	stop := time.Now()
	for len(c.order) > 0 {
		for d := pollMin; !streamDone(c.order[0].stream); d = min(2*d, pollMax) {
			if time.Since(stop) > stopGrace {
				return ctx.Err()
			}
			time.Sleep(d)
		}
		if err := c.report(c.order[0]); err != nil {
			return err
		}
		c.order = c.order[1:]
	}
	return ctx.Err()
}

// setup makes the slots' streams and counters.
func (c *consumer) setup() {
	c.lastEnd = time.Now()
	for i := range c.slots {
		s := &c.slots[i]
		named("cuStreamCreate", func() { s.stream = cu.StreamCreate() })
		notNull("cuStreamCreate", s.stream)
		named("cuMemAllocHost", func() { s.hostOut = cu.MemAllocHost(readBytes) })
		notNil("cuMemAllocHost", s.hostOut)
		named("cuMemAlloc", func() { s.devOut = cu.MemAlloc(outBytes) })
		notNull("cuMemAlloc", s.devOut)
	}
}

// release frees the slots; a slot still busy was abandoned in flight, and
// freeing it would wait for its launch.
func (c *consumer) release() {
	for i := range c.slots {
		if c.slots[i].busy != nil {
			c.b.ctx.abandon()
			continue
		}
		c.slots[i].free()
	}
}

// report reports the counts of s's launch, which has ended, and sizes the
// next launches from it. A fetching kernel that did not take all its
// tasks (a launch that did not run) is an error.
func (c *consumer) report(s *slot) error {
	if c.kernel.fetch && s.busy.count > 0 {
		if taken := *(*uint32)(unsafe.Add(s.hostOut, nextOffset)); taken < uint32(s.busy.count) {
			return &Error{Op: "cuLaunchKernel " + c.kernelName(), Detail: fmt.Sprintf(
				"returned success, but the kernel took %d of its %d tasks: the launch did not run (is the driver library a stub?)", taken, s.busy.count)}
		}
	}
	out := unsafe.Slice((*uint64)(s.hostOut), outCounts)
	c.nodes += out[3]
	batches := s.busy.batches()
	if c.done != nil {
		c.done(batches, nq.Partial{0, out[0], out[1], out[2]})
	}
	now := time.Now()
	if t := c.b.tune.Trace; t != nil {
		t(LaunchTrace{Device: c.b.info.Ordinal, N: c.spec.N, Launch: s.index, Tasks: s.busy.count, Batches: len(batches),
			Levels: s.busy.levels(), Packed: s.busy.packed.Sub(c.start), Queued: s.queued.Sub(c.start), Done: now.Sub(c.start)})
	}
	c.planner.observe(s.busy, now.Sub(later(c.lastEnd, s.queued)))
	c.lastEnd = now
	c.plan.set(c.planner.next())
	c.plan.batches.Store(int64(c.planner.maxBatches()))
	c.plan.observed()
	s.busy = nil
	return nil
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// launch copies g into the slot's buffers and queues the copies, the
// kernel of sv (through its wrapper, kernel.launch) and the read-back on
// the slot's stream; a fetching kernel's grid is at most resident blocks.
func (s *slot) launch(fn kernelFunc, sv *solve, resident int, g *group) {
	s.reserve(int64(sv.perTask)*int64(g.count) + 256)                                          // + alignment padding
	named("cuMemsetD32Async", func() { cu.MemsetD32Async(s.devOut, 0, outBytes/4, s.stream) }) // counters and next
	a := groupArgs{n: int32(sv.spec.N), depth: int32(sv.spec.Depth), count: int32(g.count),
		out: devPtr(s.devOut), next: devPtr(s.devOut) + nextOffset}
	off := s.pack(sv.kernel.layout, g, &a)
	named("cuMemcpyHtoDAsync", func() { cu.MemcpyHtoDAsync(s.dev, s.host, int64(off), s.stream) })
	shape := launchShape{blocks: (g.count + sv.threads - 1) / sv.threads, threads: sv.threads, sharedBytes: sv.sharedBytes}
	if sv.kernel.fetch {
		shape.blocks = min(shape.blocks, resident)
	}
	sv.kernel.launch(streamLauncher(s.stream), fn, shape, &a)
	named("cuMemcpyDtoHAsync", func() { cu.MemcpyDtoHAsync(s.hostOut, s.devOut, readBytes, s.stream) })
	s.busy = g
}

// pack copies the arrays of g's layout into the slot's pinned buffer, each
// array (its parts one after another) at a 16-byte boundary, sets their
// device addresses in a and returns the bytes packed. The parts are
// copied on every core: a launch's tasks are up to 256 MiB.
func (s *slot) pack(layout taskLayout, g *group, a *groupArgs) int {
	var arrays []func(p *part) []byte
	switch layout {
	case frameLayout:
		arrays = []func(p *part) []byte{bytesOf(func(p *part) []uint32 { return p.rows }),
			bytesOf(func(p *part) []uint8 { return p.weight }), bytesOf(func(p *part) []uint8 { return p.sym180 })}
	case boardLayout:
		arrays = []func(p *part) []byte{bytesOf(func(p *part) []uint32 { return p.rows }), bytesOf(func(p *part) []uint32 { return p.left }),
			bytesOf(func(p *part) []uint32 { return p.down }), bytesOf(func(p *part) []uint32 { return p.right })}
	case eightfoldLayout:
		arrays = []func(p *part) []byte{bytesOf(func(p *part) []uint64 { return p.left64 }), bytesOf(func(p *part) []uint64 { return p.right64 }),
			bytesOf(func(p *part) []uint32 { return p.down }), bytesOf(func(p *part) []uint32 { return p.meta })}
	}
	host := unsafe.Slice((*byte)(s.host), s.bytes)
	var copies []func()
	off := 0
	starts := make([]devPtr, len(arrays))
	for i, array := range arrays {
		starts[i] = devPtr(s.dev) + devPtr(off)
		for _, p := range g.parts {
			src, at := array(p), off
			copies = append(copies, func() { copy(host[at:], src) })
			off += len(src)
		}
		off = (off + 15) &^ 15
	}
	runAll(copies)
	a.setArrays(layout, starts)
	return off
}

// bytesOf turns an array of a part into its bytes in memory.
func bytesOf[T uint8 | uint32 | uint64](array func(p *part) []T) func(p *part) []byte {
	return func(p *part) []byte {
		a := array(p)
		if len(a) == 0 {
			return nil
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), len(a)*int(unsafe.Sizeof(a[0])))
	}
}

// reserve makes the slot's task buffers hold at least bytes: they start
// empty and grow to the groups the planner makes (at least 4 times, as
// the first groups double, in whole MiB, up to slotBytes and a little),
// so that a small count pins no more memory than its tasks need. The slot
// must not be busy.
func (s *slot) reserve(bytes int64) {
	if bytes <= s.bytes {
		return
	}
	bytes = max(bytes, min(4*s.bytes, slotBytes+256))
	bytes = (bytes + 1<<20 - 1) &^ (1<<20 - 1)
	if s.host != nil {
		named("cuMemFreeHost", func() { cu.MemFreeHost(s.host) })
		s.host = nil
	}
	if s.dev != 0 {
		named("cuMemFree", func() { cu.MemFree(s.dev) })
		s.dev = 0
	}
	s.bytes = 0
	named("cuMemAllocHost", func() { s.host = cu.MemAllocHost(bytes) })
	notNil("cuMemAllocHost", s.host)
	named("cuMemAlloc", func() { s.dev = cu.MemAlloc(bytes) })
	notNull("cuMemAlloc", s.dev)
	s.bytes = bytes
}

// free releases the slot's buffers and stream. It runs also after a
// failed driver call, when the context may be unusable: a failed call
// here is ignored (only the driver's *Error; any other panic is a bug and
// goes on).
func (s *slot) free() {
	try := func(f func()) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(*Error); !ok {
					panic(r)
				}
			}
		}()
		f()
	}
	if s.stream != 0 {
		try(func() { named("cuStreamSynchronize", func() { s.stream.Synchronize() }) })
		try(func() { named("cuStreamDestroy", func() { s.stream.Destroy() }) })
	}
	if s.host != nil {
		try(func() { named("cuMemFreeHost", func() { cu.MemFreeHost(s.host) }) })
	}
	if s.hostOut != nil {
		try(func() { named("cuMemFreeHost", func() { cu.MemFreeHost(s.hostOut) }) })
	}
	if s.dev != 0 {
		try(func() { named("cuMemFree", func() { cu.MemFree(s.dev) }) })
	}
	if s.devOut != 0 {
		try(func() { named("cuMemFree", func() { cu.MemFree(s.devOut) }) })
	}
}
