//go:build !cgo

package host

import "github.com/nqueens-gpu/nqueens-gpu/internal/tasks"

// Enabled reports whether the C search is built in; it is false without
// cgo (CGO_ENABLED=0), and the tests then skip.
const Enabled = false

// MaxN is the largest board size the C search holds (NQ_MAXN).
const MaxN = 28

// Boards needs cgo; without it, it panics.
func Boards(b *tasks.Boards) Counts { panic("kernels/host: built without cgo") }

// Frames needs cgo; without it, it panics.
func Frames(f *tasks.Frames) Counts { panic("kernels/host: built without cgo") }

// BoardsLanes needs cgo; without it, it panics.
func BoardsLanes(b *tasks.Boards, lanes int) Counts {
	panic("kernels/host: built without cgo")
}

// EightfoldCounts are the counters of the C eightfold search.
type EightfoldCounts struct {
	Total, Nodes uint64
}

// Eightfold needs cgo; without it, it panics.
func Eightfold(e *tasks.Eightfold) EightfoldCounts { panic("kernels/host: built without cgo") }

// EightfoldLanes needs cgo; without it, it panics.
func EightfoldLanes(e *tasks.Eightfold, lanes int) EightfoldCounts {
	panic("kernels/host: built without cgo")
}

// EightfoldTable needs cgo; without it, it panics.
func EightfoldTable(e *tasks.Eightfold, i int) []uint32 {
	panic("kernels/host: built without cgo")
}

// EightfoldAfterEnd needs cgo; without it, it panics.
func EightfoldAfterEnd(e *tasks.Eightfold, i, extra int) (c EightfoldCounts, running int, inside bool) {
	panic("kernels/host: built without cgo")
}

// EightfoldDepths needs cgo; without it, it panics.
func EightfoldDepths(e *tasks.Eightfold) (EightfoldCounts, []uint64) {
	panic("kernels/host: built without cgo")
}
