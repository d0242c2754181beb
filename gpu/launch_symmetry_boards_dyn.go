package gpu

import (
	"sync"
	"unsafe"
)

// nq_symmetry_boards_dyn (kernels/boards.cu): the symmetry search, threads
// take boards from the counter next until none is left.

// symmetryBoardsDynArgs is the argument block of nq_symmetry_boards_dyn
// and its _nodes twin.
type symmetryBoardsDynArgs struct {
	n, depth, count         int32
	rows, left, down, right devPtr
	out, next               devPtr
	argptr                  [9]unsafe.Pointer
	sync.Mutex
}

var symmetryBoardsDyn symmetryBoardsDynArgs

func init() {
	a := &symmetryBoardsDyn
	a.argptr = [...]unsafe.Pointer{unsafe.Pointer(&a.n), unsafe.Pointer(&a.depth), unsafe.Pointer(&a.count),
		unsafe.Pointer(&a.rows), unsafe.Pointer(&a.left), unsafe.Pointer(&a.down), unsafe.Pointer(&a.right),
		unsafe.Pointer(&a.out), unsafe.Pointer(&a.next)}
}

// launchSymmetryBoardsDyn queues nq_symmetry_boards_dyn (or its twin: f)
// with l.
func launchSymmetryBoardsDyn(l launcher, f kernelFunc, shape launchShape,
	n, depth, count int32, rows, left, down, right, out, next devPtr) {
	a := &symmetryBoardsDyn
	a.Lock()
	defer a.Unlock()
	a.n, a.depth, a.count = n, depth, count
	a.rows, a.left, a.down, a.right, a.out, a.next = rows, left, down, right, out, next
	l.launch(f, shape, a.argptr[:])
}

// symmetryBoardsDynLaunch is launchSymmetryBoardsDyn for the registry.
func symmetryBoardsDynLaunch(l launcher, f kernelFunc, shape launchShape, g *groupArgs) {
	launchSymmetryBoardsDyn(l, f, shape, g.n, g.depth, g.count, g.rows, g.left, g.down, g.right, g.out, g.next)
}
