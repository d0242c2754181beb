/*
 * nqtotal.h: the eightfold search (Total only), in C that both nvcc
 * (device and host code) and a host C compiler (C99 or later) build.
 *
 * A task (tasks.Eightfold in Go) is a canonical border pre-placement with
 * its first empty rows filled (the prefix); its completions count
 * weight times (8/|stabiliser| of the border) towards Total. The search
 * below a task knows nothing of symmetry: it fills the task's levels, its
 * empty rows from the start row down, with a plain bitmap search, and
 * adds weight per completion.
 *
 * Words. Column c of the board is bit c + 4 of a word (NQ_EF_COL0), so
 * that the columns the search can fill, 1..n-2 (the border's side queens
 * hold columns 0 and n-1), are bits 5..30 for every n <= 28 (NQ_EF_COLS);
 * the bits outside, 0..4 and 31, carry other things. The current level's
 * words:
 *
 *   bit   the column of the queen the next step places (the lowest free
 *         column not yet tried), 0 once the task is finished
 *   f     the level's free columns not yet tried, bit excepted
 *   d     the columns taken, and the bits of the columns from n-1 up to
 *         26 (so that a level's free columns are the zero bits of l | d |
 *         r | t within NQ_EF_COLS), with the level in bits 0..4
 *         (NQ_EF_LVL)
 *   l, r  the diagonals of the queens the search places itself, l moving
 *         to higher columns row by row, r to lower ones (bits outside
 *         NQ_EF_COLS hold diagonals that have left the board)
 *
 * The queens placed before the search (border and prefix) never change,
 * so their diagonals on each level are worked out once per task into a
 * table, one word per level:
 *
 *   tab[j], j = 0..J-2, describes the step from level j to level j+1:
 *     bits 5..30  the columns the placed queens' diagonals attack on level
 *                 j+1 (NQ_EF_COLS)
 *     bits 0..3   the rows from level j to level j+1 (1, 2 or 3: a row of
 *                 the border's side queens lies between; it is crossed by
 *                 a longer shift, not a branch); bit 4 is 0, so that the
 *                 word's low five bits are the shift itself
 *     bit 31      set when level j+1 is the last level J-1: a queen on
 *                 level j then completes a solution exactly when level j+1
 *                 has a free column (it has at most one), which the step
 *                 tests instead of placing it
 *
 * The step. One iteration places one queen (a node), bit: it derives the
 * next level's words and goes on with the next level (descend: the child
 * has a free column and is not the last level) or with the most recently
 * saved level (pop). A level is saved (pushed) first thing whenever it has
 * columns left (f != 0); so a level that has columns left but whose child
 * is dead is pushed and popped again in the same iteration (stay), every
 * saved level has work, and the step needs no inner loop and no select
 * between the three outcomes: the child's words are computed in place, and
 * a pop overwrites them. Last, the next queen is split off the new f. The
 * step reads its level's table word, and a frame when it pops; it writes a
 * frame when the level has columns left. Below a task's first frame lies a
 * sentinel frame with no columns: popping it finishes the task (bit 0).
 *
 * Memory. The frames and table words of a thread are addressed by
 * pointers and byte strides: frame k at base + k * fs (frame 0 is the
 * sentinel), table word j at tab + j * ts. A thread-private search uses
 * strides 16 and 4. A block's search in shared memory interleaves the
 * threads: frame k of thread t at byte (k * blockDim.x + t) * 16 of the
 * frame area, table word j at (j * blockDim.x + t) * 4 of the table area,
 * so that the 32 threads of a warp touch 512 contiguous bytes with one
 * 128-bit access each, and 32 consecutive words. Neither has bank
 * conflicts. A task of J levels needs J frames (the sentinel, at most J-2
 * saved levels and the one a stay writes above them) and J-1 table words
 * (NQ_EF_FRAMES).
 *
 * The API (nq_ef_state): nq_ef_start loads a task into a state and
 * returns 0 when the task needs no step, and nq_ef_step runs one iteration
 * and returns 0 when it has finished the task (it must not be called again
 * before the next nq_ef_start). The GPU kernels run nq_ef_step in a loop
 * and load a thread's next task between two runs of it (eightfold.cu);
 * nq_eightfold_task runs one task to the end (host tests). Both are the
 * same code.
 */
