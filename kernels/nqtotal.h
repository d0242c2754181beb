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
 *         r | the placed queens' diagonals within NQ_EF_COLS), with the
 *         level's row, counted from the start row, in bits 0..4
 *         (NQ_EF_ROWS)
 *   l, r  the diagonals of the queens the search places itself, l moving
 *         to higher columns row by row, r to lower ones (bits outside
 *         NQ_EF_COLS hold diagonals that have left the board)
 *
 * The queens placed before the search (border and prefix) never change.
 * Their diagonals on the row k rows below the start row are a 64-bit
 * shift of the task's two diagonal words (see nq_ef_start), which the
 * step works out for each new level from the row in d: no table in
 * memory. The rows from a level to the next are 1, or 2 or 3 where a row
 * of the border's side queens lies between; the task's schedule, two bits
 * per row, gives them (a 64-bit shift and a mask), and 0 on the last
 * level. A queen on the last level completes the board: its step finds
 * the same row again, with every column taken, and counts 1 >> 0.
 *
 * The step. One iteration places one queen, bit: it derives the next
 * level's words in place and goes on with the next level (descend: the
 * child has a free column) or loads the most recently saved level over
 * them (pop). Then it splits the next queen off the level's free columns
 * and saves (pushes) the level if it has columns left besides. So every
 * saved level has work, a level whose child is dead but which has columns
 * left is popped again at once (it was pushed at the end of the step
 * before), and the step needs no inner loop and no select between its
 * outcomes. Its only memory operations are a predicated 16-byte load when
 * it pops and a predicated 16-byte store when the level has columns left,
 * of the same four registers, so that the threads of a warp do not
 * diverge on them (on the GPU they are PTX with a predicate, not
 * branches). The last level has at most one free column, so it is never
 * saved. A step whose child is dead when no level is saved left finishes
 * the task: it pops nothing and sets every column taken on row 0 instead
 * (bit 0), so every step after that finds no free column, counts nothing
 * and finishes again (the GPU's step loop takes several steps between two
 * looks at whether a thread has finished). The state nq_ef_start leaves is a placeholder
 * whose first step places no queen and only pops the start row's frame.
 *
 * Nodes are the queens the Go search places (cpu.EightfoldTask): every
 * queen of the steps but those on the last level, whose completions the
 * Go search finds by a test. So a task of k nodes and c completions takes
 * 1 + k + c steps.
 *
 * Memory. The frames of a thread lie at a byte stride: frame k at base +
 * k * fs (frame 0 is the start row's). A
 * thread-private search uses stride 16. A block's search in shared memory
 * interleaves the threads: frame k of thread t at byte (k * blockDim.x +
 * t) * 16, so that the 32 threads of a warp touch 512 contiguous bytes
 * with one 128-bit access each: no bank conflicts. A task of J levels
 * needs J-1 frames (at most J-1 saved levels, the last never:
 * NQ_EF_FRAMES), 16 bytes per level.
 *
 * The API (nq_ef_state): nq_ef_start loads a task into a state and
 * returns 0 when the task needs no step, nq_ef_step runs one iteration and
 * returns 0 when it has finished the task (after that, any number of
 * further calls before the next nq_ef_start do nothing), and nq_ef_finish
 * adds the task's weighted completions to the counters. The GPU kernels
 * run nq_ef_step in a loop and load a thread's next task between two runs
 * of it (eightfold.cu); nq_eightfold_task runs one task to the end (host
 * tests). Both are the same code.
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
 * NQ_EF_COLS for every n <= 28; the row is in NQ_EF_ROWS of d. */
#define NQ_EF_COL0 4
#define NQ_EF_COLS 0x7fffffe0u
#define NQ_EF_ROWS 0x1fu

/* NQ_EF_AFTER: the steps the GPU's step loop takes between two looks at
 * whether a thread has finished its task, less one (any number of steps
 * after its end does no harm; see The step above). */
#define NQ_EF_AFTER 9

/* NQ_EF_FRAMES(levels): the frames a task of that many levels needs;
 * NQ_EF_FRAMES(NQ_MAXN - 2) is enough for every task. */
#define NQ_EF_FRAMES(levels) ((levels) > 2 ? (levels)-1 : 1)

/* A saved level: its untried columns and its words. */
typedef struct NQ_ALIGN16 {
	uint32_t f, d, l, r;
} nq_ef_frame;

/*
 * Frames live in shared memory on the GPU and in plain arrays on the
 * host. nq_ef_ptr is where one lies: a shared-memory address (32 bits) on
 * the GPU, a pointer on the host; both step by adding a byte count. The
 * accessors below are the step's only memory operations; on the GPU they
 * are PTX with a predicate, so that the push is a predicated 16-byte store
 * and the pop a predicated 16-byte load into the registers that already
 * hold the child's words, with no branch around either (the C versions
 * say what they do).
 */
#ifdef __CUDA_ARCH__
typedef uint32_t nq_ef_ptr;

/* nq_ef_ptr_of returns the place of p, which points into shared memory. */
NQ_HD nq_ef_ptr nq_ef_ptr_of(void *p)
{
	return (nq_ef_ptr)__cvta_generic_to_shared(p);
}

/* nq_ef_store writes the frame {f, d, l, r} at a. */
NQ_HD void nq_ef_store(nq_ef_ptr a, uint32_t f, uint32_t d, uint32_t l, uint32_t r)
{
	asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" : : "r"(a), "r"(f), "r"(d), "r"(l), "r"(r) : "memory");
}

/* nq_ef_push, if f != 0, writes the frame {f, d, l, r} at *top and steps
 * *top on by fs; otherwise it does nothing. */
NQ_HD void nq_ef_push(nq_ef_ptr *top, uint32_t fs, uint32_t f, uint32_t d, uint32_t l, uint32_t r)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t"
		     "@p st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n\t@p add.u32 %0, %0, %5;\n\t}"
		     : "+r"(*top)
		     : "r"(f), "r"(d), "r"(l), "r"(r), "r"(fs)
		     : "memory");
}

