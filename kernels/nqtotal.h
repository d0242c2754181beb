/*
 * nqtotal.h: the eightfold search (Total only), in C that nvcc (device and
 * host code) and a host C compiler (C99 or later) build: the GPU kernels
 * (eightfold.cu), the host tests (kernels/host) and the warp model
 * (scripts/warpsim) all run this step. docs/kernels.md gives the design.
 *
 * A task (tasks.Eightfold) is a border pre-placement with its first empty
 * rows filled; the search fills its levels (its empty rows from the start
 * row down) and adds the task's weight per completion. Column c is bit
 * c + NQ_EF_COL0 of a word. A level's words: d, the columns taken (and
 * every column from n-1 up), with the level's row (counted from the start
 * row) in bits 0..4; l and r, the diagonals of every queen placed above
 * it (the task's and the search's), moving to higher and lower columns.
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
 * after a task's end do nothing). */
#define NQ_EF_AFTER 9

/* NQ_EF_FRAMES(levels): the frames a task of that many levels needs (its
 * last level is never saved); NQ_EF_FRAMES(NQ_MAXN - 2) is enough for
 * every task. */
#define NQ_EF_FRAMES(levels) ((levels) > 2 ? (levels)-1 : 1)

/* NQ_EF_C0 is -0.0f, where s->c counts from: -0 + x is x, so the first
 * addition of a count is no addition at all. */
#define NQ_EF_C0 (-0.0f)

/* A saved level: its untried columns and its words. */
typedef struct NQ_ALIGN16 {
	uint32_t f, d, l, r;
} nq_ef_frame;

