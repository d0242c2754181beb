package gpu

import (
	"sync"
	"unsafe"
)

// nq_eightfold (kernels/eightfold.cu): the eightfold search, Total alone;
// threads take tasks from the counter next until none is left, their
// stacks in dynamic shared memory.

// eightfoldArgs is the argument block of nq_eightfold and its _nodes twin.
type eightfoldArgs struct {
	count                   int32
	left, right, down, meta devPtr
	out, next               devPtr
	argptr                  [7]unsafe.Pointer
	sync.Mutex
}

var eightfold eightfoldArgs

func init() {
	a := &eightfold
	a.argptr = [...]unsafe.Pointer{unsafe.Pointer(&a.count),
		unsafe.Pointer(&a.left), unsafe.Pointer(&a.right), unsafe.Pointer(&a.down), unsafe.Pointer(&a.meta),
		unsafe.Pointer(&a.out), unsafe.Pointer(&a.next)}
}

// launchEightfold queues nq_eightfold (or its twin: f) with l.
func launchEightfold(l launcher, f kernelFunc, shape launchShape,
	count int32, left, right, down, meta, out, next devPtr) {
	a := &eightfold
	a.Lock()
	defer a.Unlock()
	a.count = count
	a.left, a.right, a.down, a.meta, a.out, a.next = left, right, down, meta, out, next
	l.launch(f, shape, a.argptr[:])
}

// eightfoldLaunch is launchEightfold for the registry.
func eightfoldLaunch(l launcher, f kernelFunc, shape launchShape, g *groupArgs) {
	launchEightfold(l, f, shape, g.count, g.left, g.right, g.down, g.meta, g.out, g.next)
}
