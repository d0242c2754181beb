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
//     batches (the same numbering as the CPU backend), drops the batches
//     Options.Select rejects, and packs the rest into launch groups of
//     the size launchPlanner gives (launchplan.go): many tasks for every
//     resident thread, more where Options.LaunchTime of kernel time runs
//     more.
//   - The context's thread takes the groups in turn and alternates between
//     two slots, each with pinned host buffers, device buffers, its own
//     stream and its own three device counters. While one slot's copies
//     and kernel run, the other slot's results are read back and the
//     producer packs the next group, so enumeration, transfers and the
//     kernels overlap. Options.Threads threads per block.
//   - After each launch the host reads back three 64-bit counters (the
//     kernels reduce C2/C4/C8, or the weighted W2/W4/W8, on the device)
//     and reports them with the launch's batch indexes to Options.Done.

const (
	// outBytes is a slot's device results: four 64-bit counters (C2, C4,
	// C8 and, for the _nodes kernels, the nodes), then the dynamic
	// kernels' 32-bit board counter at nextOffset (and padding).
	outBytes   = 48
	nextOffset = 32
	outCounts  = 4
	// readBytes is what a launch copies back: the counters and next.
	readBytes = nextOffset + 8
)

// SolvePartial searches the task batches that opt selects and returns
// their summed partials (see nq.Reduce). A board too small to split
// (nq.Spec.Whole) has no task batches: the job counts it.
func (b *Backend) SolvePartial(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Partial, error) {
	v, explicit := opt.variant()
	kernel, err := lookupKernel(algo, v, explicit)
	if err != nil {
		return nq.Partial{}, fmt.Errorf("gpu: %w", err)
	}
	spec := nq.Spec{N: n, Algo: algo, Depth: opt.Depth, Batch: opt.Batch}.Normalize()
	if err := spec.Validate(); err != nil {
		return nq.Partial{}, fmt.Errorf("gpu: %w", err)
	}
	if spec.Whole() {
		return nq.Partial{}, fmt.Errorf("gpu: N=%d -algo %s is counted whole by the job, not in task batches", n, algo)
	}
	depth, batch := spec.Depth, spec.Batch
	if err := CheckTuning(opt.Threads, opt.LaunchTime); err != nil {
		return nq.Partial{}, fmt.Errorf("gpu: %w", err)
	}
	// The launch time aims long enough to hide launch and copy costs and
	// short enough that a cancelled run stops promptly and no launch comes
	// near a display watchdog.
	tune := launchTuning{kernel: kernel, target: opt.LaunchTime, nodes: opt.Nodes != nil, trace: opt.Trace, start: time.Now()}
	if tune.target == 0 {
		tune.target = DefaultLaunchTime
	}
	// The block size and its shared memory (the stacks, for the kernels
	// that keep them there): the kernel's own shared memory and the GPU's
	// limit come from the driver. Without a block size asked for, blocks
	// shrink to fit (the eightfold stacks of N=28 on a GPU without the
	// opt-in).
	var fitErr error
	err = b.ctx.Do("size the launches of "+tune.kernelName(), func() {
		tune.shared = b.ctx.sharedShapeOf(b.ctx.Function(tune.kernelName()))
		tune.threads, tune.sharedBytes, fitErr = fitShared(kernel.sharedBytes, n, depth, opt.Threads, tune.shared)
	})
	if err == nil && fitErr != nil {
		err = fmt.Errorf("gpu: %w", fitErr)
	}
	if err != nil {
		return nq.Partial{}, err
	}
	if err := ctx.Err(); err != nil {
		return nq.Partial{}, err
	}

	words := depth // row words per task
	perTask := 4 * (depth + 3)
	switch kernel.layout {
	case frameLayout:
		words = n
		perTask = 4*n + 2
	case eightfoldLayout:
		words = 0
		perTask = 8 + 8 + 4 + 4 // left, right, down, meta
	}
	capTasks := slotBytes / perTask
	if opt.MaxTasks > 0 {
		capTasks = min(capTasks, opt.MaxTasks)
	}

	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var target atomic.Int64 // tasks per launch: consume's launchPlanner
	target.Store(int64(firstGroupTasks(b.info.SMs, capTasks)))
	groups := make(chan *group, 2)
	prodErr := make(chan error, 1)
	go func() {
		defer close(groups)
		prodErr <- produce(pctx, n, algo, depth, batch, words, capTasks, &target, opt.Select, groups)
	}()

	var sum nq.Partial
	var nodes uint64
	var consumeErr error
	err = b.ctx.Do(fmt.Sprintf("count N=%d with %s", n, tune.kernelName()), func() {
		sum, nodes, consumeErr = b.consume(pctx, n, depth, perTask, capTasks, tune, &target, groups, opt.Done)
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
		return nq.Partial{}, err
	}
	if opt.Nodes != nil {
		*opt.Nodes += nodes
	}
	return sum, nil
}

// launchTuning is the kernel, the block size and the kernel time per
// launch.
type launchTuning struct {
	kernel      *kernelSpec
	threads     int
	target      time.Duration
	sharedBytes int         // dynamic shared memory per block (kernel.sharedBytes)
	shared      sharedShape // the kernel's static shared memory and the GPU's limit
	nodes       bool        // the kernel's _nodes twin
	trace       func(LaunchTrace)
	start       time.Time // the solve's start, for trace
}

// kernelName is the PTX entry that tune runs.
func (tune launchTuning) kernelName() string {
	if tune.nodes {
		return tune.kernel.name + "_nodes"
	}
	return tune.kernel.name
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

// consume runs on the context's thread: it launches each group and reads
// the results back, two slots deep, and returns the partial sums and the
// nodes (zero unless tune.nodes). It waits for a launch by polling its
// stream, so that a cancelled ctx ends it within pollMax whatever the
// launch's length: the launches then in flight are abandoned (their
// batches are not reported; the GPU finishes them, or the process's end
// does) and consume returns ctx's error. A fetching kernel that did not
// take all its tasks (a launch that did not run) is an error. A failed
// driver call panics with an *Error naming the call, and Do turns it into
// the error of the solve.
func (b *Backend) consume(ctx context.Context, n, depth, perTask, capTasks int, tune launchTuning,
	target *atomic.Int64, groups <-chan *group, done func([]int, nq.Partial)) (nq.Partial, uint64, error) {
	f := b.ctx.Function(tune.kernelName())
	kernel := kernelFunc(f)
	allowShared(f, tune.shared, tune.sharedBytes)
	// A fetching kernel's grid fills the GPU once: as many blocks as its
	// SMs keep resident, or fewer for a small launch.
	resident := residentBlocks(f, tune.threads, tune.sharedBytes, b.info.SMs)
	plan := newLaunchPlanner(resident*tune.threads, capTasks, tune.target)
	target.Store(int64(plan.next()))
	var slots [2]slot
	defer func() {
		for i := range slots {
			if slots[i].busy != nil {
				// Abandoned in flight: freeing would wait for it.
				b.ctx.abandon()
				continue
			}
			slots[i].free()
		}
	}()
	for i := range slots {
		s := &slots[i]
		named("cuStreamCreate", func() { s.stream = cu.StreamCreate() })
		notNull("cuStreamCreate", s.stream)
		named("cuMemAllocHost", func() { s.hostOut = cu.MemAllocHost(readBytes) })
		notNil("cuMemAllocHost", s.hostOut)
		named("cuMemAlloc", func() { s.devOut = cu.MemAlloc(outBytes) })
		notNull("cuMemAlloc", s.devOut)
	}

	var sum nq.Partial
	var nodes uint64
	lastEnd := time.Now()
	// wait waits for s's launch; false when ctx ended first.
	wait := func(s *slot) bool {
		for d := 20 * time.Microsecond; !streamDone(s.stream); d = min(2*d, pollMax) {
			if ctx.Err() != nil {
				return false
			}
			time.Sleep(d)
		}
		return true
	}
	finish := func(s *slot) error {
		if s.busy == nil {
			return nil
		}
		if !wait(s) {
			return ctx.Err()
		}
		if tune.kernel.fetch && s.busy.count > 0 {
			if taken := *(*uint32)(unsafe.Add(s.hostOut, nextOffset)); taken < uint32(s.busy.count) {
				return &Error{Op: "cuLaunchKernel " + tune.kernelName(), Detail: fmt.Sprintf(
					"returned success, but the kernel took %d of its %d tasks: the launch did not run (is the driver library a stub?)", taken, s.busy.count)}
			}
		}
		out := unsafe.Slice((*uint64)(s.hostOut), outCounts)
		p := nq.Partial{0, out[0], out[1], out[2]}
		sum.Add(p)
		nodes += out[3]
		if done != nil {
			done(s.busy.batches, p)
		}
		// Size the next launches from this one (launchPlanner).
		now := time.Now()
		if tune.trace != nil {
			tune.trace(LaunchTrace{Device: b.info.Ordinal, N: n, Launch: s.index, Tasks: s.busy.count, Batches: len(s.busy.batches),
				Packed: s.busy.packed.Sub(tune.start), Queued: s.queued.Sub(tune.start), Done: now.Sub(tune.start)})
		}
		plan.observe(s.busy.count, now.Sub(lastEnd))
		lastEnd = now
		target.Store(int64(plan.next()))
		s.busy = nil
		return nil
	}
	next, launches := 0, 0
	for g := range groups {
		if ctx.Err() != nil {
			break
		}
		s := &slots[next]
		next ^= 1
		if err := finish(s); err != nil {
			return sum, nodes, err
		}
		s.launch(kernel, tune, resident, n, depth, perTask, g)
		s.queued, s.index = time.Now(), launches
		launches++
	}
	for _, s := range []*slot{&slots[next], &slots[next^1]} {
		if err := finish(s); err != nil {
			return sum, nodes, err
		}
	}
	return sum, nodes, ctx.Err()
}

// launch copies g into the slot's buffers and queues the copies, the
// kernel (through its wrapper, tune.kernel.launch) and the read-back on the
// slot's stream.
func (s *slot) launch(kernel kernelFunc, tune launchTuning, resident, n, depth, perTask int, g *group) {
	threads := tune.threads
	s.reserve(int64(perTask)*int64(g.count) + 256) // + alignment padding
	host := unsafe.Slice((*byte)(s.host), s.bytes)
	off := 0
	put32 := func(src []uint32) devPtr {
		at := off
		off += copy(unsafe.Slice((*uint32)(unsafe.Pointer(&host[at])), len(src)), src) * 4
		off = (off + 15) &^ 15
		return devPtr(s.dev) + devPtr(at)
	}
	put64 := func(src []uint64) devPtr {
		at := off
		off += copy(unsafe.Slice((*uint64)(unsafe.Pointer(&host[at])), len(src)), src) * 8
		off = (off + 15) &^ 15
		return devPtr(s.dev) + devPtr(at)
	}
	put8 := func(src []uint8) devPtr {
		at := off
		off += copy(host[at:], src)
		off = (off + 15) &^ 15
		return devPtr(s.dev) + devPtr(at)
	}
	named("cuMemsetD32Async", func() { cu.MemsetD32Async(s.devOut, 0, outBytes/4, s.stream) }) // counters and next

	a := groupArgs{n: int32(n), depth: int32(depth), count: int32(g.count),
		out: devPtr(s.devOut), next: devPtr(s.devOut) + nextOffset}
	switch tune.kernel.layout {
	case frameLayout:
		a.rows = put32(g.rows)
		a.weight = put8(g.weight)
		a.sym180 = put8(g.sym180)
	case boardLayout:
		a.rows = put32(g.rows)
		a.left = put32(g.left)
		a.down = put32(g.down)
		a.right = put32(g.right)
	case eightfoldLayout:
		a.left = put64(g.left64)
		a.right = put64(g.right64)
		a.down = put32(g.down)
		a.meta = put32(g.meta)
	}
	named("cuMemcpyHtoDAsync", func() { cu.MemcpyHtoDAsync(s.dev, s.host, int64(off), s.stream) })
	shape := launchShape{blocks: (g.count + threads - 1) / threads, threads: threads, sharedBytes: tune.sharedBytes}
	if tune.kernel.fetch {
		shape.blocks = min(shape.blocks, resident)
	}
	tune.kernel.launch(streamLauncher(s.stream), kernel, shape, &a)
	named("cuMemcpyDtoHAsync", func() { cu.MemcpyDtoHAsync(s.hostOut, s.devOut, readBytes, s.stream) })
	s.busy = g
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

// free releases the slot's buffers and stream; it runs also after a
// failed driver call, so its own failures are ignored.
func (s *slot) free() {
	try := func(f func()) {
		defer func() { _ = recover() }()
		f()
	}
	if s.stream != 0 {
		try(func() { s.stream.Synchronize() })
		try(func() { s.stream.Destroy() })
	}
	if s.host != nil {
		try(func() { cu.MemFreeHost(s.host) })
	}
	if s.hostOut != nil {
		try(func() { cu.MemFreeHost(s.hostOut) })
	}
	if s.dev != 0 {
		try(func() { cu.MemFree(s.dev) })
	}
	if s.devOut != 0 {
		try(func() { cu.MemFree(s.devOut) })
	}
}
