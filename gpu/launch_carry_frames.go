package gpu

import (
	"sync"
	"unsafe"
)

// nq_carry_frames (kernels/frames.cu): the carry-chain inner search, one
// frame per thread, grid-stride.

// carryFramesArgs is the argument block of nq_carry_frames and its _nodes
// twin.
type carryFramesArgs struct {
	n, count             int32
	rows, weight, sym180 devPtr
	out                  devPtr
	argptr               [6]unsafe.Pointer
	sync.Mutex
}

var carryFrames carryFramesArgs

func init() {
	a := &carryFrames
	a.argptr = [...]unsafe.Pointer{unsafe.Pointer(&a.n), unsafe.Pointer(&a.count),
		unsafe.Pointer(&a.rows), unsafe.Pointer(&a.weight), unsafe.Pointer(&a.sym180), unsafe.Pointer(&a.out)}
}

// launchCarryFrames queues nq_carry_frames (or its twin: f) with l.
func launchCarryFrames(l launcher, f kernelFunc, shape launchShape,
	n, count int32, rows, weight, sym180, out devPtr) {
	a := &carryFrames
	a.Lock()
	defer a.Unlock()
	a.n, a.count = n, count
	a.rows, a.weight, a.sym180, a.out = rows, weight, sym180, out
	l.launch(f, shape, a.argptr[:])
}

// carryFramesLaunch is launchCarryFrames for the registry.
func carryFramesLaunch(l launcher, f kernelFunc, shape launchShape, g *groupArgs) {
	launchCarryFrames(l, f, shape, g.n, g.count, g.rows, g.weight, g.sym180, g.out)
}
