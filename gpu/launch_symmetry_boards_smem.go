package gpu

import (
	"sync"
	"unsafe"
)

// nq_symmetry_boards_smem (kernels/boards.cu): nq_symmetry_boards_dyn with
// the search stacks in dynamic shared memory (symStackBytes per block).

// symmetryBoardsSmemArgs is the argument block of nq_symmetry_boards_smem
// and its _nodes twin.
type symmetryBoardsSmemArgs struct {
	n, depth, count         int32
	rows, left, down, right devPtr
	out, next               devPtr
	argptr                  [9]unsafe.Pointer
	sync.Mutex
}

var symmetryBoardsSmem symmetryBoardsSmemArgs

func init() {
	a := &symmetryBoardsSmem
	a.argptr = [...]unsafe.Pointer{unsafe.Pointer(&a.n), unsafe.Pointer(&a.depth), unsafe.Pointer(&a.count),
		unsafe.Pointer(&a.rows), unsafe.Pointer(&a.left), unsafe.Pointer(&a.down), unsafe.Pointer(&a.right),
		unsafe.Pointer(&a.out), unsafe.Pointer(&a.next)}
}

// launchSymmetryBoardsSmem queues nq_symmetry_boards_smem (or its twin: f)
// with l; shape.sharedBytes must hold the stacks.
func launchSymmetryBoardsSmem(l launcher, f kernelFunc, shape launchShape,
	n, depth, count int32, rows, left, down, right, out, next devPtr) {
	a := &symmetryBoardsSmem
	a.Lock()
	defer a.Unlock()
	a.n, a.depth, a.count = n, depth, count
	a.rows, a.left, a.down, a.right, a.out, a.next = rows, left, down, right, out, next
	l.launch(f, shape, a.argptr[:])
}

// symmetryBoardsSmemLaunch is launchSymmetryBoardsSmem for the registry.
func symmetryBoardsSmemLaunch(l launcher, f kernelFunc, shape launchShape, g *groupArgs) {
	launchSymmetryBoardsSmem(l, f, shape, g.n, g.depth, g.count, g.rows, g.left, g.down, g.right, g.out, g.next)
}
