/*
 * eflanes.h: the eightfold kernel's step (kernels/nqtotal.h: nq_ef_start,
 * nq_ef_step) run in lanes on the CPU. Included by eflanes.go's cgo
 * preamble only.
 *
 * It is the GPU's warp, written twice:
 *
 *   efl_run_model  any number of lanes (1 to EFL_MODEL_LANES), one lane
 *                  after the other within a step, in plain C: the host
 *                  model of the warp (the tests run it with 32 lanes and
 *                  the kernel's refill rule and compare its node counts
 *                  with kernels/host's).
 *   efl_run_avx512 16 lanes in the 32-bit elements of AVX-512 registers,
 *                  compiled with a target attribute so that the binary
 *                  runs on every x86-64; Go calls it only where
 *                  golang.org/x/sys/cpu reports AVX-512F.
 *
 * Both are the same step as nq_ef_step, with the same words (bit, d, l, r,
 * the level in d's low five bits, column c at bit c + 4), the same table
 * (per level: the placed queens' diagonals on the next level and the shift
 * to it; below the last level every column and EFL_DONE) and the same
 * frames (NQ_EF_AFTER + 1 sentinels below the start row, a level pushed
 * only while it has columns left). They do not include nqtotal.h: the GPU
 * kernel's header is written for the GPU's memory (16-byte frames behind a
 * per-thread pointer) and is being changed for it, and the lanes need
 * other memory: a lane has no pointer of its own, only an index. Frames
 * and table words are lane-interleaved, as in the kernel's shared memory:
 * word k of lane i at [k][i], so the table's lookup and a pop are gathers
 * and a push a scatter of one element per lane, within 64 bytes per row.
 *
 * Why C through cgo: the step is a dozen vector operations and the
 * compiler schedules them and allocates the 32 vector registers; Go's
 * assembler would need all of that by hand (or a generator such as avo)
 * for each width, and Go has no vector types. GCC's target attribute
 * keeps AVX-512 out of the rest of the binary.
 */
#include <stdint.h>
#include <string.h>

#define EFL_COL0 4
#define EFL_COLS 0x7fffffe0u
#define EFL_LVL 0x1fu
#define EFL_DONE 0x80000000u
#define EFL_AFTER 2 /* NQ_EF_AFTER */
/* Frames and table words per lane: a task has at most 25 levels (N=28),
 * and needs levels + EFL_AFTER + 1 frames (sentinels, start row, saved
 * levels below its last) and levels table words. */
#define EFL_ROWS 32
#define EFL_MODEL_LANES 64
#define EFL_WIDTH 16 /* lanes of efl_run_avx512 */

/* efl_counts: Σ weight × completions, and the nodes (the queens the Go
 * search places: every step's queen but the placeholder's and the last
 * level's), counted only by efl_run_model. */
typedef struct {
	uint64_t total, nodes;
} efl_counts;

/* efl_tasks: a batch (tasks.Eightfold): its words and Meta. */
typedef struct {
	const uint64_t *left, *right;
	const uint32_t *down, *meta;
	int count;
} efl_tasks;

/*
 * efl_start is nq_ef_start for lane i of a lane-interleaved memory of
 * stride lanes: it fills the lane's table (tab[j * lanes + i]) and its
 * first four frames (the sentinels and the start row, in the four arrays
 * f, d, l, r) and returns 1, or settles a task of one level (adding its
 * weight to *total if its only level has a free column) and returns 0.
 * The lane's state is then the placeholder of nq_ef_start: bit 0, d every
 * column on level 0, l = r = 0, top EFL_AFTER + 2 (frames above the start
 * row are free).
 */
