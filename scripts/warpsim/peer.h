/*
 * peer.h: this project's model of the GPU search of Yao & Li (arXiv
 * 2511.12009, 2025; github.com/ygch/n_queens), written from the paper's
 * description for the speed model only (docs/kernels.md, "The peer
 * model"). The product never builds it; warpsim runs it on the host (cgo)
 * and peer.cu builds it for the GPU so that kernel-report can count its
 * SASS. Total only with the mirror symmetry; tasks are the placements of
 * the first rows rows as (cols, l, r); one search per thread, one queen an
 * iteration, a 16-byte stack entry {cols, l, r, f} per level at entry
 * k*32 + lane of the warp's region; the last row counted by a popcount.
 * C99 and CUDA, as kernels/nqsearch.h.
 */
#ifndef PEER_H
#define PEER_H

#include <stdint.h>

#ifdef __CUDACC__
#define PM_HD __host__ __device__ __forceinline__
#else
#define PM_HD static inline
#endif

/* pm_popc: number of set bits of a word. */
PM_HD int pm_popc(uint32_t x)
{
#if defined(__CUDA_ARCH__)
	return __popc(x);
#else
	return __builtin_popcount(x);
#endif
}

/* pm_entry is one stack level: the columns taken by the rows above, the
 * two diagonal attack words and the untried columns of this row. */
typedef struct
#ifdef __CUDACC__
	__align__(16)
#endif
{
	uint32_t cols, l, r, f;
} pm_entry;

/* pm_state is one thread's search: the stack (entries stride apart; top
 * points at the entry above the top level, base at level 0), the board
 * mask and the number of columns that make a row the last one's parent
 * (n-1 queens placed). */
typedef struct {
	pm_entry *top, *base;
	int stride, full;
	uint32_t mask;
} pm_state;

/* Path classes of one iteration, for the simulator (warpsim). On the GPU
 * the iteration has no branch: the push is a predicated store. */
enum {
	PM_PUSH = 0, /* placed a queen and pushed its row */
	PM_DEAD = 1, /* placed a queen whose row has no free column */
	PM_LEAF = 2, /* placed the queen of row n-2, counted row n-1 */
	PM_END = 3   /* the stack is empty: the task is done */
};

/* pm_start loads the task (cols, l, r) for an n-queens board. It returns 0
 * when the task's next row has no free column (nothing to search). */
PM_HD int pm_start(pm_state *s, pm_entry *stk, int stride, int n, uint32_t cols, uint32_t l, uint32_t r)
{
	s->base = stk;
	s->stride = stride;
	s->mask = (1u << n) - 1;
	s->full = n - 1;
	uint32_t f = s->mask & ~(cols | l | r);
	pm_entry e = {cols, l, r, f};
	stk[0] = e;
	s->top = f != 0 ? stk + stride : stk;
	return f != 0;
}

/*
 * pm_step runs one iteration: it places the top level's lowest untried
 * column and returns the iteration's class (PM_PUSH, PM_DEAD or PM_LEAF),
 * or PM_END when the stack is empty. sum gets the solutions counted.
 */
PM_HD int pm_step(pm_state *s, unsigned long long *sum)
{
	if (s->top == s->base)
		return PM_END;
	pm_entry *at = s->top - s->stride;
	pm_entry e = *at;
	uint32_t bit = e.f & (0u - e.f);
	e.f ^= bit;
	at->f = e.f;
	if (e.f == 0) /* the level is exhausted: pop it */
		s->top = at;
	uint32_t cols = e.cols | bit, l = (e.l | bit) << 1, r = (e.r | bit) >> 1;
	uint32_t f = s->mask & ~(cols | l | r);
	int leaf = pm_popc(cols) == s->full; /* the child is the last row */
	int stop = leaf | (f == 0);
	*sum += stop ? (unsigned long long)pm_popc(f) : 0ull;
	if (!stop) { /* push */
		pm_entry c = {cols, l, r, f};
		*s->top = c;
		s->top += s->stride;
	}
	return leaf ? PM_LEAF : stop ? PM_DEAD : PM_PUSH;
}

/*
 * Task enumeration (host only): pm_tasks lists the tasks of n with rows
 * rows placed, calling emit(cols, l, r, arg) for each one whose next row
 * has a free column, in the order described above.
 */
#ifndef __CUDACC__
typedef void (*pm_emit_fn)(uint32_t cols, uint32_t l, uint32_t r, void *arg);

/* pm_expand places rows row..rows-1 below (cols, l, r); lim0 and lim1
 * are the column masks rows 0 and 1 may use. */
static void pm_expand(int n, int rows, int row, uint32_t cols, uint32_t l, uint32_t r, uint32_t lim0,
		      uint32_t lim1, pm_emit_fn emit, void *arg)
{
	const uint32_t mask = (1u << n) - 1;
	if (row == rows) {
		if ((mask & ~(cols | l | r)) != 0)
			emit(cols, l, r, arg);
		return;
	}
	uint32_t lim = row == 0 ? lim0 : row == 1 ? lim1 : mask;
	uint32_t f = lim & ~(cols | l | r);
	while (f) {
		uint32_t bit = f & (0u - f);
		f ^= bit;
		pm_expand(n, rows, row + 1, cols | bit, (l | bit) << 1, (r | bit) >> 1, lim0, lim1, emit, arg);
	}
}

static void pm_tasks(int n, int rows, pm_emit_fn emit, void *arg)
{
	const uint32_t mask = (1u << n) - 1;
	pm_expand(n, rows, 0, 0, 0, 0, (1u << (n / 2)) - 1, mask, emit, arg);
	if (n & 1) /* the centre column, row 1 in the left half */
		pm_expand(n, rows, 0, 0, 0, 0, 1u << (n / 2), (1u << ((n - 2) / 2)) - 1, emit, arg);
}
#endif

#endif /* PEER_H */
