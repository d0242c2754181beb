// Package host runs the C per-task searches of kernels/nqsearch.h, the code
// the CUDA kernels run, on the CPU through cgo, one batch per call.
//
// It exists so that tests and GPU tools can check the kernels' search
// against the Go solvers on a machine without a GPU. The main binary does
// not import it. Without cgo (CGO_ENABLED=0) the package still builds, but
// Enabled is false and Boards and Frames panic.
package host

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/..
#include "nqsearch.h"

// The batch loops of the kernels, on one CPU thread.

static void nq_host_boards(int n, int depth, int count, const uint32_t *rows,
			   const uint32_t *left, const uint32_t *down,
			   const uint32_t *right, uint64_t *out)
{
	for (int i = 0; i < count; i++)
		nq_symmetry_board(n, depth, rows + (size_t)i * depth, left[i], down[i], right[i],
				  &out[0], &out[1], &out[2]);
}

static void nq_host_frames(int n, int count, const uint32_t *rows,
			   const uint8_t *weight, const uint8_t *sym180, uint64_t *out)
{
	for (int i = 0; i < count; i++)
		nq_carry_frame(n, rows + (size_t)i * n, weight[i], sym180[i],
			       &out[0], &out[1], &out[2]);
}
*/
import "C"

import (
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"

	// The Go build cache does not see nqsearch.h, which lives outside this
	// directory; package kernels embeds it, so importing kernels rebuilds
	// this package whenever the header changes.
	_ "github.com/nqueens-gpu/nqueens-gpu/kernels"
)

// Enabled reports whether the C search is built in: true with cgo.
const Enabled = true

// MaxN is the largest board size the C search holds (NQ_MAXN).
const MaxN = C.NQ_MAXN

// Boards runs nq_symmetry_board over every board of b, which must be of
// kind tasks.Symmetry, and returns the canonical solutions found by orbit
// size: summed over all boards of N they are COUNT2, COUNT4 and COUNT8.
// It panics if b is not a well-formed symmetry batch.
func Boards(b *tasks.Boards) (c2, c4, c8 uint64) {
	if b.Kind != tasks.Symmetry {
		panic(fmt.Sprintf("host.Boards: %v boards, want symmetry", b.Kind))
	}
	k := b.Len()
	if b.N < 4 || b.N > MaxN || b.Depth < 2 || b.Depth > b.N-1 ||
		len(b.Rows) != k*b.Depth || len(b.Down) != k || len(b.Right) != k {
		panic(fmt.Sprintf("host.Boards: malformed batch (N=%d depth=%d len=%d rows=%d)",
			b.N, b.Depth, k, len(b.Rows)))
	}
	if k == 0 {
		return 0, 0, 0
	}
	var out [3]C.uint64_t
	C.nq_host_boards(C.int(b.N), C.int(b.Depth), C.int(k),
		(*C.uint32_t)(&b.Rows[0]), (*C.uint32_t)(&b.Left[0]),
		(*C.uint32_t)(&b.Down[0]), (*C.uint32_t)(&b.Right[0]), &out[0])
	return uint64(out[0]), uint64(out[1]), uint64(out[2])
}

// Frames runs nq_carry_frame over every frame of f and returns the
// weighted completions by orbit size (tasks.Weighted): summed over all
// frames of N, COUNT2 = w2/2, COUNT4 = w4/4 and COUNT8 = w8/8. It panics if
// f is not a well-formed batch.
func Frames(f *tasks.Frames) (w2, w4, w8 uint64) {
	k := f.Len()
	if f.N < 5 || f.N > MaxN || len(f.Rows) != k*f.N || len(f.Sym180) != k {
		panic(fmt.Sprintf("host.Frames: malformed batch (N=%d len=%d rows=%d)", f.N, k, len(f.Rows)))
	}
	if k == 0 {
		return 0, 0, 0
	}
	var out [3]C.uint64_t
	C.nq_host_frames(C.int(f.N), C.int(k), (*C.uint32_t)(&f.Rows[0]),
		(*C.uint8_t)(&f.Weight[0]), (*C.uint8_t)(&f.Sym180[0]), &out[0])
	return uint64(out[0]), uint64(out[1]), uint64(out[2])
}
