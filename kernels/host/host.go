// Package host runs the C per-task searches of kernels/nqsearch.h and
// kernels/nqtotal.h, the code the CUDA kernels run, on the CPU through cgo,
// one batch per call.
//
// It exists so that tests and GPU tools can check the kernels' search
// against the Go solvers on a machine without a GPU. The main binary does
// not import it. Without cgo (CGO_ENABLED=0) the package still builds, but
// Enabled is false and its searches panic.
package host

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/..
#define NQ_NODES 1
#include "nqsearch.h"
#include "nqtotal.h"

// The batch loops of the kernels, on one CPU thread.

static void nq_host_boards(int n, int depth, int count, const uint32_t *rows,
			   const uint32_t *left, const uint32_t *down,
			   const uint32_t *right, nq_counts *out)
{
	for (int i = 0; i < count; i++)
		nq_symmetry_board(n, depth, rows + (size_t)i * depth, left[i], down[i], right[i], out);
}

// The dynamic kernels' loop, with lanes simulated: lanes threads take
// boards from one counter and step in turn, one iteration each per round,
// as the threads of a warp do, so their boards start and end interleaved.
// Their stacks share one array laid out as nq_symmetry_boards_smem's
// shared memory: word w of lane t at w * lanes + t.
#define NQ_HOST_LANES_MAX 64
static void nq_host_boards_lanes(int n, int depth, int count, const uint32_t *rows,
				 const uint32_t *left, const uint32_t *down,
				 const uint32_t *right, int lanes, nq_counts *out)
{
	static __thread nq_sym_state s[NQ_HOST_LANES_MAX];
	static __thread uint32_t stacks[NQ_SYM_WORDS(NQ_MAXN, 2) * NQ_HOST_LANES_MAX];
	int cur[NQ_HOST_LANES_MAX];
	int next = 0, live = 0;
	for (int t = 0; t < lanes; t++) {
		cur[t] = next++;
		if (cur[t] < count) {
			nq_sym_start(&s[t], stacks + t, lanes, n, depth, rows + (size_t)cur[t] * depth,
				     left[cur[t]], down[cur[t]], right[cur[t]], out);
			live++;
		}
	}
	while (live > 0) {
		for (int t = 0; t < lanes; t++) {
			if (cur[t] >= count)
				continue;
			if (!nq_sym_step(&s[t], out)) {
				cur[t] = next++;
				if (cur[t] < count)
					nq_sym_start(&s[t], stacks + t, lanes, n, depth, rows + (size_t)cur[t] * depth,
						     left[cur[t]], down[cur[t]], right[cur[t]], out);
				else
					live--;
			}
		}
	}
}

// The eightfold search: each task to the end on a private stack (the
// static path), or lanes simulated threads that take tasks from one
// counter and step in turn, their frames interleaved as in the eightfold
// kernels' shared memory (frame k of lane t at k * lanes + t).
static void nq_host_eightfold(int count, const uint64_t *left, const uint64_t *right,
			      const uint32_t *down, const uint32_t *meta, nq_ef_counts *out)
{
	for (int i = 0; i < count; i++)
		nq_eightfold_task(left[i], right[i], down[i], meta[i], out);
}

#define NQ_EF_LANES_MAX 64
static void nq_host_eightfold_lanes(int count, const uint64_t *left, const uint64_t *right,
				    const uint32_t *down, const uint32_t *meta, int lanes, nq_ef_counts *out)
{
	static __thread nq_ef_state s[NQ_EF_LANES_MAX];
	static __thread nq_ef_frame frames[NQ_EF_FRAMES(NQ_MAXN - 2) * NQ_EF_LANES_MAX];
	// run[t]: 1 while lane t has a task, 0 when it needs one, -1 once
	// there is none left for it.
	int run[NQ_EF_LANES_MAX];
	int next = 0, live = lanes;
	for (int t = 0; t < lanes; t++) {
		run[t] = 0;
		nq_ef_consts(&s[t], 0u);
	}
	while (live > 0) {
		for (int t = 0; t < lanes; t++) {
			if (run[t] > 0) {
				run[t] = nq_ef_step(&s[t], out);
				nq_ef_finish(&s[t], out);
				continue;
			}
			// A lane without a task takes the next one that needs a search.
			while (run[t] == 0) {
				const int i = next++;
				if (i >= count) {
					run[t] = -1;
					live--;
				} else {
					run[t] = nq_ef_start(&s[t], (nq_ef_ptr)(frames + t), 16 * lanes, left[i], right[i],
							     down[i], meta[i], out);
				}
			}
		}
	}
}

