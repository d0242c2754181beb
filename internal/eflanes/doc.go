// Package eflanes runs the eightfold kernel's step (kernels/nqtotal.h:
// nq_ef_start, nq_ef_step) on the CPU in 32 lanes of AVX-512 registers, as
// the GPU runs it in the threads of a warp: a branch-free step over the
// same words, the push and the pop as masked scatters and gathers, a lane
// refilled with the next task as soon as its task ends, and idle lanes
// stealing saved levels once a batch's tasks are all handed out.
//
// The engine is C (eflanes.h) through cgo, which loads each task with
// nq_ef_start itself and writes nq_ef_step for 16 lanes at a time; it is
// compiled with a target attribute and called only where the CPU has
// AVX-512. Without cgo, or off amd64, Built is false and package cpu keeps
// its scalar search.
package eflanes

import "os"

// Width is the vector engine's lanes: two groups of 16, the 32-bit
// elements of two AVX-512 registers a word, as many as a GPU warp.
const Width = 32

// StealLevels is the fewest rows below a saved level that a lane without
// a task steals (Vector): below 10 the handovers at the end of each batch
// of N=16 cost more than the idle lanes they fill; from N=20 on, where a
// batch's last tasks are long, stealing at 10 keeps the lanes full.
const StealLevels = 10

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
