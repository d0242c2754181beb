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
 *     bit 31      0
 *   tab[J-1], below the last level, has every column (the step from the
 *   last level finds no free column) and bit 31 (NQ_EF_DONE): a queen on
 *   the last level completes the board, and the step counts it by adding
 *   the word's bit 31, with no test.
 *
 * The step. One iteration places one queen, bit: it derives the next
 * level's words in place and goes on with the next level (descend: the
 * child has a free column) or loads the most recently saved level over
 * them (pop). Then it splits the next queen off the level's free columns
 * and saves (pushes) the level if it has columns left besides. So every
 * saved level has work, a level whose child is dead but which has columns
 * left is popped again at once (it was pushed at the end of the step
 * before), and the step needs no inner loop and no select between its
 * outcomes. It reads its level's table word, a frame when it pops and
 * writes one when the level has columns left: a predicated 16-byte load
 * and store, of the same four registers, so that the threads of a warp do
 * not diverge on them. The last level has at most one free column, so it
 * is never saved; its queen's step counts a completion and pops. Below a
 * task's first saved level lie NQ_EF_AFTER + 1 sentinel frames with no
 * column left and every column taken on level 0: popping the top one
 * finishes the task (bit 0), and each step after that finds no free
 * column, counts nothing and pops the next one, so that up to NQ_EF_AFTER
 * steps after the end do no harm (the GPU's step loop takes several steps
 * between two looks at whether a thread has finished). The state
 * nq_ef_start leaves is a placeholder whose first step places no queen and
 * only pops the start row's frame.
 *
 * Nodes are the queens the Go search places (cpu.EightfoldTask): every
 * queen of the steps but those on the last level, whose completions the
 * Go search finds by a test. So a task of k nodes and c completions takes
 * 1 + k + c steps.
 *
 * Memory. The frames and table words of a thread lie at byte strides:
 * frame k at base + k * fs (frames 0..NQ_EF_AFTER are the sentinels, the
 * next one the start row), table word j at tab + j * ts. A thread-private
 * search uses strides 16 and 4. A block's search in shared memory
 * interleaves the threads: frame k of thread t at byte (k * blockDim.x +
 * t) * 16 of the frame area, table word j at (j * blockDim.x + t) * 4 of
 * the table area, so that the 32 threads of a warp touch 512 contiguous
 * bytes with one 128-bit access each, and 32 consecutive words. Neither
 * has bank conflicts. A task of J levels needs J + NQ_EF_AFTER frames (the
 * sentinels and at most J-1 saved levels) and J table words
 * (NQ_EF_FRAMES).
 *
 * The API (nq_ef_state): nq_ef_start loads a task into a state and
 * returns 0 when the task needs no step, nq_ef_step runs one iteration and
 * returns 0 when it has finished the task (after that, at most NQ_EF_AFTER
 * more calls before the next nq_ef_start, which do nothing), and
 * nq_ef_finish adds the task's weighted completions to the counters. The GPU kernels run nq_ef_step in a loop
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
 * NQ_EF_COLS for every n <= 28; the level is in NQ_EF_LVL of d; NQ_EF_DONE
 * marks the table word below the last level. */
#define NQ_EF_COL0 4
#define NQ_EF_COLS 0x7fffffe0u
#define NQ_EF_LVL 0x1fu
#define NQ_EF_DONE 0x80000000u

/* NQ_EF_AFTER: how many steps after its end a task's state takes without
 * harm (see The step above). */
#define NQ_EF_AFTER 2

/* NQ_EF_FRAMES(levels): the frames a task of that many levels needs (and
 * more than its table words); NQ_EF_FRAMES(NQ_MAXN - 3) is enough for every
 * task. */
#define NQ_EF_FRAMES(levels) ((levels) + NQ_EF_AFTER)

/* A saved level: its untried columns and its words. */
typedef struct NQ_ALIGN16 {
	uint32_t f, d, l, r;
} nq_ef_frame;

/*
 * Frames and table words live in shared memory on the GPU and in plain
 * arrays on the host. nq_ef_ptr is where one lies: a shared-memory address
 * (32 bits) on the GPU, a pointer on the host; both step by adding a byte
 * count. The accessors below are the step's only memory operations; on the
 * GPU they are single PTX instructions, so that the compiler keeps the
 * push a predicated 16-byte store and the pop a predicated 16-byte load
 * into the registers that already hold the child's words (the C versions
 * say what they do).
 */
#ifdef __CUDA_ARCH__
typedef uint32_t nq_ef_ptr;

/* nq_ef_ptr_of returns the place of p, which points into shared memory. */
NQ_HD nq_ef_ptr nq_ef_ptr_of(void *p)
{
	return (nq_ef_ptr)__cvta_generic_to_shared(p);
}

