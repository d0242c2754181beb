package cpu

import (
	"sync"

	"github.com/nqueens-gpu/nqueens-gpu/internal/eflanes"
)

// efLanes reports whether eightfoldBatch counts with the vector lane
// engine (eflanes.Vector: the GPU kernel's step in 32 AVX-512 lanes)
// instead of the scalar search (efSearch). It is set once, from the CPU's
// features and eflanes.ScalarEnv; the tests set it to run both. Both
// are exact task by task: which one runs changes no count.
var efLanes = eflanes.Available()

// stealLevels is what eightfoldBatch passes to eflanes.Vector: the fewest
// levels below a saved level that an idle lane steals (a measurement sets
// it).
var stealLevels = eflanes.StealLevels

// lanesStates holds the lane engine's working memory (about 42 KB) between
// batches.
var lanesStates = sync.Pool{New: func() any { return new(eflanes.State) }}

// EightfoldPath says which search the CPU counts eightfold tasks with,
// for devices and the bench reports: the vector lanes, or the scalar
// search (assembly with BMI, else Go) and why not the lanes.
func EightfoldPath() string {
	if efLanes {
		return "AVX-512, 32 boards searched at once"
	}
	s := "scalar, Go"
	if efAsm {
		s = "scalar, BMI assembly"
	}
	why := eflanes.Unavailable()
	if why == "" {
		why = "lanes turned off"
	}
	return s + " (" + why + ")"
}
