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
//     about Options.LaunchTime of kernel time each.
//   - The context's thread takes the groups in turn and alternates between
//     two slots, each with pinned host buffers, device buffers, its own
//     stream and its own three device counters. While one slot's copies
//     and kernel run, the other slot's results are read back and the
//     producer packs the next group, so enumeration, transfers and the
//     kernels overlap. Launches aim at Options.LaunchTime of kernel time
//     each, one task per thread, Options.Threads threads per block.
//   - After each launch the host reads back three 64-bit counters (the
//     kernels reduce C2/C4/C8, or the weighted W2/W4/W8, on the device)
//     and reports them with the launch's batch indexes to Options.Done.

const (
	// firstLaunch is the size of the first launches, before the
	// throughput is known.
	firstLaunch = 1 << 14
	// slotBytes bounds one slot's task buffers, which caps the tasks per
	// launch.
	slotBytes = 96 << 20
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
	if !Supports(algo) {
		return nq.Partial{}, fmt.Errorf("gpu: algorithm %s has no GPU kernel (GPU kernels: symmetry, carrychain)", algo)
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
	tune := launchTuning{threads: opt.Threads, target: opt.LaunchTime,
		dynamic: (opt.Dynamic || opt.SharedStack) && algo == nq.Symmetry,
		shared:  opt.SharedStack && algo == nq.Symmetry, nodes: opt.Nodes != nil}
	if tune.threads == 0 {
		tune.threads = DefaultThreads
	}
	if tune.shared {
		if err := CheckSharedStack(n, depth, tune.threads); err != nil {
			return nq.Partial{}, fmt.Errorf("gpu: %w", err)
		}
		tune.sharedBytes = 4 * SymWords(n, depth) * tune.threads
	}
	if tune.target == 0 {
		tune.target = DefaultLaunchTime
	}
	if err := ctx.Err(); err != nil {
		return nq.Partial{}, err
	}

	words := depth // row words per task
	perTask := 4 * (depth + 3)
	if algo == nq.CarryChain {
		words = n
		perTask = 4*n + 2
	}
	capTasks := slotBytes / perTask

	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var target atomic.Int64 // tasks per launch
	target.Store(firstLaunch)
	groups := make(chan *group, 2)
	prodErr := make(chan error, 1)
	go func() {
		defer close(groups)
		prodErr <- produce(pctx, n, algo, depth, batch, words, capTasks, &target, opt.Select, groups)
	}()

	var sum nq.Partial
	var nodes uint64
	err := b.ctx.Do(fmt.Sprintf("count N=%d with the %s kernel", n, algo), func() {
		sum, nodes = b.consume(pctx, n, algo, depth, words, perTask, capTasks, tune, &target, groups, opt.Done)
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

// launchTuning is the kernel variant, the block size and the kernel time
// per launch.
type launchTuning struct {
	threads     int
	target      time.Duration
	dynamic     bool // nq_symmetry_boards_dyn: persistent threads, shared counter
	shared      bool // nq_symmetry_boards_smem: as dynamic, stacks in shared memory
	sharedBytes int  // the smem kernel's dynamic shared memory per block
	nodes       bool // the _nodes kernels (kernels/nodes.cu)
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

// kernelName is the kernel that algo runs with tune.
func kernelName(algo nq.Algo, tune launchTuning) string {
	name := "nq_symmetry_boards"
	switch {
	case algo == nq.CarryChain:
		name = "nq_carry_frames"
	case tune.shared:
		name = "nq_symmetry_boards_smem"
	case tune.dynamic:
		name = "nq_symmetry_boards_dyn"
	}
	if tune.nodes {
		name += "_nodes"
	}
	return name
}

// consume runs on the context's thread: it launches each group and reads
// the results back, two slots deep, and returns the partial sums and the
// nodes (zero unless tune.nodes). A driver failure panics (cu's way) and
// Do turns it into the error of the solve.
func (b *Backend) consume(ctx context.Context, n int, algo nq.Algo, depth, words, perTask, capTasks int, tune launchTuning,
	target *atomic.Int64, groups <-chan *group, done func([]int, nq.Partial)) (nq.Partial, uint64) {
	kernel := b.ctx.Function(kernelName(algo, tune))
	// The dynamic kernel's grid fills the GPU once: as many blocks as its
	// SMs keep resident (2048 threads each), or fewer for a small launch.
	resident := max(1, b.info.SMs) * max(1, 2048/tune.threads)
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
	var tasksDone int64
	var gpuTime time.Duration
	started := time.Now()
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
		// Aim the next launches at the launch time from the throughput so far.
		tasksDone += int64(s.busy.count)
		gpuTime = time.Since(started)
		if gpuTime > 0 {
			t := int64(float64(tasksDone) * tune.target.Seconds() / gpuTime.Seconds())
			target.Store(min(max(t, 1<<12), int64(capTasks)))
		}
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
		s.launch(kernel, tune, resident, n, algo, depth, words, g)
	}
	finish(&slots[next])
	finish(&slots[next^1])
	return sum, nodes
}

// launch copies g into the slot's buffers and queues the copies, the
// kernel and the read-back on the slot's stream.
func (s *slot) launch(kernel cu.Function, tune launchTuning, resident, n int, algo nq.Algo, depth, words int, g *group) {
	threads := tune.threads
	host := unsafe.Slice((*byte)(s.host), s.bytes)
	off := 0
	put32 := func(src []uint32) cu.DevicePtr {
		at := off
		off += copy(unsafe.Slice((*uint32)(unsafe.Pointer(&host[at])), len(src)), src) * 4
		off = (off + 15) &^ 15
		return s.dev + cu.DevicePtr(at)
	}
	put8 := func(src []uint8) cu.DevicePtr {
		at := off
		off += copy(host[at:], src)
		off = (off + 15) &^ 15
		return s.dev + cu.DevicePtr(at)
	}
	blocks := (g.count + threads - 1) / threads
	cu.MemsetD32Async(s.devOut, 0, outBytes/4, s.stream) // counters and next

	if algo == nq.CarryChain {
		rows := put32(g.rows)
		weight := put8(g.weight)
		sym := put8(g.sym180)
		cu.MemcpyHtoDAsync(s.dev, s.host, int64(off), s.stream)
		LaunchOn(s.stream, kernel, blocks, threads, 0,
			int32(n), int32(g.count), rows, weight, sym, s.devOut)
	} else {
		rows := put32(g.rows)
		left := put32(g.left)
		down := put32(g.down)
		right := put32(g.right)
		cu.MemcpyHtoDAsync(s.dev, s.host, int64(off), s.stream)
		if tune.dynamic {
			LaunchOn(s.stream, kernel, min(blocks, resident), threads, tune.sharedBytes,
				int32(n), int32(depth), int32(g.count), rows, left, down, right, s.devOut, s.devOut+nextOffset)
		} else {
			LaunchOn(s.stream, kernel, blocks, threads, 0,
				int32(n), int32(depth), int32(g.count), rows, left, down, right, s.devOut)
		}
	}
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