// nq_host_eightfold_after runs one task to its end and then extra more
// steps (at most NQ_EF_AFTER), as the GPU's step loop does for a thread
// whose task ended before its warp looks; it returns how many of those
// steps returned non-zero, adds the task's counts to *out and sets *inside
// to whether the frame pointer stayed inside the thread's frames.
static int nq_host_eightfold_after(uint64_t left, uint64_t right, uint32_t down, uint32_t meta, int extra,
				   nq_ef_counts *out, int *inside)
{
	nq_ef_state s;
	nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 2)];
	int running = 0;
	*inside = 1;
	nq_ef_consts(&s, 0u);
	if (!nq_ef_start(&s, (nq_ef_ptr)fr, 16, left, right, down, meta, out))
		return 0;
	while (nq_ef_step(&s, out))
		nq_ef_finish(&s, out);
	for (int i = 0; i < extra; i++)
		running += nq_ef_step(&s, out) != 0;
	nq_ef_finish(&s, out);
	// top is the most recently saved frame, fr - 1 when none is.
	*inside = s.top >= (nq_ef_ptr)(fr - 1) && s.top < (nq_ef_ptr)(fr + NQ_EF_FRAMES(NQ_MAXN - 2));
	return running;
}

// nq_host_eightfold_table fills tab with what the step derives for each
// level of one task from the words nq_ef_start leaves (levels words, none
// for one level): for level j below the last, the columns the placed
// queens attack on level j+1 (nq_ef_child's words of a level without
// search queens) and the rows to it (bits 0..4); for the last level, its
// rows (0).
static void nq_host_eightfold_table(uint64_t left, uint64_t right, uint32_t down, uint32_t meta,
				    uint32_t *tab)
{
	nq_ef_state s;
	nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 2)];
	nq_ef_counts k = {0, 0};
	const int levels = (int)(meta & 0xffu);
	nq_ef_consts(&s, 0u);
	if (!nq_ef_start(&s, (nq_ef_ptr)fr, 16, left, right, down, meta, &k))
		return;
	uint32_t d = 0, l = fr[0].l, r = fr[0].r;
	for (int j = 0; j < levels; j++) {
		const uint32_t row = d & NQ_EF_ROWS, sh = nq_ef_rows(&s, row);
		nq_ef_child(&s, row, sh, 0u, &d, &l, &r);
		tab[j] = (j + 1 < levels ? (l | r) & NQ_EF_COLS : 0u) | sh;
	}
}

// nq_host_eightfold_depths runs every task to its end (the static
// kernels' search) and adds to depth[k] the steps after which k levels are
// saved (the stack holds k frames).
static void nq_host_eightfold_depths(int count, const uint64_t *left, const uint64_t *right,
				     const uint32_t *down, const uint32_t *meta, uint64_t *depth, nq_ef_counts *out)
{
	for (int i = 0; i < count; i++) {
		nq_ef_state s;
		nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 2)];
		nq_ef_consts(&s, 0u);
		if (!nq_ef_start(&s, (nq_ef_ptr)fr, 16, left[i], right[i], down[i], meta[i], out))
			continue;
		int more;
		do {
			more = nq_ef_step(&s, out);
			nq_ef_finish(&s, out);
			depth[(s.top + 16 - (nq_ef_ptr)fr) / 16]++;
		} while (more);
	}
}

static void nq_host_frames(int n, int count, const uint32_t *rows,
			   const uint8_t *weight, const uint8_t *sym180, nq_counts *out)
{
	for (int i = 0; i < count; i++)
		nq_carry_frame(n, rows + (size_t)i * n, weight[i], sym180[i], out);
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
// size (summed over all boards of N they are COUNT2, COUNT4 and COUNT8)
// and the nodes. It panics if b is not a well-formed symmetry batch.
func Boards(b *tasks.Boards) Counts {
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
		return Counts{}
	}
	var out C.nq_counts
	C.nq_host_boards(C.int(b.N), C.int(b.Depth), C.int(k),
		(*C.uint32_t)(&b.Rows[0]), (*C.uint32_t)(&b.Left[0]),
		(*C.uint32_t)(&b.Down[0]), (*C.uint32_t)(&b.Right[0]), &out)
	return counts(&out)
}

