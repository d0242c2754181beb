//go:build cgo && amd64

package eflanes

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/../../kernels
#include "eflanes.h"
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// Built reports whether the lane engines are compiled in: true with cgo on
// amd64.
const Built = true

// Width is the C engine's EFL_WIDTH (a compile-time check).
var (
	_ [Width - C.EFL_WIDTH]struct{}
	_ [C.EFL_WIDTH - Width]struct{}
)

// hasAVX512 is whether the CPU runs efl_run_avx512 (AVX-512 F, CD, BW,
// DQ and VL, what its target attribute lets the compiler use).
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512CD && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL

// State is the vector engine's working memory (the C efl_state: every
// lane's frames and words), reused from batch to batch. The zero value is
// ready; it must not be copied while a batch runs.
type State struct{ s C.efl_state }

// budget is how many steps Vector takes per C call at most (Width lanes a
// step): a call ends within a few milliseconds, and Vector looks at the
// stop flag between calls.
const budget = 1 << 18

// Vector adds up Σ weight × completions over the tasks of b with the
// vector engine: active lanes of Width (1 to Width) take tasks, the others
// idle; with steal > 0, a lane left without a task once the batch's are
// all handed out takes the shallowest saved level of another lane's task
// that has at least steal levels below it (efl_steal; package cpu passes
// StealLevels). It panics where the CPU cannot run it. Once stop is set it
// returns within a call's budget with a partial sum that the caller drops.
func Vector(st *State, b *tasks.Eightfold, active, steal int, stop *atomic.Bool) uint64 {
	if !hasAVX512 {
		panic("eflanes.Vector: the CPU has no AVX-512")
	}
	if active < 1 || active > Width {
		panic(fmt.Sprintf("eflanes.Vector: %d active lanes, want 1 to %d", active, Width))
	}
	n := b.Len()
	if n == 0 {
		return 0
	}
	s := &st.s
	C.efl_init(s, C.int(active), C.int(steal))
	for C.efl_run_avx512(s, C.int(n), (*C.uint64_t)(unsafe.Pointer(&b.Left[0])),
		(*C.uint64_t)(unsafe.Pointer(&b.Right[0])), (*C.uint32_t)(unsafe.Pointer(&b.Down[0])),
		(*C.uint32_t)(unsafe.Pointer(&b.Meta[0])), budget) == 0 {
		if stop != nil && stop.Load() {
			break
		}
	}
	return uint64(s.total)
}

// hardware reports whether the CPU can run the vector engine.
func hardware() bool { return hasAVX512 }