#ifndef NQTOTAL_H
#define NQTOTAL_H

#include "nqsearch.h" /* NQ_HD, NQ_MAXN, NQ_NODES */

#ifdef __CUDACC__
#define NQ_ALIGN16 __align__(16)
#else
#define NQ_ALIGN16
#endif

/* Column c is bit c + NQ_EF_COL0; the searchable columns 1..n-2 lie in
 * NQ_EF_COLS for every n <= 28; the level is in NQ_EF_LVL of d. */
#define NQ_EF_COL0 4
#define NQ_EF_COLS 0x7fffffe0u
#define NQ_EF_LVL 0x1fu
#define NQ_EF_LAST 0x80000000u

/* NQ_EF_FRAMES(levels): the frames a task of that many levels needs (and
 * more than the table words it needs); NQ_EF_FRAMES(NQ_MAXN - 3) is enough
 * for every task. */
#define NQ_EF_FRAMES(levels) (levels)

/* A saved level: its untried columns and its words. */
typedef struct NQ_ALIGN16 {
	uint32_t f, d, l, r;
} nq_ef_frame;

/*
 * nq_ef_counts are the counters a search adds to: the weighted
 * completions (Σ weight × completions; over every task of N, Total) and
 * the nodes, the queens the step places (one per iteration; a
 * completion's last queen is found by a test and is not a node). nodes
 * stays 0 unless NQ_NODES is set.
 */
typedef struct {
	uint64_t total, nodes;
} nq_ef_counts;

/*
 * nq_ef_state is one task's search in progress: the current level's words
 * (f, d, l, r and bit; see Words above), the next free frame (top), table
 * word 0 (tab), the strides in bytes between frames (fs) and between table
 * words (ts), and the task's weight.
 */
typedef struct {
	uint32_t f, d, l, r, bit;
	char *top, *tab;
	uint32_t fs, ts;
	uint32_t w;
} nq_ef_state;

/* nq_ef_shl, nq_ef_shr: x shifted by the low five bits of s (one SHF on
 * the GPU, which takes them as they are). */
NQ_HD uint32_t nq_ef_shl(uint32_t x, uint32_t s)
{
#ifdef __CUDA_ARCH__
	return __funnelshift_l(0u, x, s);
#else
	return x << (s & 31u);
#endif
}

NQ_HD uint32_t nq_ef_shr(uint32_t x, uint32_t s)
{
#ifdef __CUDA_ARCH__
	return __funnelshift_r(x, 0u, s);
#else
	return x >> (s & 31u);
#endif
}

/*
 * nq_ef_start loads one task into s and fills its table; it returns 1, or
 * 0 when the task is settled already (then nq_ef_step must not run):
 *
 *   tab, ts       the thread's table word 0 and the stride in bytes
 *                 between its table words (NQ_EF_FRAMES(levels) - 1 of
 *                 them)
 *   base, fs      the thread's frame 0 and the stride in bytes between its
 *                 frames (NQ_EF_FRAMES(levels) of them)
 *   left, right   the task's diagonal words (tasks.Eightfold.Left, Right):
 *                 at k rows below the start row, the placed queens attack
 *                 the columns of (uint32)((left << k) >> 32) |
 *                 (uint32)(right >> k)
 *   down          the columns taken, and the bits from n up
 *                 (tasks.Eightfold.Down)
 *   meta          levels J in bits 0..7 (1 <= J <= NQ_MAXN - 3), the two
 *                 skip levels in bits 8..15 and 16..23 (the step from level
 *                 j crosses one more row for each equal to j; 0xff: none),
 *                 the weight in bits 24..31 (tasks.Eightfold.Meta)
 *
 * A task of one level is settled here: its only level is the last.
 */
