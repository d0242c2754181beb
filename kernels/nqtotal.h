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
 * Words. Bit c of a word is column c. d holds the columns taken, plus
 * every bit from n to 31, so that a level's free columns are the zero bits
 * of l | d | r | fixed. l and r hold the diagonals of the queens the search
 * places itself (l moving to higher columns row by row, r to lower ones);
 * the queens placed before the search (border and prefix) never change,
 * so their diagonals on each level are worked out once per task into a
 * table, one word per level:
 *
 *   tab[j], j = 0..J-2, describes the step from level j to level j+1:
 *     bits 1..27   the columns the placed queens' diagonals attack on
 *                  level j+1, leaving out the columns they take (d holds
 *                  those; bit 0, column 0, is always taken: the border's
 *                  left queen holds it)
 *     bit 0        set when level j+1 is the last level J-1: a queen on
 *                  level j then completes a solution exactly when level
 *                  j+1 has a free column (it has at most one), which the
 *                  step tests instead of placing it
 *     bits 28..29  the rows from level j to level j+1 (1, 2 or 3: a row
 *                  of the border's side queens lies between; it is
 *                  crossed by a longer shift, not a branch)
 *
 * The step. One iteration places one queen (a node): it takes the lowest
 * free column of the current level, derives the next level's words and
 * free columns, and then either descends (the child has a free column and
 * is not the last level), stays (the level has columns left), or pops the
 * most recent saved level. A level is saved (pushed) only when the search
 * descends from it while it still has columns left: so every saved level
 * has work, a pop never lands on an exhausted one, and the step needs no
 * inner loop. The only data a step reads is its level's table word, and a
 * frame when it pops. Every counter is 64-bit.
 *
 * Stack layout. A frame is 16 bytes (nq_ef_frame: free columns with the
 * level in bits 27..31, then d, l, r); frame k of a thread is fr[k *
 * fstride], table word j is tab[j * tstride]. A thread-private stack has
 * strides 1. A block's stacks in shared memory interleave the threads:
 * frame k of thread t at frames[k * blockDim.x + t] (fr = frames + t,
 * fstride = blockDim.x), so the 32 threads of a warp touch 512 contiguous
 * bytes with one 128-bit access each; table word j of thread t at
 * tabs[j * blockDim.x + t], 32 consecutive words per warp. Neither has
 * bank conflicts. A task of J levels needs J-1 frames and J-1 table words
 * (NQ_EF_FRAMES).
 *
 * The API (nq_ef_state): nq_ef_start loads a task into a state, and
 * nq_ef_step runs one iteration and returns 0 once the task is finished
 * (and on every later call). A GPU thread whose task is finished loads the
 * next one inside the loop in which its warp goes on stepping (dynamic
 * fetching); nq_eightfold_task runs one task to the end (static kernels,
 * host tests). Both are the same code.
 */
#ifndef NQTOTAL_H
#define NQTOTAL_H

#include "nqsearch.h" /* NQ_HD, NQ_MAXN, NQ_NODES */

#ifdef __CUDACC__
#define NQ_ALIGN16 __align__(16)
#else
#define NQ_ALIGN16
#endif

/* The bits of a free-columns word that hold columns; the level is above. */
#define NQ_EF_COLS 0x07ffffffu
#define NQ_EF_LEVEL 27

/* NQ_EF_FRAMES(levels): the frames (and table words) a task of that many
 * levels needs; NQ_EF_FRAMES(NQ_MAXN - 3) is enough for every task. */
#define NQ_EF_FRAMES(levels) ((levels) > 1 ? (levels) - 1 : 1)

/* A saved level: its untried columns (with its level in bits 27..31) and
 * the words it sees. */
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
 * nq_ef_state is one task's search in progress: the current level's free
 * columns f (with the level in bits 27..31; f == 0 once the task is
 * finished) and words d, l, r, the number of saved frames sp, the task's
 * weight, and where the thread's frames and table are.
 */
typedef struct {
	uint32_t f, d, l, r;
	uint32_t sp, w;
	nq_ef_frame *fr;
	uint32_t *tab;
	int fstride, tstride;
} nq_ef_state;