static int efl_start(int i, int lanes, uint32_t *tab, uint32_t *f, uint32_t *d, uint32_t *l, uint32_t *r,
		     uint64_t left, uint64_t right, uint32_t down, uint32_t meta, uint64_t *total)
{
	const int levels = (int)(meta & 0xffu);
	const int skip_a = (int)(meta >> 8 & 0xffu), skip_b = (int)(meta >> 16 & 0xffu);
	const uint32_t f0 = ~((down | (uint32_t)(left >> 32) | (uint32_t)right) << EFL_COL0) & EFL_COLS;
	int j, rows = 0;
	if (levels == 1) {
		if (f0 != 0)
			*total += meta >> 24;
		return 0;
	}
	for (j = 0; j + 1 < levels; j++) {
		uint32_t sh = 1u + (j == skip_a) + (j == skip_b);
		rows += (int)sh;
		uint32_t fixed = (uint32_t)((left << rows) >> 32) | (uint32_t)(right >> rows);
		tab[j * lanes + i] = (fixed << EFL_COL0 & EFL_COLS) | sh;
	}
	tab[j * lanes + i] = EFL_COLS | EFL_DONE;
	for (j = 0; j <= EFL_AFTER; j++) {
		f[j * lanes + i] = 0;
		d[j * lanes + i] = EFL_COLS;
		l[j * lanes + i] = 0;
		r[j * lanes + i] = 0;
	}
	f[j * lanes + i] = f0;
	d[j * lanes + i] = down << EFL_COL0 & EFL_COLS;
	l[j * lanes + i] = 0;
	r[j * lanes + i] = 0;
	return 1;
}

/*
 * efl_state is a batch's search in progress: every lane's memory (table
 * words and frames, lane-interleaved with the engine's stride), every
 * lane's words, frame top (an index), completions since they were last
 * added up (c) and weight (w; 0 for a lane without a task), and which
 * lanes hold a task (run: 1 a task, 0 wants one, -1 none left for it).
 * It lives in Go memory and holds no pointer.
 */
typedef struct {
	uint32_t tab[EFL_ROWS * EFL_MODEL_LANES];
	uint32_t f[EFL_ROWS * EFL_MODEL_LANES], d[EFL_ROWS * EFL_MODEL_LANES];
	uint32_t l[EFL_ROWS * EFL_MODEL_LANES], r[EFL_ROWS * EFL_MODEL_LANES];
	uint32_t bit[EFL_MODEL_LANES], cd[EFL_MODEL_LANES], cl[EFL_MODEL_LANES], cr[EFL_MODEL_LANES];
	uint32_t top[EFL_MODEL_LANES], c[EFL_MODEL_LANES], w[EFL_MODEL_LANES];
	int32_t run[EFL_MODEL_LANES];
	int32_t next, lanes;
	efl_counts k;
} efl_state;

/* efl_init readies st for a batch on lanes lanes, of which the first
 * active take tasks (the others idle all along). */
static void efl_init(efl_state *st, int lanes, int active)
{
	st->next = 0;
	st->lanes = lanes;
	st->k.total = st->k.nodes = 0;
	for (int i = 0; i < lanes; i++) {
		st->run[i] = i < active ? 0 : -1;
		st->c[i] = st->w[i] = 0;
		st->bit[i] = st->cl[i] = st->cr[i] = 0;
		st->cd[i] = EFL_COLS;
		st->top[i] = EFL_AFTER + 2;
		st->tab[i] = 0; /* idle lanes read table word 0 */
	}
}

/* efl_refill gives each lane that wants a task the next one that needs a
 * search (nq_ef_start), after adding up its finished task's completions;
 * a lane for which none is left gets weight 0 and run -1. It returns how
 * many lanes hold a task. */
static int efl_refill(efl_state *st, int count, const uint64_t *left, const uint64_t *right, const uint32_t *down,
		      const uint32_t *meta)
{
	const int lanes = st->lanes;
	int live = 0;
	for (int i = 0; i < lanes; i++) {
		st->k.total += (uint64_t)st->w[i] * st->c[i];
		st->c[i] = 0;
		while (st->run[i] == 0) {
			const int t = st->next;
			if (t >= count) {
				st->run[i] = -1;
				st->w[i] = 0;
				break;
			}
			st->next++;
			if (efl_start(i, lanes, st->tab, st->f, st->d, st->l, st->r, left[t], right[t], down[t],
				      meta[t], &st->k.total)) {
				st->run[i] = 1;
				st->w[i] = meta[t] >> 24;
				st->bit[i] = 0;
				st->cd[i] = EFL_COLS;
				st->cl[i] = st->cr[i] = 0;
				st->top[i] = EFL_AFTER + 2;
			}
		}
		live += st->run[i] > 0;
	}
	return live;
}