/* nq_ef_load returns the word at a. */
NQ_HD uint32_t nq_ef_load(nq_ef_ptr a)
{
	uint32_t v;
	asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
	return v;
}

/* nq_ef_store writes the word v at a. */
NQ_HD void nq_ef_store(nq_ef_ptr a, uint32_t v)
{
	asm volatile("st.shared.u32 [%0], %1;" : : "r"(a), "r"(v) : "memory");
}

/* nq_ef_push writes the frame {f, d, l, r} at a. */
NQ_HD void nq_ef_push(nq_ef_ptr a, uint32_t f, uint32_t d, uint32_t l, uint32_t r)
{
	asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" : : "r"(a), "r"(f), "r"(d), "r"(l), "r"(r) : "memory");
}

/* nq_ef_pop, if pop != 0, steps *a back by fs and reads the frame there
 * into *f, *d, *l, *r; otherwise it leaves them all as they are. */
NQ_HD void nq_ef_pop(nq_ef_ptr *a, uint32_t fs, uint32_t pop, uint32_t *f, uint32_t *d, uint32_t *l,
		     uint32_t *r)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %5, 0;\n\t@p sub.u32 %4, %4, %6;\n\t"
		     "@p ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n\t}"
		     : "+r"(*f), "+r"(*d), "+r"(*l), "+r"(*r), "+r"(*a)
		     : "r"(pop), "r"(fs)
		     : "memory");
}

#else
typedef char *nq_ef_ptr;

NQ_HD nq_ef_ptr nq_ef_ptr_of(void *p)
{
	return (nq_ef_ptr)p;
}

NQ_HD uint32_t nq_ef_load(nq_ef_ptr a)
{
	return *(const uint32_t *)a;
}

NQ_HD void nq_ef_store(nq_ef_ptr a, uint32_t v)
{
	*(uint32_t *)a = v;
}

NQ_HD void nq_ef_push(nq_ef_ptr a, uint32_t f, uint32_t d, uint32_t l, uint32_t r)
{
	nq_ef_frame *fr = (nq_ef_frame *)a;
	fr->f = f;
	fr->d = d;
	fr->l = l;
	fr->r = r;
}

NQ_HD void nq_ef_pop(nq_ef_ptr *a, uint32_t fs, uint32_t pop, uint32_t *f, uint32_t *d, uint32_t *l,
		     uint32_t *r)
{
	if (pop != 0) {
		*a -= fs;
		const nq_ef_frame *fr = (const nq_ef_frame *)*a;
		*f = fr->f;
		*d = fr->d;
		*l = fr->l;
		*r = fr->r;
	}
}

#endif

/* nq_ef_cols returns NQ_EF_COLS, on the GPU as a value the compiler does
 * not see: with the constant it would test ~x & NQ_EF_COLS != 0 as (x &
 * NQ_EF_COLS) != NQ_EF_COLS, a second instruction beside the first. */
NQ_HD uint32_t nq_ef_cols(void)
{
	uint32_t c = NQ_EF_COLS;
#ifdef __CUDA_ARCH__
	asm("" : "+r"(c));
#endif
	return c;
}

/*
 * nq_ef_counts are the counters a search adds to: the weighted
 * completions (Σ weight × completions; over every task of N, Total) and
 * the nodes (see Nodes above). nodes stays 0 unless NQ_NODES is set.
 */
typedef struct {
	uint64_t total, nodes;
} nq_ef_counts;

/*
 * nq_ef_state is one task's search in progress: the current level's words
 * (bit, d, l, r; see Words above) and its table word (ta), the next free
 * frame (top), table word 0 (tab), the strides in bytes between frames
 * (fs) and between table words (ts), the task's weight and the
 * completions its steps have found since nq_ef_finish last counted them.
 */
