package gpu

import (
	"sync"
	"unsafe"
)

// nq_eightfold_static (kernels/eightfold.cu): the eightfold search, one
// task per thread, grid-stride, the stacks in dynamic shared memory.

// eightfoldStaticArgs is the argument block of nq_eightfold_static and its
// _nodes twin.
type eightfoldStaticArgs struct {
	count                   int32
	left, right, down, meta devPtr
	out                     devPtr
	argptr                  [6]unsafe.Pointer
	sync.Mutex
}

var eightfoldStatic eightfoldStaticArgs

func init() {
	a := &eightfoldStatic
	a.argptr = [...]unsafe.Pointer{unsafe.Pointer(&a.count),
		unsafe.Pointer(&a.left), unsafe.Pointer(&a.right), unsafe.Pointer(&a.down), unsafe.Pointer(&a.meta),
		unsafe.Pointer(&a.out)}
}

// launchEightfoldStatic queues nq_eightfold_static (or its twin: f) with l.
func launchEightfoldStatic(l launcher, f kernelFunc, shape launchShape,
	count int32, left, right, down, meta, out devPtr) {
	a := &eightfoldStatic
	a.Lock()
	defer a.Unlock()
	a.count = count
	a.left, a.right, a.down, a.meta, a.out = left, right, down, meta, out
	l.launch(f, shape, a.argptr[:])
}

// eightfoldStaticLaunch is launchEightfoldStatic for the registry.
func eightfoldStaticLaunch(l launcher, f kernelFunc, shape launchShape, g *groupArgs) {
	launchEightfoldStatic(l, f, shape, g.count, g.left, g.right, g.down, g.meta, g.out)
}