/*
 * nq_ef_start loads one task into s and fills its table:
 *
 *   fr, fstride   the thread's frames (NQ_EF_FRAMES(levels) of them)
 *   tab, tstride  the thread's table words (as many)
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
NQ_HD void nq_ef_start(nq_ef_state *s, nq_ef_frame *fr, int fstride, uint32_t *tab, int tstride,
		       uint64_t left, uint64_t right, uint32_t down, uint32_t meta, nq_ef_counts *k)
{
	const int levels = (int)(meta & 0xffu);
	const int skip_a = (int)(meta >> 8 & 0xffu), skip_b = (int)(meta >> 16 & 0xffu);
	int j, rows = 0;
	s->fr = fr;
	s->fstride = fstride;
	s->tab = tab;
	s->tstride = tstride;
	s->w = meta >> 24;
	s->sp = 0;
	s->d = down;
	s->l = 0;
	s->r = 0;
	/* Rolled: once per task, and unrolling it costs the kernels
	 * registers that the step loop then cannot have. */
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (j = 0; j + 1 < levels; j++) {
		uint32_t sh = 1u + (j == skip_a) + (j == skip_b);
		rows += (int)sh;
		/* The diagonals' columns on level j+1, without the columns
		 * that d holds anyway: those beyond the board (from n up, where
		 * the shift and the flag go) and the taken ones. */
		uint32_t fixed = (uint32_t)((left << rows) >> 32) | (uint32_t)(right >> rows);
		tab[j * tstride] = (fixed & ~down & ~1u) | (j + 2 == levels ? 1u : 0u) | sh << 28;
	}
	s->f = ~(down | (uint32_t)(left >> 32) | (uint32_t)right);
	if (levels == 1) { /* the start row is the last: a test settles it */
		if (s->f != 0)
			k->total += s->w;
		s->f = 0;
	}
}

/*
 * nq_ef_step places the next queen of the current level and returns 1, or
 * returns 0 when the task is finished (now or before). It is written as
 * one straight-line iteration: the three outcomes (descend, stay, pop)
 * are selects, the push a predicated 16-byte store and the pop a
 * predicated 16-byte load, so the threads of a warp do not diverge on
 * them.
 */
NQ_HD int nq_ef_step(nq_ef_state *s, nq_ef_counts *k)
{
	uint32_t f = s->f;
	if (f == 0)
		return 0;
	const uint32_t bit = f & (0u - f); /* lowest free column */
	f ^= bit;
	const uint32_t lvl = f >> NQ_EF_LEVEL;
	const uint32_t t = s->tab[(int)lvl * s->tstride];
	const uint32_t sh = t >> 28;
	const uint32_t nl = (s->l | bit) << sh, nd = s->d | bit, nr = (s->r | bit) >> sh;
	const uint32_t nf = ~(nl | nd | nr | t);
	const int last = (int)(t & 1u), keep = (f & NQ_EF_COLS) != 0;
	const int desc = !last && nf != 0;
	const int push = desc && keep, pop = !desc && !keep;
	const uint32_t sp = s->sp;
	if (NQ_NODES)
		k->nodes++;
	/* a queen on level J-1 completes the board */
	k->total += last && nf != 0 ? (uint64_t)s->w : 0u;
	if (pop && sp == 0) { /* nothing saved: the task is done */
		s->f = 0;
		return 0;
	}
	nq_ef_frame cur, up;
	cur.f = f;
	cur.d = s->d;
	cur.l = s->l;
	cur.r = s->r;
	if (push) /* this level has columns left: save it */
		s->fr[(int)sp * s->fstride] = cur;
	if (pop)
		up = s->fr[((int)sp - 1) * s->fstride];
	else
		up = cur;
	s->sp = sp + (uint32_t)push - (uint32_t)pop;
	s->f = desc ? nf | (lvl + 1u) << NQ_EF_LEVEL : up.f;
	s->d = desc ? nd : up.d;
	s->l = desc ? nl : up.l;
	s->r = desc ? nr : up.r;
	return 1;
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
	nq_ef_start(&s, fr, 1, tab, 1, left, right, down, meta, k);
	while (nq_ef_step(&s, k))
		;
}

#endif /* NQTOTAL_H */
