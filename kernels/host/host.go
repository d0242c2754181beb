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

// The dynamic kernel's loop, with lanes simulated: lanes threads take
// boards from one counter and step in turn, one node each per round, as
// the threads of a warp do, so their boards start and end interleaved.
#define NQ_HOST_LANES_MAX 64
static void nq_host_boards_lanes(int n, int depth, int count, const uint32_t *rows,
				 const uint32_t *left, const uint32_t *down,
				 const uint32_t *right, int lanes, uint64_t *out)
{
	static __thread nq_sym_state s[NQ_HOST_LANES_MAX];
	static __thread uint32_t board[NQ_HOST_LANES_MAX][NQ_MAXN], fs[NQ_HOST_LANES_MAX][NQ_MAXN],
		rs[NQ_HOST_LANES_MAX][NQ_MAXN];
	int cur[NQ_HOST_LANES_MAX];
	int next = 0, live = 0;
	for (int t = 0; t < lanes; t++) {
		cur[t] = next++;
		if (cur[t] < count) {
			nq_sym_start(&s[t], board[t], n, depth, rows + (size_t)cur[t] * depth, left[cur[t]],
				     down[cur[t]], right[cur[t]], &out[0], &out[1], &out[2]);
			live++;
		}
	}
	while (live > 0) {
		for (int t = 0; t < lanes; t++) {
			if (cur[t] >= count)
				continue;
			if (!nq_sym_step(&s[t], board[t], fs[t], rs[t], &out[0], &out[1], &out[2])) {
				cur[t] = next++;
				if (cur[t] < count)
					nq_sym_start(&s[t], board[t], n, depth, rows + (size_t)cur[t] * depth,
						     left[cur[t]], down[cur[t]], right[cur[t]], &out[0], &out[1], &out[2]);
				else
					live--;
			}
		}
	}
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

// BoardsLanes runs the dynamic kernel's loop (nq_sym_start and
// nq_sym_step) over the boards of b with lanes simulated threads (1 to 64)
// that take boards from one shared counter and step in turn, and returns
// the canonical solutions by orbit size, as Boards does.
func BoardsLanes(b *tasks.Boards, lanes int) (c2, c4, c8 uint64) {
	if lanes < 1 || lanes > C.NQ_HOST_LANES_MAX {
		panic(fmt.Sprintf("host.BoardsLanes: %d lanes, want 1 to %d", lanes, C.NQ_HOST_LANES_MAX))
	}
	if b.Kind != tasks.Symmetry || b.Len() == 0 {
		return Boards(b)
	}
	var out [3]C.uint64_t
	C.nq_host_boards_lanes(C.int(b.N), C.int(b.Depth), C.int(b.Len()),
		(*C.uint32_t)(&b.Rows[0]), (*C.uint32_t)(&b.Left[0]),
		(*C.uint32_t)(&b.Down[0]), (*C.uint32_t)(&b.Right[0]), C.int(lanes), &out[0])
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
