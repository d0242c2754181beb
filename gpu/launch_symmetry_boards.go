package gpu

import (
	"sync"
	"unsafe"
)

// nq_symmetry_boards (kernels/boards.cu): the symmetry search, one board
// per thread, grid-stride.

// symmetryBoardsArgs is the argument block of nq_symmetry_boards and its
// _nodes twin.
type symmetryBoardsArgs struct {
	n, depth, count         int32
	rows, left, down, right devPtr
	out                     devPtr
	argptr                  [8]unsafe.Pointer
	sync.Mutex
}

var symmetryBoards symmetryBoardsArgs

func init() {
	a := &symmetryBoards
	a.argptr = [...]unsafe.Pointer{unsafe.Pointer(&a.n), unsafe.Pointer(&a.depth), unsafe.Pointer(&a.count),
		unsafe.Pointer(&a.rows), unsafe.Pointer(&a.left), unsafe.Pointer(&a.down), unsafe.Pointer(&a.right),
		unsafe.Pointer(&a.out)}
}

// launchSymmetryBoards queues nq_symmetry_boards (or its twin: f) with l.
func launchSymmetryBoards(l launcher, f kernelFunc, shape launchShape,
	n, depth, count int32, rows, left, down, right, out devPtr) {
	a := &symmetryBoards
	a.Lock()
	defer a.Unlock()
	a.n, a.depth, a.count = n, depth, count
	a.rows, a.left, a.down, a.right, a.out = rows, left, down, right, out
	l.launch(f, shape, a.argptr[:])
}

// symmetryBoardsLaunch is launchSymmetryBoards for the registry.
func symmetryBoardsLaunch(l launcher, f kernelFunc, shape launchShape, g *groupArgs) {
	launchSymmetryBoards(l, f, shape, g.n, g.depth, g.count, g.rows, g.left, g.down, g.right, g.out)
}