NQ_HD int nq_ef_start(nq_ef_state *s, char *tab, uint32_t ts, char *base, uint32_t fs, uint64_t left,
		      uint64_t right, uint32_t down, uint32_t meta, nq_ef_counts *k)
{
	const int levels = (int)(meta & 0xffu);
	const int skip_a = (int)(meta >> 8 & 0xffu), skip_b = (int)(meta >> 16 & 0xffu);
	int j, rows = 0;
	s->tab = tab;
	s->ts = ts;
	s->top = base + fs;
	s->fs = fs;
	s->w = meta >> 24;
	s->d = down << NQ_EF_COL0 & NQ_EF_COLS; /* level 0 */
	s->l = 0;
	s->r = 0;
	{
		nq_ef_frame sentinel = {0u, 0u, 0u, 0u}; /* no columns: the end */
		*(nq_ef_frame *)base = sentinel;
	}
	/* Rolled: once per task, and unrolling it costs the kernels
	 * registers that the step loop then cannot have. */
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (j = 0; j + 1 < levels; j++) {
		uint32_t sh = 1u + (j == skip_a) + (j == skip_b);
		rows += (int)sh;
		/* The diagonals' columns on level j+1. */
		uint32_t fixed = (uint32_t)((left << rows) >> 32) | (uint32_t)(right >> rows);
		*(uint32_t *)(tab + (uint32_t)j * ts) =
			(fixed << NQ_EF_COL0 & NQ_EF_COLS) | sh | (j + 2 == levels ? NQ_EF_LAST : 0u);
	}
	s->f = ~((down | (uint32_t)(left >> 32) | (uint32_t)right) << NQ_EF_COL0) & NQ_EF_COLS;
	if (levels == 1) { /* the start row is the last: a test settles it */
		if (s->f != 0)
			k->total += s->w;
		return 0;
	}
	s->bit = s->f & (0u - s->f);
	s->f ^= s->bit;
	return 1;
}

/*
 * nq_ef_step places the next queen of the current level and returns 1, or
 * 0 when this was the task's last iteration. It is one straight-line
 * iteration: the push is a predicated 16-byte store, the pop a predicated
 * 16-byte load, so the threads of a warp do not diverge on them.
 */
NQ_HD int nq_ef_step(nq_ef_state *s, nq_ef_counts *k)
{
	const uint32_t bit = s->bit, d = s->d, l = s->l, r = s->r;
	char *top = s->top;
	if (s->f != 0) { /* this level has columns left: save it */
		nq_ef_frame cur;
		cur.f = s->f;
		cur.d = d;
		cur.l = l;
		cur.r = r;
		*(nq_ef_frame *)top = cur;
		top += s->fs;
	}
	const uint32_t t = *(const uint32_t *)(s->tab + (d & NQ_EF_LVL) * s->ts);
	const uint32_t nl = nq_ef_shl(l | bit, t), nr = nq_ef_shr(r | bit, t);
	const uint32_t nd = d + bit + 1u; /* the queen's column, and the next level */
	const uint32_t nf = ~(nl | nr | t | nd) & NQ_EF_COLS;
	const int last = (t & NQ_EF_LAST) != 0, desc = nf != 0 && !last;
	nq_ef_frame q;
	if (NQ_NODES)
		k->nodes++;
	/* a queen on level J-1 completes the board */
	if (nf != 0 && last)
		k->total += s->w;
	if (desc) {
		q.f = nf;
		q.d = nd;
		q.l = nl;
		q.r = nr;
	} else { /* the most recently saved level, or the sentinel */
		top -= s->fs;
		q = *(const nq_ef_frame *)top;
	}
	s->top = top;
	s->bit = q.f & (0u - q.f);
	s->f = q.f ^ s->bit;
	s->d = q.d;
	s->l = q.l;
	s->r = q.r;
	return s->bit != 0;
}

/*
 * nq_eightfold_task runs one task to the end (arguments as nq_ef_start,
 * the stack thread-private) and adds its weighted completions and nodes to
 * k.
 */
NQ_HD void nq_eightfold_task(uint64_t left, uint64_t right, uint32_t down, uint32_t meta, nq_ef_counts *k)
{
	nq_ef_state s;
	nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 3)];
	uint32_t tab[NQ_EF_FRAMES(NQ_MAXN - 3)];
	if (nq_ef_start(&s, (char *)tab, 4, (char *)fr, 16, left, right, down, meta, k))
		while (nq_ef_step(&s, k))
			;
}

#endif /* NQTOTAL_H */
