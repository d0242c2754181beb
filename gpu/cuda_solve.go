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
	tune := launchTuning{kernel: kernel, threads: opt.Threads, target: opt.LaunchTime, nodes: opt.Nodes != nil}
	if tune.threads == 0 {
		tune.threads = DefaultThreads
		// Without a block size asked for, blocks of stacks in shared
		// memory shrink to fit (the eightfold stacks of N=28).
		for kernel.sharedBytes != nil && tune.threads > 32 && kernel.sharedBytes(n, depth, tune.threads) > MaxSharedStack {
			tune.threads -= 32
		}
	}
	if kernel.sharedBytes != nil {
		tune.sharedBytes = kernel.sharedBytes(n, depth, tune.threads)
		if tune.sharedBytes > MaxSharedStack {
			return nq.Partial{}, fmt.Errorf("gpu: shared-memory stacks of %d threads need %d bytes at N=%d, depth %d, more than %d: use fewer threads per block",
				tune.threads, tune.sharedBytes, n, depth, MaxSharedStack)
		}
	}
	if tune.target == 0 {
		tune.target = DefaultLaunchTime
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
	err = b.ctx.Do(fmt.Sprintf("count N=%d with the %s kernel", n, algo), func() {
		sum, nodes = b.consume(pctx, n, depth, perTask, capTasks, tune, &target, groups, opt.Done)
	})
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
	sharedBytes int  // dynamic shared memory per block (kernel.sharedBytes)
	nodes       bool // the kernel's _nodes twin
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
	hostOut unsafe.Pointer // pinned: 3 counters
	dev     cu.DevicePtr   // the task arrays
	devOut  cu.DevicePtr   // 3 counters
	bytes   int64
	busy    *group // launched, not yet read back
}

// consume runs on the context's thread: it launches each group and reads
// the results back, two slots deep, and returns the partial sums and the
// nodes (zero unless tune.nodes). A driver failure panics (cu's way) and
// Do turns it into the error of the solve.
func (b *Backend) consume(ctx context.Context, n, depth, perTask, capTasks int, tune launchTuning,
	target *atomic.Int64, groups <-chan *group, done func([]int, nq.Partial)) (nq.Partial, uint64) {
	kernel := kernelFunc(b.ctx.Function(tune.kernelName()))
	// A fetching kernel's grid fills the GPU once: as many blocks as its
	// SMs keep resident (2048 threads each), or fewer for a small launch.
	resident := max(1, b.info.SMs) * max(1, 2048/tune.threads)
	plan := newLaunchPlanner(resident*tune.threads, capTasks, tune.target)
	target.Store(int64(plan.next()))
	var slots [2]slot
	defer func() {
		for i := range slots {
			slots[i].free()
		}
	}()
	for i := range slots {
		s := &slots[i]
		s.stream = cu.StreamCreate()
		s.bytes = int64(perTask)*int64(capTasks) + 256 // + alignment padding
		s.host = cu.MemAllocHost(s.bytes)
		s.hostOut = cu.MemAllocHost(outCounts * 8)
		s.dev = cu.MemAlloc(s.bytes)
		s.devOut = cu.MemAlloc(outBytes)
	}

	var sum nq.Partial
	var nodes uint64
	lastEnd := time.Now()
	finish := func(s *slot) {
		if s.busy == nil {
			return
		}
		s.stream.Synchronize()
		out := unsafe.Slice((*uint64)(s.hostOut), outCounts)
		p := nq.Partial{0, out[0], out[1], out[2]}
		sum.Add(p)
		nodes += out[3]
		if done != nil {
			done(s.busy.batches, p)
		}
		// Size the next launches from this one (launchPlanner).
		now := time.Now()
		plan.observe(s.busy.count, now.Sub(lastEnd))
		lastEnd = now
		target.Store(int64(plan.next()))
		s.busy = nil
	}
	next := 0
	for g := range groups {
		if ctx.Err() != nil {
			break
		}
		s := &slots[next]
		next ^= 1
		finish(s)
		s.launch(kernel, tune, resident, n, depth, g)
	}
	finish(&slots[next])
	finish(&slots[next^1])
	return sum, nodes
}

// launch copies g into the slot's buffers and queues the copies, the
// kernel (through its wrapper, tune.kernel.launch) and the read-back on the
// slot's stream.
func (s *slot) launch(kernel kernelFunc, tune launchTuning, resident, n, depth int, g *group) {
	threads := tune.threads
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
	cu.MemsetD32Async(s.devOut, 0, outBytes/4, s.stream) // counters and next

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
		a.frames = int32(efFrames(n, depth))
	}
	cu.MemcpyHtoDAsync(s.dev, s.host, int64(off), s.stream)
	shape := launchShape{blocks: (g.count + threads - 1) / threads, threads: threads, sharedBytes: tune.sharedBytes}
	if tune.kernel.fetch {
		shape.blocks = min(shape.blocks, resident)
	}
	tune.kernel.launch(streamLauncher(s.stream), kernel, shape, &a)
	cu.MemcpyDtoHAsync(s.hostOut, s.devOut, outCounts*8, s.stream)
	s.busy = g
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
