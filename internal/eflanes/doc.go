// Package eflanes runs the eightfold kernel's step (kernels/nqtotal.h:
// nq_ef_start, nq_ef_step, in its form up to commit 5b6b5d4, with a table
// of the placed queens' diagonals per level) on the CPU in lanes, as the
// GPU runs it in the threads of a warp: a branch-free step over four
// 32-bit words, the push and the pop as masked scatters and gathers, a
// lane refilled with the next task as soon as its task ends. The kernel
// now derives those diagonals from the task's 64-bit words at every step
// (docs/performance.md, issue 27), which in lanes would be two 64-bit
// shifts per lane where the table is one gather; nodes and completions
// are the same.
//
// The engines are C (eflanes.h) through cgo: Vector, 32 lanes in AVX-512
// registers, compiled with a target attribute and called only where the
// CPU has AVX-512; and Model, any number of lanes stepped one after the
// other in plain C, the host model of the warp that the tests compare with
// the kernel's node counts. Without cgo, or off amd64, Built is false and
// package cpu keeps its scalar search.
package eflanes

import "os"

// Width is the vector engine's lanes: two groups of 16, the 32-bit
// elements of two AVX-512 registers a word, as many as a GPU warp.
const Width = 32

// StealLevels is the fewest levels below a saved level that a lane
// without a task steals (Vector): below 10 the handovers at the end of
// each batch of N=16 cost more than the idle lanes they fill (0.47 s
// instead of 0.40 s at 6 levels, 256-task batches); from N=20 on, where a
// batch's last tasks are long, stealing at 10 levels keeps the lanes full.
const StealLevels = 10

// MaxModelLanes is the most lanes Model runs.
const MaxModelLanes = 64

// After is the steps a finished task's state takes without harm here
// (NQ_EF_AFTER of the table form of the kernel, which looked for a
// finished thread every After + 1 steps; the kernel now looks every 10).
const After = 2

// ScalarEnv is the environment variable that, set to 1, keeps package cpu
// on its scalar search even where the CPU runs the vector engine.
const ScalarEnv = "NQ_CPU_SCALAR"

// Available reports whether package cpu counts with the vector engine: it
// is built in (Built), the CPU has AVX-512 and ScalarEnv is not 1.
func Available() bool { return Unavailable() == "" }

// Unavailable says why Available is false ("" where it is true).
func Unavailable() string {
	switch {
	case !Built:
		return "not built (needs cgo on amd64)"
	case !hardware():
		return "the CPU has no AVX-512"
	case os.Getenv(ScalarEnv) == "1":
		return ScalarEnv + "=1"
	}
	return ""
}