/* nq_ef_pop, if *f == 0, steps *top back by fs and reads the frame there
 * into *f, *d, *l, *r, or, where *top is base already (no level saved),
 * sets *d to every column taken on row 0 (the task's end); otherwise it
 * leaves them all as they are. */
NQ_HD void nq_ef_pop(nq_ef_ptr *top, nq_ef_ptr base, uint32_t fs, uint32_t *f, uint32_t *d, uint32_t *l,
		     uint32_t *r)
{
	/* d is set first where f == 0; a pop's load then writes over it. */
	asm volatile("{\n\t.reg .pred p, q;\n\tsetp.eq.u32 p, %0, 0;\n\tsetp.gt.u32 q, %4, %5;\n\t"
		     "and.pred q, q, p;\n\t@p mov.u32 %1, %7;\n\t"
		     "@q sub.u32 %4, %4, %6;\n\t@q ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n\t}"
		     : "+r"(*f), "+r"(*d), "+r"(*l), "+r"(*r), "+r"(*top)
		     : "r"(base), "r"(fs), "n"(NQ_EF_COLS)
		     : "memory");
}

#else
typedef char *nq_ef_ptr;

NQ_HD nq_ef_ptr nq_ef_ptr_of(void *p)
{
	return (nq_ef_ptr)p;
}

NQ_HD void nq_ef_store(nq_ef_ptr a, uint32_t f, uint32_t d, uint32_t l, uint32_t r)
{
	nq_ef_frame *fr = (nq_ef_frame *)a;
	fr->f = f;
	fr->d = d;
	fr->l = l;
	fr->r = r;
}

NQ_HD void nq_ef_push(nq_ef_ptr *top, uint32_t fs, uint32_t f, uint32_t d, uint32_t l, uint32_t r)
{
	if (f != 0) {
		nq_ef_store(*top, f, d, l, r);
		*top += fs;
	}
}

