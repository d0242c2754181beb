//go:build !cgo || !amd64

package eflanes

import (
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// Built is false: the lane engines need cgo on amd64.
const Built = false

// State is empty without the engines.
type State struct{}

// Vector is never called without the engines (Available is false).
func Vector(st *State, b *tasks.Eightfold, active, steal int, stop *atomic.Bool) uint64 {
	panic("eflanes.Vector: not built (needs cgo on amd64)")
}

func hardware() bool { return false }