func counts(c *C.nq_counts) Counts {
	return Counts{C2: uint64(c.c2), C4: uint64(c.c4), C8: uint64(c.c8), Nodes: uint64(c.nodes)}
}

// BoardsLanes runs the dynamic kernels' loop (nq_sym_start and
// nq_sym_step) over the boards of b with lanes simulated threads (1 to 64)
// that take boards from one shared counter and step in turn, their stacks
// interleaved as in nq_symmetry_boards_smem's shared memory, and returns
// what Boards does.
func BoardsLanes(b *tasks.Boards, lanes int) Counts {
	if lanes < 1 || lanes > C.NQ_HOST_LANES_MAX {
		panic(fmt.Sprintf("host.BoardsLanes: %d lanes, want 1 to %d", lanes, C.NQ_HOST_LANES_MAX))
	}
	if b.Kind != tasks.Symmetry || b.Len() == 0 {
		return Boards(b)
	}
	var out C.nq_counts
	C.nq_host_boards_lanes(C.int(b.N), C.int(b.Depth), C.int(b.Len()),
		(*C.uint32_t)(&b.Rows[0]), (*C.uint32_t)(&b.Left[0]),
		(*C.uint32_t)(&b.Down[0]), (*C.uint32_t)(&b.Right[0]), C.int(lanes), &out)
	return counts(&out)
}

// Frames runs nq_carry_frame over every frame of f and returns the
// weighted completions by orbit size (tasks.Weighted: summed over all
// frames of N, COUNT2 = C2/2, COUNT4 = C4/4 and COUNT8 = C8/8) and the
// nodes. It panics if f is not a well-formed batch.
func Frames(f *tasks.Frames) Counts {
	k := f.Len()
	if f.N < 5 || f.N > MaxN || len(f.Rows) != k*f.N || len(f.Sym180) != k {
		panic(fmt.Sprintf("host.Frames: malformed batch (N=%d len=%d rows=%d)", f.N, k, len(f.Rows)))
	}
	if k == 0 {
		return Counts{}
	}
	var out C.nq_counts
	C.nq_host_frames(C.int(f.N), C.int(k), (*C.uint32_t)(&f.Rows[0]),
		(*C.uint8_t)(&f.Weight[0]), (*C.uint8_t)(&f.Sym180[0]), &out)
	return counts(&out)
}

// EightfoldCounts are the counters of the C eightfold search
// (nq_ef_counts): Σ weight × completions (summed over every task of N,
// Total) and the nodes, the queens the search places.
type EightfoldCounts struct {
	Total, Nodes uint64
}

// checkEightfold panics unless e is a well-formed batch.
func checkEightfold(e *tasks.Eightfold, who string) {
	k := e.Len()
	if e.N < 5 || e.N > MaxN || len(e.Left) != k || len(e.Right) != k || len(e.Down) != k || len(e.Cols) != k*e.N {
		panic(fmt.Sprintf("%s: malformed batch (N=%d len=%d)", who, e.N, k))
	}
	for _, m := range e.Meta {
		if l := m & 0xff; l < 1 || l > MaxN-3 {
			panic(fmt.Sprintf("%s: task with %d levels", who, l))
		}
	}
}

// Eightfold runs nq_eightfold_task over every task of e (the static
// kernels' search) and returns Σ weight × completions and the nodes. It
// panics if e is not a well-formed batch.
func Eightfold(e *tasks.Eightfold) EightfoldCounts {
	checkEightfold(e, "host.Eightfold")
	if e.Len() == 0 {
		return EightfoldCounts{}
	}
	var out C.nq_ef_counts
	C.nq_host_eightfold(C.int(e.Len()), (*C.uint64_t)(&e.Left[0]), (*C.uint64_t)(&e.Right[0]),
		(*C.uint32_t)(&e.Down[0]), (*C.uint32_t)(&e.Meta[0]), &out)
	return EightfoldCounts{Total: uint64(out.total), Nodes: uint64(out.nodes)}
}