/*
 * efl_step_model is nq_ef_step for lane i of st, written as the vector
 * step does it (the pop and the push take the lane's frame index top, not
 * a pointer); it returns 1 while the lane's task goes on. With nodes it
 * counts the lane's nodes into *nodes.
 */
static int efl_step_model(efl_state *st, int i, uint64_t *nodes)
{
	const int L = st->lanes;
	const uint32_t bit = st->bit[i];
	uint32_t d = st->cd[i], l = st->cl[i], r = st->cr[i], top = st->top[i], f;
	const uint32_t t = st->tab[(d & EFL_LVL) * L + i];
	*nodes += bit != 0 && (t & EFL_DONE) == 0;
	st->c[i] += t >> 31;
	d = d + bit + 1u;
	r = (r + bit) >> (t & 31u);
	l = (l + bit) << (t & 31u);
	f = ~(l | r | t | d) & EFL_COLS;
	if (f == 0) { /* pop */
		top--;
		f = st->f[top * L + i];
		d = st->d[top * L + i];
		l = st->l[top * L + i];
		r = st->r[top * L + i];
	}
	st->bit[i] = f & (0u - f);
	f -= st->bit[i];
	if (f != 0) { /* push */
		st->f[top * L + i] = f;
		st->d[top * L + i] = d;
		st->l[top * L + i] = l;
		st->r[top * L + i] = r;
		top++;
	}
	st->cd[i] = d;
	st->cl[i] = l;
	st->cr[i] = r;
	st->top[i] = top;
	return st->bit[i] != 0;
}

/*
 * efl_run_model runs a batch on lanes lanes (1 to EFL_MODEL_LANES) with the
 * dynamic kernel's refill rule (eightfold.cu, nq_eightfold): lanes without
 * a task take the next ones; if any is still without one, the tasks are all
 * handed out and every lane runs its own to the end; else all lanes step,
 * every steps at a time (the kernel: EFL_AFTER + 1), until one of them has
 * finished its task. Its counts go to *out.
 */
static void efl_run_model(efl_state *st, int lanes, int every, int count, const uint64_t *left,
			  const uint64_t *right, const uint32_t *down, const uint32_t *meta, efl_counts *out)
{
	int all;
	efl_init(st, lanes, lanes);
	for (;;) {
		efl_refill(st, count, left, right, down, meta);
		all = 1;
		for (int i = 0; i < lanes; i++)
			all &= st->run[i] > 0;
		if (!all)
			break;
		do {
			for (int u = 0; u < every; u++)
				for (int i = 0; i < lanes; i++)
					st->run[i] = efl_step_model(st, i, &st->k.nodes);
			for (int i = 0; i < lanes; i++)
				all &= st->run[i];
		} while (all);
	}
	for (int i = 0; i < lanes; i++) /* the last tasks */
		while (st->run[i] > 0)
			st->run[i] = efl_step_model(st, i, &st->k.nodes);
	efl_refill(st, count, left, right, down, meta); /* adds up the last ones */
	*out = st->k;
}

#if defined(__x86_64__)
#include <immintrin.h>

#define EFL_AVX512 __attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512dq")))

/*
 * efl_run_avx512 runs the batch on 16 lanes of st (efl_init with lanes
 * EFL_WIDTH) for at most budget steps, and returns 1 once every task is
 * done (st->k.total is then the batch's Σ weight × completions), 0 when
 * the budget ran out first (call it again to go on). A lane is refilled as
 * soon as its task ends: the test is one mask compare per step.
 *
 * The step, lane by lane, is efl_step_model's (nq_ef_step's): its
 * branches are masks. top is kept as the element index of the lane's
 * next free frame, top * 16 + lane.
 */