NQ_HD void nq_ef_pop(nq_ef_ptr *top, nq_ef_ptr base, uint32_t fs, uint32_t *f, uint32_t *d, uint32_t *l,
		     uint32_t *r)
{
	if (*f == 0) {
		*d = NQ_EF_COLS;
		if (*top > base) {
			*top -= fs;
			const nq_ef_frame *fr = (const nq_ef_frame *)*top;
			*f = fr->f;
			*d = fr->d;
			*l = fr->l;
			*r = fr->r;
		}
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
 * (bit, d, l, r; see Words above), the next free frame (top), the
 * thread's frame 0 (base), the stride in bytes between frames (fs), the
 * placed queens' diagonal words (dl, dr: see nq_ef_fixed), the schedule of
 * rows (sched: see nq_ef_rows), the task's weight and the completions its
 * steps have found since nq_ef_finish last counted them.
 */
typedef struct {
	uint32_t bit, d, l, r;
	nq_ef_ptr top, base;
	uint32_t fs;
	uint64_t dl, dr, sched;
	uint64_t w, c;
} nq_ef_state;

/* nq_ef_fixed returns the columns (bits 5..30, and others outside) that
 * the queens placed before the search attack on row k below the start
 * row: the high word of dl << k and the low word of dr >> k (a 64-bit
 * funnel shift each on the GPU). */
NQ_HD uint32_t nq_ef_fixed(const nq_ef_state *s, uint32_t k)
{
	return (uint32_t)((s->dl << k) >> 32) | (uint32_t)(s->dr >> k);
}

/* nq_ef_rows returns the rows from row k (a level's) to the next level's,
 * from the schedule's two bits for row k: 1, 2 or 3, and 0 on the last
 * level. */
NQ_HD uint32_t nq_ef_rows(const nq_ef_state *s, uint32_t k)
{
	return (uint32_t)(s->sched >> (2u * k)) & 3u;
}

/*
 * nq_ef_start loads one task into s: it works out the placed queens'
 * diagonal words and the schedule of rows, writes the start row's frame
 * and leaves the placeholder state (see The step above);
 * it returns 1, or 0 when the task is settled already (then nq_ef_step
 * must not run):
 *
 *   base, fs      the thread's frame 0 and the stride in bytes between its
 *                 frames (NQ_EF_FRAMES(levels) of them)
 *   left, right   the task's diagonal words (tasks.Eightfold.Left, Right):
 *                 at k rows below the start row, the placed queens attack
 *                 the columns of (uint32)((left << k) >> 32) |
 *                 (uint32)(right >> k)
 *   down          the columns taken, and the bits from n up
 *                 (tasks.Eightfold.Down)
 *   meta          levels J in bits 0..7 (1 <= J <= NQ_MAXN - 2), the two
 *                 skip levels in bits 8..15 and 16..23 (the step from level
 *                 j crosses one more row for each equal to j; 0xff: none),
 *                 the weight in bits 24..31 (tasks.Eightfold.Meta)
 *
 * A task of one level is settled here: its only level is the last.
 */
NQ_HD int nq_ef_start(nq_ef_state *s, nq_ef_ptr base, uint32_t fs, uint64_t left, uint64_t right, uint32_t down,
		      uint32_t meta, nq_ef_counts *k)
{
	const uint32_t levels = meta & 0xffu;
	const uint32_t a = meta >> 8 & 0xffu, b = meta >> 16 & 0xffu;
	const uint32_t f = ~((down | (uint32_t)(left >> 32) | (uint32_t)right) << NQ_EF_COL0) & NQ_EF_COLS;
	if (levels == 1) { /* the start row is the last: a test settles it */
		if (f != 0)
			k->total += meta >> 24;
		return 0;
	}
	/* The words shifted by NQ_EF_COL0, so that a shift of them puts column c
	 * at bit c + NQ_EF_COL0; the bits that leave them are columns no level
	 * reaches. */
	s->dl = left << NQ_EF_COL0;
	s->dr = right << NQ_EF_COL0;
	/* The schedule: 1 for every row above the last level's, 1 more on the
	 * row of each skip level (a skip level j < levels - 1 lies on row j
	 * plus the skips above it). */
	{
		/* sa, sb: whether a, b are skip levels (0xff is none); without
		 * branches, which the threads of a warp would take apart. */
		const uint32_t sa = a + 1u < levels, sb = b + 1u < levels;
		const uint32_t last = levels - 1u + sa + sb;
		const uint32_t ra = a + (sb & (b < a)), rb = b + (sa & (a < b));
		s->sched = (0x5555555555555555ull & ((1ull << (2u * last)) - 1u)) + ((uint64_t)sa << (2u * ra & 63u)) +
			   ((uint64_t)sb << (2u * rb & 63u));
	}
	s->base = base;
	s->fs = fs;
	s->w = meta >> 24;
	s->c = 0;
	/* Frame 0 is the start row: every free column. */
	nq_ef_store(base, f, down << NQ_EF_COL0 & NQ_EF_COLS, 0u, 0u);
	s->top = base + fs;
	/* The state the step starts from is a placeholder with no queen
	 * (bit 0) and no free column below it: the first step only pops
	 * the start row. */
	s->bit = 0;
	s->d = NQ_EF_COLS; /* row 0 */
	s->l = 0;
	s->r = 0;
	return 1;
}

/*
 * nq_ef_step places the next queen of the current level (none in the
 * first step after nq_ef_start, which only pops the start row) and
 * returns 1, or 0 when its child is dead and no level is saved: the task
 * is finished
 * (any further calls return 0 and do nothing else). It is one
 * straight-line iteration (see The step above).
 */
NQ_HD int nq_ef_step(nq_ef_state *s, nq_ef_counts *k)
{
	const uint32_t bit = s->bit;
	uint32_t f, d = s->d, l = s->l, r = s->r;
	nq_ef_ptr top = s->top;
	const uint32_t sh = nq_ef_rows(s, d & NQ_EF_ROWS);
	if (NQ_NODES) /* not nq_ef_start's placeholder, nor a last-level queen */
		k->nodes += bit != 0 && sh != 0;
	/* A queen on the last level completes the board. */
	s->c += 1u >> sh;
	/* The child, in place. The queen's column is free, in none of d, l
	 * and r, so adding it is or-ing it. */
	d = d + bit + sh; /* and the next level's row */
	l = (l + bit) << sh;
	r = (r + bit) >> sh;
	f = ~(l | r | d | nq_ef_fixed(s, d & NQ_EF_ROWS)) & nq_ef_cols();
	/* Descend if the child has a free column, else the most recently
	 * saved level, or the task's end. */
	nq_ef_pop(&top, s->base, s->fs, &f, &d, &l, &r);
	/* The next queen, and the level saved if it has columns left. */
	s->bit = f & (0u - f);
	f -= s->bit;
	nq_ef_push(&top, s->fs, f, d, l, r);
	s->top = top;
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
	nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 2)];
	if (nq_ef_start(&s, (nq_ef_ptr)fr, 16, left, right, down, meta, k)) {
		while (nq_ef_step(&s, k))
			;
		nq_ef_finish(&s, k);
	}
}
#endif

#endif /* NQTOTAL_H */