// EightfoldLanes runs the dynamic eightfold kernel's loop (nq_ef_start and
// nq_ef_step) over the tasks of e with lanes simulated threads (1 to 64)
// that take tasks from one shared counter and step in turn, their frames
// interleaved as in the kernel's shared memory, and
// returns what Eightfold does.
func EightfoldLanes(e *tasks.Eightfold, lanes int) EightfoldCounts {
	if lanes < 1 || lanes > C.NQ_EF_LANES_MAX {
		panic(fmt.Sprintf("host.EightfoldLanes: %d lanes, want 1 to %d", lanes, C.NQ_EF_LANES_MAX))
	}
	checkEightfold(e, "host.EightfoldLanes")
	if e.Len() == 0 {
		return EightfoldCounts{}
	}
	var out C.nq_ef_counts
	C.nq_host_eightfold_lanes(C.int(e.Len()), (*C.uint64_t)(&e.Left[0]), (*C.uint64_t)(&e.Right[0]),
		(*C.uint32_t)(&e.Down[0]), (*C.uint32_t)(&e.Meta[0]), C.int(lanes), &out)
	return EightfoldCounts{Total: uint64(out.total), Nodes: uint64(out.nodes)}
}

// EightfoldDepths runs every task of e to its end (the static kernels'
// search) and returns its counts and, for each k, the steps after which
// the task's stack held k frames (saved levels). It panics if e is not a
// well-formed batch.
func EightfoldDepths(e *tasks.Eightfold) (EightfoldCounts, []uint64) {
	checkEightfold(e, "host.EightfoldDepths")
	depth := make([]uint64, MaxN) // at most NQ_EF_FRAMES(NQ_MAXN - 2) < MaxN frames
	if e.Len() == 0 {
		return EightfoldCounts{}, depth
	}
	var out C.nq_ef_counts
	C.nq_host_eightfold_depths(C.int(e.Len()), (*C.uint64_t)(&e.Left[0]), (*C.uint64_t)(&e.Right[0]),
		(*C.uint32_t)(&e.Down[0]), (*C.uint32_t)(&e.Meta[0]), (*C.uint64_t)(&depth[0]), &out)
	return EightfoldCounts{Total: uint64(out.total), Nodes: uint64(out.nodes)}, depth
}

// EightfoldAfter is NQ_EF_AFTER (after.go; a compile-time check).
var (
	_ [EightfoldAfter - C.NQ_EF_AFTER]struct{}
	_ [C.NQ_EF_AFTER - EightfoldAfter]struct{}
)

// EightfoldAfterEnd runs task i of e to its end and then extra more steps
// (extra >= 0) and returns its counts, how many of the extra
// steps said the task went on, and whether the frame pointer stayed inside
// the thread's frames.
func EightfoldAfterEnd(e *tasks.Eightfold, i, extra int) (c EightfoldCounts, running int, inside bool) {
	if extra < 0 {
		panic(fmt.Sprintf("host.EightfoldAfterEnd: %d extra steps", extra))
	}
	if l := e.Levels(i); l < 1 || l > MaxN-2 {
		panic(fmt.Sprintf("host.EightfoldAfterEnd: task with %d levels", l))
	}
	var out C.nq_ef_counts
	var in C.int
	r := C.nq_host_eightfold_after(C.uint64_t(e.Left[i]), C.uint64_t(e.Right[i]), C.uint32_t(e.Down[i]),
		C.uint32_t(e.Meta[i]), C.int(extra), &out, &in)
	return EightfoldCounts{Total: uint64(out.total), Nodes: uint64(out.nodes)}, int(r), in != 0
}

// EightfoldTable returns what the step derives for each level of task i
// of e from the words nq_ef_start leaves: for a level below the last, the
// columns the placed queens attack on the next level (column c in bit
// c+4) and the rows to it (bits 0..4); for the last level 0. None for a
// task of one level (nq_ef_start settles it).
func EightfoldTable(e *tasks.Eightfold, i int) []uint32 {
	levels := e.Levels(i)
	if levels < 1 || levels > MaxN-2 {
		panic(fmt.Sprintf("host.EightfoldTable: task with %d levels", levels))
	}
	var buf [MaxN]C.uint32_t
	C.nq_host_eightfold_table(C.uint64_t(e.Left[i]), C.uint64_t(e.Right[i]), C.uint32_t(e.Down[i]),
		C.uint32_t(e.Meta[i]), &buf[0])
	tab := make([]uint32, levels)
	if levels == 1 {
		tab = nil
	}
	for j := range tab {
		tab[j] = uint32(buf[j])
	}
	return tab
}