typedef struct {
	uint32_t bit, d, l, r;
	nq_ef_ptr ta, top, tab;
	uint32_t fs, ts;
	uint64_t w, c;
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
 * nq_ef_start loads one task into s: it fills its table, writes its first
 * two frames and leaves the placeholder state (see The step above); it
 * returns 1, or 0 when the task is settled already (then nq_ef_step must
 * not run):
 *
 *   tab, ts       the thread's table word 0 and the stride in bytes
 *                 between its table words (NQ_EF_FRAMES(levels) of them)
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
NQ_HD int nq_ef_start(nq_ef_state *s, nq_ef_ptr tab, uint32_t ts, nq_ef_ptr base, uint32_t fs, uint64_t left,
		      uint64_t right, uint32_t down, uint32_t meta, nq_ef_counts *k)
{
	const int levels = (int)(meta & 0xffu);
	const int skip_a = (int)(meta >> 8 & 0xffu), skip_b = (int)(meta >> 16 & 0xffu);
	const uint32_t f = ~((down | (uint32_t)(left >> 32) | (uint32_t)right) << NQ_EF_COL0) & NQ_EF_COLS;
	int j, rows = 0;
	if (levels == 1) { /* the start row is the last: a test settles it */
		if (f != 0)
			k->total += meta >> 24;
		return 0;
	}
	s->tab = tab;
	s->ts = ts;
	s->fs = fs;
	s->w = meta >> 24;
	s->c = 0;
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
		nq_ef_store(tab + (uint32_t)j * ts, (fixed << NQ_EF_COL0 & NQ_EF_COLS) | sh);
	}
	/* Below the last level: no column, and a completion to count. */
	nq_ef_store(tab + (uint32_t)j * ts, NQ_EF_COLS | NQ_EF_DONE);
	/* Frames 0..NQ_EF_AFTER are sentinels: no column left (popping one
	 * ends the task), every column taken on level 0 (a step from one
	 * pops the one below). The next frame is the start row, level 0:
	 * every free column. */
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (j = 0; j <= NQ_EF_AFTER; j++) {
		nq_ef_store(base, 0u);
		nq_ef_store(base + 4u, NQ_EF_COLS);
		nq_ef_store(base + 8u, 0u);
		nq_ef_store(base + 12u, 0u);
		base += fs;
	}
	nq_ef_store(base, f);
	nq_ef_store(base + 4u, down << NQ_EF_COL0 & NQ_EF_COLS);
	nq_ef_store(base + 8u, 0u);
	nq_ef_store(base + 12u, 0u);
	s->top = base + fs;
	/* The state the step starts from is a placeholder with no queen
	 * (bit 0) and no free column below it: the first step only pops
	 * the start row. */
	s->bit = 0;
	s->d = NQ_EF_COLS; /* level 0 */
	s->l = 0;
	s->r = 0;
	s->ta = tab;
	return 1;
}

/*
 * nq_ef_step places the next queen of the current level (none in the
 * first step after nq_ef_start, which only pops the start row) and
 * returns 1, or 0 when it has popped the top sentinel: the task is
 * finished (up to NQ_EF_AFTER more calls return 0 and do nothing else).
 * It is one straight-line iteration (see The step above).
 */
NQ_HD int nq_ef_step(nq_ef_state *s, nq_ef_counts *k)
{
	const uint32_t bit = s->bit;
	uint32_t f, d = s->d, l = s->l, r = s->r;
	nq_ef_ptr top = s->top;
	const uint32_t t = nq_ef_load(s->ta);
	if (NQ_NODES) /* not nq_ef_start's placeholder, nor a last-level queen */
		k->nodes += bit != 0 && (t & NQ_EF_DONE) == 0;
	/* A queen on the last level completes the board. */
	s->c += t >> 31; /* NQ_EF_DONE */
	/* The child, in place. The queen's column is free, in none of d, l
	 * and r, so adding it is or-ing it. */
	d = d + bit + 1u; /* and the next level */
	r = nq_ef_shr(r + bit, t);
	l = nq_ef_shl(l + bit, t);
	f = ~(l | r | t | d) & nq_ef_cols();
	/* Descend if the child has a free column, else the most recently
	 * saved level, or a sentinel. */
	nq_ef_pop(&top, s->fs, f == 0, &f, &d, &l, &r);
	/* The next queen, and the level saved if it has columns left. */
	s->bit = f & (0u - f);
	f -= s->bit;
	if (f != 0) {
		nq_ef_push(top, f, d, l, r);
		top += s->fs;
	}
	s->top = top;
	s->ta = s->tab + (d & NQ_EF_LVL) * s->ts;
	s->d = d;
	s->l = l;
	s->r = r;
	return s->bit != 0;
}

/*
 * nq_ef_finish adds the weight times the completions the task's steps
 * have found so far to k->total and starts their count again. Call it
 * after the step that returned 0 (more often does no harm).
 */
NQ_HD void nq_ef_finish(nq_ef_state *s, nq_ef_counts *k)
{
	k->total += s->w * s->c;
	s->c = 0;
}

/*
 * nq_eightfold_task runs one task to the end (arguments as nq_ef_start,
 * the stack thread-private) and adds its weighted completions and nodes to
 * k. The host's (the GPU kernels keep their stacks in shared memory).
 */
#ifndef __CUDA_ARCH__
NQ_HD void nq_eightfold_task(uint64_t left, uint64_t right, uint32_t down, uint32_t meta, nq_ef_counts *k)
{
	nq_ef_state s;
	nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 3)];
	uint32_t tab[NQ_EF_FRAMES(NQ_MAXN - 3)];
	if (nq_ef_start(&s, (nq_ef_ptr)tab, 4, (nq_ef_ptr)fr, 16, left, right, down, meta, k)) {
		while (nq_ef_step(&s, k))
			;
		nq_ef_finish(&s, k);
	}
}
#endif

#endif /* NQTOTAL_H */