/* nq_ef_mulhi returns the high word of a * b. */
NQ_HD uint32_t nq_ef_mulhi(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
	return __umulhi(a, b);
#else
	return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

/* nq_ef_fun returns, of the 64-bit hi:lo, the high word shifted left by n
 * if left is 1, else the low word shifted right by n (n < 64; left is a
 * constant where it is called). On the GPU the PTX is a 64-bit shift of
 * the pair, which ptxas makes one funnel shift (SHF) and GPGPU-Sim runs
 * as it is. */
NQ_HD uint32_t nq_ef_fun(uint32_t hi, uint32_t lo, uint32_t n, int left)
{
#ifdef __CUDA_ARCH__
	uint32_t x;
#define NQ_EF_FUN(shifts)                                                                                   \
	asm("{\n\t.reg .b64 %%nqw0;\n\tmov.b64 %%nqw0, {%2, %1};\n\t" shifts "cvt.u32.u64 %0, %%nqw0;\n\t}" \
	    : "=r"(x)                                                                                      \
	    : "r"(hi), "r"(lo), "r"(n))
	if (left)
		NQ_EF_FUN("shl.b64 %%nqw0, %%nqw0, %3;\n\tshr.b64 %%nqw0, %%nqw0, 32;\n\t");
	else
		NQ_EF_FUN("shr.b64 %%nqw0, %%nqw0, %3;\n\t");
#undef NQ_EF_FUN
	return x;
#else
	const uint64_t w = (uint64_t)hi << 32 | lo;
	return left ? (uint32_t)((w << n) >> 32) : (uint32_t)(w >> n);
#endif
}

/* nq_ef_free returns the columns of NQ_EF_COLS in none of d, l and r. On
 * the GPU it is PTX: NVVM would test ~x & NQ_EF_COLS != 0 as
 * (x & NQ_EF_COLS) != NQ_EF_COLS, one instruction more. */
NQ_HD uint32_t nq_ef_free(uint32_t d, uint32_t l, uint32_t r)
{
#ifdef __CUDA_ARCH__
	uint32_t x;
	asm("{\n\t.reg .b32 %%nqt1;\n\tor.b32 %%nqt1, %1, %2;\n\tor.b32 %%nqt1, %%nqt1, %3;\n\t"
	    "not.b32 %%nqt1, %%nqt1;\n\tand.b32 %0, %%nqt1, %4;\n\t}"
	    : "=r"(x)
	    : "r"(d), "r"(l), "r"(r), "r"(NQ_EF_COLS));
	return x;
#else
	return ~(d | l | r) & NQ_EF_COLS;
#endif
}

/* nq_ef_last returns 1 where the schedule's word y (nq_ef_sched) is a last
 * level's, which is 0, and 0 where it is another level's, whose bits read
 * as a float are at least 2^-31 in magnitude (or NaN): 1 - 2^40 |y| clamped
 * to [0, 1]. On the GPU one FFMA with saturation: the completions are
 * counted on the FP32 pipe, which the step leaves idle. */
NQ_HD float nq_ef_last(uint32_t y)
{
#ifdef __CUDA_ARCH__
	float x;
	asm("{\n\t.reg .f32 %%nqf0;\n\tabs.f32 %%nqf0, %1;\n\t"
	    "fma.rn.sat.f32 %0, %%nqf0, 0fD3800000, 0f3F800000;\n\t}"
	    : "=f"(x)
	    : "r"(y));
	return x;
#else
	union {
		uint32_t u;
		float f;
	} v;
	v.u = y & 0x7fffffffu;
	const float x = 1.0f - 0x1p40f * v.f; /* exact: v.f is 0 or at least 2^-31, or NaN */
	return x > 0.0f ? x : 0.0f;	       /* a NaN compares false */
#endif
}

/*
 * Frames live in shared memory on the GPU and in plain arrays on the
 * host. nq_ef_ptr is where one lies: a shared-memory address (32 bits) on
 * the GPU, an address on the host; both step by adding a byte count. A
 * search's frames lie at a stride fs from its frame 0, base, and top is
 * the most recently saved one (base - fs when none is saved).
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

/* nq_ef_next (see the C version below) is one piece of PTX: the load and
 * the store are predicated, not branched around, and write and read the
 * registers the child's words are in; d is set first where f == 0, and
 * the pop's load then writes over it. */
NQ_HD void nq_ef_next(nq_ef_ptr *top, nq_ef_ptr base, uint32_t fs, uint32_t k0, uint32_t *bit, uint32_t *f,
		      uint32_t *d, uint32_t *l, uint32_t *r)
{
	asm volatile("{\n\t.reg .pred p, q;\n\t.reg .u32 %%nqt0;\n\t"
		     "setp.eq.u32 p, %0, 0;\n\tsetp.ge.s32 q, %5, %6;\n\tand.pred q, q, p;\n\t"
		     "@p mad.lo.u32 %1, %1, %9, %8;\n\t"
		     "@q ld.shared.v4.u32 {%0, %1, %2, %3}, [%5];\n\t"
		     "neg.s32 %%nqt0, %0;\n\tand.b32 %4, %0, %%nqt0;\n\tsub.u32 %0, %0, %4;\n\t"
		     "setp.ne.u32 p, %0, 0;\n\t@q sub.u32 %5, %5, %7;\n\t"
		     "@p add.u32 %5, %5, %7;\n\t@p st.shared.v4.u32 [%5], {%0, %1, %2, %3};\n\t}"
		     : "+r"(*f), "+r"(*d), "+r"(*l), "+r"(*r), "=r"(*bit), "+r"(*top)
		     : "r"(base), "r"(fs), "r"(NQ_EF_COLS), "r"(k0)
		     : "memory");
}

#else
typedef uintptr_t nq_ef_ptr;

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

/* nq_ef_next moves on from the child {*f, *d, *l, *r}: where it has no
 * free column (*f == 0) it pops the most recently saved level into them
 * or, where none is saved, sets *d to every column taken on row 0 (the
 * task's end: every later step finds no free column and does nothing);
 * then it splits the next queen off *f into *bit and saves the level if it
 * has columns left besides. */
NQ_HD void nq_ef_next(nq_ef_ptr *top, nq_ef_ptr base, uint32_t fs, uint32_t k0, uint32_t *bit, uint32_t *f,
		      uint32_t *d, uint32_t *l, uint32_t *r)
{
	if (*f == 0) {
		*d = NQ_EF_COLS;
		if ((intptr_t)(*top - base) >= 0) {
			const nq_ef_frame *fr = (const nq_ef_frame *)*top;
			*f = fr->f;
			*d = fr->d;
			*l = fr->l;
			*r = fr->r;
			*top -= fs;
		}
	}
	*bit = *f & (0u - *f);
	*f -= *bit;
	if (*f != 0) {
		*top += fs;
		nq_ef_store(*top, *f, *d, *l, *r);
	}
}

#endif

/*
 * nq_ef_counts are the counters a search adds to: the weighted
 * completions (Σ weight × completions; over every task of N, Total) and
 * the nodes, the queens the Go search places (cpu.EightfoldTask): every
 * step's queen but those on the last level. nodes stays 0 unless NQ_NODES
 * is set.
 */
typedef struct {
	uint64_t total, nodes;
} nq_ef_counts;

/*
 * nq_ef_state is one task's search in progress: the current level's words
 * and the queen its next step places (bit, 0 once the task is finished),
 * its frames (top, base, fs), the words the placed queens' diagonals enter
 * l and r from (el, er: the low word of the task's left word and the high
 * word of its right one, shifted by NQ_EF_COL0), the schedule of rows,
 * the weight, the completions since nq_ef_finish last counted them, and
 * three constants (nq_ef_consts).
 */
typedef struct {
	uint32_t bit, d, l, r;
	nq_ef_ptr top, base;
	uint32_t fs, el, er;
	uint32_t k0, k2, k4; /* 0, 2 and 4: see nq_ef_consts */
	uint64_t sched;
	uint32_t w;
	float c;
} nq_ef_state;

/* nq_ef_consts sets the state's constants k0, k2 and k4 to 0, 2 and 4,
 * from z, which must be 0: the GPU kernels pass a value ptxas cannot see
 * (nq_ef_layout), so that a product by k2 or k4 stays an IMAD (the FMA
 * pipe) where ptxas would make a product by a power of two a shift, and
 * the constants stay in registers. Call it once on a state, before its
 * first nq_ef_start. */
NQ_HD void nq_ef_consts(nq_ef_state *s, uint32_t z)
{
	uint32_t k2 = z + 2u, k4 = z + 4u;
#ifdef __CUDA_ARCH__
	asm("" : "+r"(k2), "+r"(k4)); /* nor NVVM: it would make them in the loop */
#endif
	s->k0 = z;
	s->k2 = k2;
	s->k4 = k4;
}

/* nq_ef_sched returns the schedule's word for row k: its top two bits are
 * the rows to the next level (1, 2 or 3), and on the last level it is 0.
 * nq_ef_rows returns those rows (0 on the last level). */
NQ_HD uint32_t nq_ef_sched(const nq_ef_state *s, uint32_t k)
{
	return (uint32_t)((s->sched << (k * s->k2)) >> 32);
}

NQ_HD uint32_t nq_ef_rows(const nq_ef_state *s, uint32_t k)
{
	return nq_ef_mulhi(nq_ef_sched(s, k), s->k4);
}

/* nq_ef_child returns in *d, *l, *r the words of the level sh rows below
 * row (a level's, whose words they are) with a queen at bit on it: the
 * placed queens' diagonals that come into the 32 bits of l and r on the
 * way are the top bits of el << row and the low bits of er >> row. */
NQ_HD void nq_ef_child(const nq_ef_state *s, uint32_t row, uint32_t sh, uint32_t bit, uint32_t *d, uint32_t *l,
		       uint32_t *r)
{
	*d = *d + bit + sh;
	*l = nq_ef_fun(*l + bit, s->el << row, sh, 1);
	*r = nq_ef_fun(s->er >> row, *r + bit, sh, 0);
}

/*
 * nq_ef_start loads one task into s and returns 1, or 0 when the task is
 * settled already (its start row has no free column, or is the last: then
 * it adds the weight to k->total if it has a completion); nq_ef_step must
 * not run then. base and fs: the thread's frame 0 and the stride between
 * its frames (NQ_EF_FRAMES(levels) of them). left, right, down, meta: the
 * task (tasks.Eightfold: Left, Right, Down and Meta). The state is the
 * start row with its first queen, the row saved in frame 0 if it has
 * columns left besides.
 */
NQ_HD int nq_ef_start(nq_ef_state *s, nq_ef_ptr base, uint32_t fs, uint64_t left, uint64_t right, uint32_t down,
		      uint32_t meta, nq_ef_counts *k)
{
	const uint32_t levels = meta & 0xffu;
	const uint32_t a = meta >> 8 & 0xffu, b = meta >> 16 & 0xffu;
	const uint64_t dl = left << NQ_EF_COL0, dr = right << NQ_EF_COL0;
	const uint32_t d0 = down << NQ_EF_COL0 & NQ_EF_COLS;
	const uint32_t f = nq_ef_free(d0, (uint32_t)(dl >> 32), (uint32_t)dr);
	if (levels == 1 || f == 0) {
		if (f != 0)
			k->total += meta >> 24;
		return 0;
	}
	{
		/* The schedule: 01 for each row above the last level's, 10 or
		 * 11 on a skip level's row (the skip level j lies on row j, or
		 * j + 1 below the other skip), 11 on a row a skip crosses
		 * (nq_ef_last reads it): the lower skip adds 3 << (61 - 2 row),
		 * the upper 3 << (59 - 2 row), or 1 << (62 - 2 row) where both
		 * are one level. No branch: the warp's threads would take them
		 * apart. */
		const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
		const uint32_t slo = lo + 1u < levels, shi = hi + 1u < levels;
		const uint64_t up = hi == lo ? 1ull << 62 : 3ull << 59;
		s->sched = (0x5555555555555555ull << (64u - 2u * (levels - 1u + slo + shi))) +
			   (slo ? 3ull << 61 >> (2u * lo) : 0u) + (shi ? up >> (2u * hi) : 0u);
	}
	s->el = (uint32_t)dl;
	s->er = (uint32_t)(dr >> 32);
	s->base = base;
	s->fs = fs;
	s->w = meta >> 24;
	s->c = NQ_EF_C0;
	s->bit = f & (0u - f);
	s->d = d0;
	s->l = (uint32_t)(dl >> 32);
	s->r = (uint32_t)dr;
	/* Frame 0 is written whether or not the row has columns left besides
	 * (no branch); top says whether it is saved. */
	nq_ef_store(base, f - s->bit, s->d, s->l, s->r);
	s->top = base + (f != s->bit ? (nq_ef_ptr)0 : (nq_ef_ptr)0 - fs);
	return 1;
}

/*
 * nq_ef_step places the next queen of the current level, derives its
 * child's words, and goes on with the child if it has a free column, else
 * with the most recently saved level; it saves that level if it has
 * columns left besides the queen its next step places. It returns 0 once
 * the task is finished, and then any number of further calls before the
 * next nq_ef_start do nothing. A task of n nodes and c completions takes
 * n + c steps. Call nq_ef_finish at least every 2^24 steps (s->c is a
 * float).
 */
NQ_HD int nq_ef_step(nq_ef_state *s, nq_ef_counts *k)
{
	const uint32_t bit = s->bit, row = s->d & NQ_EF_ROWS;
	const uint32_t y = nq_ef_sched(s, row);
	const uint32_t sh = nq_ef_mulhi(y, s->k4);
	uint32_t f, d = s->d, l = s->l, r = s->r;
	if (NQ_NODES) /* not a last-level queen, nor a finished task's step */
		k->nodes += bit != 0 && sh != 0;
	s->c += nq_ef_last(y); /* a queen on the last level completes the board */
	nq_ef_child(s, row, sh, bit, &d, &l, &r);
	f = nq_ef_free(d, l, r);
	nq_ef_next(&s->top, s->base, s->fs, s->k0, &s->bit, &f, &d, &l, &r);
	s->d = d;
	s->l = l;
	s->r = r;
	return s->bit != 0;
}

/* nq_ef_finish adds the weight times the completions the task's steps
 * have found since it last ran to k->total. */
NQ_HD void nq_ef_finish(nq_ef_state *s, nq_ef_counts *k)
{
	k->total += (uint64_t)(s->w * (uint32_t)s->c); /* below 2^32: w < 2^8, c < 2^24 */
	s->c = NQ_EF_C0;
}

/* nq_eightfold_task runs one task to the end (arguments as nq_ef_start,
 * its frames thread-private) and adds its counts to k: the host's. */
#ifndef __CUDA_ARCH__
NQ_HD void nq_eightfold_task(uint64_t left, uint64_t right, uint32_t down, uint32_t meta, nq_ef_counts *k)
{
	nq_ef_state s;
	nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 2)];
	nq_ef_consts(&s, 0u);
	if (nq_ef_start(&s, (nq_ef_ptr)fr, 16, left, right, down, meta, k)) {
		while (nq_ef_step(&s, k))
			nq_ef_finish(&s, k);
		nq_ef_finish(&s, k);
	}
}
#endif

#endif /* NQTOTAL_H */
