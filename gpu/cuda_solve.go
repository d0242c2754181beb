//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mumax/3/cuda/cu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// How a solve runs on the GPU:
//
//   - A producer goroutine enumerates the tasks on the CPU in numbered
//     batches (the same numbering as the CPU backend), drops those sel
//     rejects, and packs the rest into launch groups of the size the
//     launchPlanner gives (launchplan.go).
//   - The context's thread (consume) takes the groups in turn and
//     alternates between two slots, each with pinned host buffers, device
//     buffers, its own stream and its own device counters, so that
//     enumeration, transfers and kernels overlap.
//   - After each launch the host reads back a few 64-bit counters (the
//     kernels reduce them on the device) and reports them with the
//     launch's batch indexes to done.

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
	groupTasks  atomic.Int64
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
	v, explicit := b.tune.variant()
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
	s.groupTasks.Store(int64(firstGroupTasks(b.info.SMs, s.capTasks)))
	return s, nil
}

// taskBytes is the bytes of one task of spec in a slot.
func taskBytes(layout taskLayout, spec nq.Spec) int {
	switch layout {
	case frameLayout:
		return 4*spec.N + 2
	case eightfoldLayout:
		return 8 + 8 + 4 + 4 // left, right, down, meta
	}
	return 4 * (spec.Depth + 3)
}