EFL_AVX512 static int efl_run_avx512(efl_state *st, int count, const uint64_t *left, const uint64_t *right,
				     const uint32_t *down, const uint32_t *meta, uint64_t budget)
{
	const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	const __m512i cols = _mm512_set1_epi32((int)EFL_COLS), lvl = _mm512_set1_epi32((int)EFL_LVL);
	const __m512i sh = _mm512_set1_epi32(31), one = _mm512_set1_epi32(1), row = _mm512_set1_epi32(EFL_WIDTH);
	const __m512i zero = _mm512_setzero_si512();
	uint32_t *const tab = st->tab, *const F = st->f, *const D = st->d, *const L = st->l, *const R = st->r;
	for (;;) {
		if (efl_refill(st, count, left, right, down, meta) == 0)
			return 1;
		if (budget == 0)
			return 0;
		__mmask16 act = 0;
		for (int i = 0; i < EFL_WIDTH; i++)
			act |= (__mmask16)((st->run[i] > 0) << i);
		__m512i bit = _mm512_loadu_si512(st->bit), d = _mm512_loadu_si512(st->cd);
		__m512i l = _mm512_loadu_si512(st->cl), r = _mm512_loadu_si512(st->cr);
		__m512i c = _mm512_loadu_si512(st->c);
		__m512i top = _mm512_add_epi32(_mm512_slli_epi32(_mm512_loadu_si512(st->top), 4), iota);
		__mmask16 ended;
		do {
			const __m512i ti = _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(d, lvl), 4), iota);
			const __m512i t = _mm512_i32gather_epi32(ti, tab, 4);
			c = _mm512_sub_epi32(c, _mm512_srai_epi32(t, 31)); /* + t >> 31 */
			d = _mm512_add_epi32(d, _mm512_add_epi32(bit, one));
			const __m512i s = _mm512_and_si512(t, sh);
			r = _mm512_srlv_epi32(_mm512_add_epi32(r, bit), s);
			l = _mm512_sllv_epi32(_mm512_add_epi32(l, bit), s);
			/* f = ~(l | r | t | d) & cols: 0xfe is a | b | c, 0x02 is ~(a | b) & c. */
			__m512i f = _mm512_ternarylogic_epi32(_mm512_ternarylogic_epi32(l, r, t, 0xfe), d, cols, 0x02);
			const __mmask16 pop = _mm512_mask_testn_epi32_mask(act, f, f);
			top = _mm512_mask_sub_epi32(top, pop, top, row);
			f = _mm512_mask_i32gather_epi32(f, pop, top, F, 4);
			d = _mm512_mask_i32gather_epi32(d, pop, top, D, 4);
			l = _mm512_mask_i32gather_epi32(l, pop, top, L, 4);
			r = _mm512_mask_i32gather_epi32(r, pop, top, R, 4);
			bit = _mm512_and_si512(f, _mm512_sub_epi32(zero, f));
			f = _mm512_xor_si512(f, bit);
			const __mmask16 push = _mm512_mask_test_epi32_mask(act, f, f);
			_mm512_mask_i32scatter_epi32(F, push, top, f, 4);
			_mm512_mask_i32scatter_epi32(D, push, top, d, 4);
			_mm512_mask_i32scatter_epi32(L, push, top, l, 4);
			_mm512_mask_i32scatter_epi32(R, push, top, r, 4);
			top = _mm512_mask_add_epi32(top, push, top, row);
			ended = _mm512_mask_cmpeq_epi32_mask(act, bit, zero);
		} while (ended == 0 && --budget != 0);
		_mm512_storeu_si512(st->bit, bit);
		_mm512_storeu_si512(st->cd, d);
		_mm512_storeu_si512(st->cl, l);
		_mm512_storeu_si512(st->cr, r);
		_mm512_storeu_si512(st->c, c);
		_mm512_storeu_si512(st->top, _mm512_srli_epi32(top, 4));
		for (int i = 0; i < EFL_WIDTH; i++)
			if (ended >> i & 1)
				st->run[i] = 0;
		if (ended == 0 && budget == 0) {
			efl_refill(st, count, left, right, down, meta); /* adds up the counts */
			return 0;
		}
	}
}
#endif