// size chooses the block size and its shared memory (the stacks, for the
// kernels that keep them there) from the kernel's own shared memory and
// the GPU's limit; without a block size asked for, blocks shrink to fit.
// It runs on the context's thread and panics with an *Error.
func (s *solve) size() {
	s.shared = s.b.ctx.sharedShapeOf(s.b.ctx.Function(s.kernelName()))
	var err error
	s.threads, s.sharedBytes, err = fitShared(s.kernel.sharedBytes, s.spec.N, s.spec.Depth, s.b.tune.Threads, s.shared)
	if err != nil {
		panic(&Error{Op: "size the launches of " + s.kernelName(), Detail: err.Error()})
	}
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
	groups := make(chan *group, 2)
	prodErr := make(chan error, 1)
	go func() {
		defer close(groups)
		p := producer{spec: s.spec, capTasks: s.capTasks, target: &s.groupTasks, sel: s.sel}
		prodErr <- p.run(pctx, groups)
	}()
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

// consumer launches a solve's groups on the context's thread, two slots
// deep, and reads their results back.
type consumer struct {
	*solve
	fn       cu.Function
	resident int // blocks the GPU keeps resident, for a fetching kernel's grid
	plan     *launchPlanner
	slots    [2]slot
	nodes    uint64
	lastEnd  time.Time
	launches int
}

// consume launches each group of groups and reports its results. It waits
// for a launch by polling its stream, so that a cancelled ctx ends it
// within pollMax whatever the launch's length: the launches then in flight
// are abandoned (their batches are not reported) and consume returns
// ctx's error. A failed driver call panics with an *Error naming the call,
// and Context.Do turns it into the error of the solve.
func (c *consumer) consume(ctx context.Context, groups <-chan *group) error {
	c.setup()
	defer c.release()
	next := 0
	for g := range groups {
		if ctx.Err() != nil {
			break
		}
		s := &c.slots[next]
		next ^= 1
		if err := c.finish(ctx, s); err != nil {
			return err
		}
		s.launch(kernelFunc(c.fn), c.solve, c.resident, g)
		s.queued, s.index = time.Now(), c.launches
		c.launches++
	}
	for _, s := range []*slot{&c.slots[next], &c.slots[next^1]} {
		if err := c.finish(ctx, s); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// setup looks the kernel up, allows its shared memory, sizes a fetching
// kernel's grid (as many blocks as the SMs keep resident) and the planner,
// and makes the slots' streams and counters.
func (c *consumer) setup() {
	c.fn = c.b.ctx.Function(c.kernelName())
	allowShared(c.fn, c.shared, c.sharedBytes)
	c.resident = residentBlocks(c.fn, c.threads, c.sharedBytes, c.b.info.SMs)
	c.plan = newLaunchPlanner(c.resident*c.threads, c.capTasks, c.target)
	c.groupTasks.Store(int64(c.plan.next()))
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

// wait waits for s's launch; false when ctx ended first.
func (c *consumer) wait(ctx context.Context, s *slot) bool {
	for d := 20 * time.Microsecond; !streamDone(s.stream); d = min(2*d, pollMax) {
		if ctx.Err() != nil {
			return false
		}
		time.Sleep(d)
	}
	return true
}

// finish waits for s's launch, if it has one, reports its counts and
// sizes the next launches from it. A fetching kernel that did not take
// all its tasks (a launch that did not run) is an error.
func (c *consumer) finish(ctx context.Context, s *slot) error {
	if s.busy == nil {
		return nil
	}
	if !c.wait(ctx, s) {
		return ctx.Err()
	}
	if c.kernel.fetch && s.busy.count > 0 {
		if taken := *(*uint32)(unsafe.Add(s.hostOut, nextOffset)); taken < uint32(s.busy.count) {
			return &Error{Op: "cuLaunchKernel " + c.kernelName(), Detail: fmt.Sprintf(
				"returned success, but the kernel took %d of its %d tasks: the launch did not run (is the driver library a stub?)", taken, s.busy.count)}
		}
	}
	out := unsafe.Slice((*uint64)(s.hostOut), outCounts)
	c.nodes += out[3]
	if c.done != nil {
		c.done(s.busy.batches, nq.Partial{0, out[0], out[1], out[2]})
	}
	now := time.Now()
	if t := c.b.tune.Trace; t != nil {
		t(LaunchTrace{Device: c.b.info.Ordinal, N: c.spec.N, Launch: s.index, Tasks: s.busy.count, Batches: len(s.busy.batches),
			Packed: s.busy.packed.Sub(c.start), Queued: s.queued.Sub(c.start), Done: now.Sub(c.start)})
	}
	c.plan.observe(s.busy.count, now.Sub(c.lastEnd))
	c.lastEnd = now
	c.groupTasks.Store(int64(c.plan.next()))
	s.busy = nil
	return nil
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
// at a 16-byte boundary, sets their device addresses in a and returns the
// bytes packed.
func (s *slot) pack(layout taskLayout, g *group, a *groupArgs) int {
	host := unsafe.Slice((*byte)(s.host), s.bytes)
	off := 0
	at := func(n int) devPtr {
		p := devPtr(s.dev) + devPtr(off)
		off = (off + n + 15) &^ 15
		return p
	}
	switch layout {
	case frameLayout:
		a.rows = at(put(host[off:], g.rows))
		a.weight = at(put(host[off:], g.weight))
		a.sym180 = at(put(host[off:], g.sym180))
	case boardLayout:
		a.rows = at(put(host[off:], g.rows))
		a.left = at(put(host[off:], g.left))
		a.down = at(put(host[off:], g.down))
		a.right = at(put(host[off:], g.right))
	case eightfoldLayout:
		a.left = at(put(host[off:], g.left64))
		a.right = at(put(host[off:], g.right64))
		a.down = at(put(host[off:], g.down))
		a.meta = at(put(host[off:], g.meta))
	}
	return off
}

// put copies src into the start of dst, as its bytes in memory, and
// returns their number.
func put[T uint8 | uint32 | uint64](dst []byte, src []T) int {
	if len(src) == 0 {
		return 0
	}
	n := len(src) * int(unsafe.Sizeof(src[0]))
	return copy(dst, unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), n))
}

// reserve makes the slot's task buffers hold at least bytes: they start
// empty and grow to the groups the planner makes (at least doubling, in
// whole MiB, up to slotBytes and a little), so that a small count pins no
// more memory than its tasks need. The slot must not be busy.
func (s *slot) reserve(bytes int64) {
	if bytes <= s.bytes {
		return
	}
	bytes = max(bytes, min(2*s.bytes, slotBytes+256))
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
