/*
 * eflanes.h: the eightfold kernel's step (nq_ef_step of kernels/nqtotal.h)
 * in the 32-bit lanes of AVX-512 registers, 32 lanes as two groups of 16,
 * as the GPU runs it in the threads of a warp. Included by eflanes.go's
 * cgo preamble only.
 *
 * A lane's task is loaded by nq_ef_start itself; efl_vstep is nq_ef_step
 * written for 16 lanes (the same words, schedule and frames, the frames
 * lane-interleaved as in the kernels' shared memory: frame k of lane i at
 * fr[k * EFL_WIDTH + i]), its pop masked gathers and its push masked
 * scatters. The tests compare it with nq_ef_step (kernels/host) batch by
 * batch. A lane is refilled as soon as its task ends, and once the batch
 * has no task left an idle lane steals a saved level of another lane's
 * task (efl_steal): the only thing the lanes do that the GPU does not.
 */
#include <stdint.h>
#include <string.h>

#include "nqtotal.h"

/* The lanes, two groups of 16 (four groups measured twice the time: the
 * registers no longer hold them), and log2 of it; the frames a lane has. */
#define EFL_WIDTH 32
#define EFL_WSHIFT 5
#define EFL_FRAMES NQ_EF_FRAMES(NQ_MAXN - 2)

/* efl_state is a batch's search in progress: every
 * lane's frames, its words (bit, d, l, r), its most recently saved frame as
 * an element index of fr (top, below the lane's frame 0 when none is),
 * its task's words for the step (el, er, the schedule's low and high
 * words), weight and completions since they were last added up, which
 * lanes hold a task (run: 1 a task, 0 wants one, -1 none left for it; act
 * as bits), the lane's lowest frame that is not stolen (bot) and its last
 * level's row (lr), and the fewest rows below a frame that an idle lane
 * steals (steal; 0: none). It lives in Go memory and holds no pointer. */
typedef struct {
	nq_ef_frame fr[EFL_FRAMES * EFL_WIDTH];
	uint32_t bit[EFL_WIDTH], d[EFL_WIDTH], l[EFL_WIDTH], r[EFL_WIDTH];
	int32_t top[EFL_WIDTH];
	uint32_t el[EFL_WIDTH], er[EFL_WIDTH], slo[EFL_WIDTH], shi[EFL_WIDTH];
	uint32_t c[EFL_WIDTH], w[EFL_WIDTH];
	int32_t run[EFL_WIDTH], bot[EFL_WIDTH], lr[EFL_WIDTH];
	uint64_t act, total;
	int32_t next, steal;
} efl_state;

/* efl_init readies st for a batch; lanes 0..active-1 take tasks, the
 * others idle until they steal (with steal > 0). */
static void efl_init(efl_state *st, int active, int steal)
{
	st->next = 0;
	st->steal = steal;
	st->act = 0;
	st->total = 0;
	for (int i = 0; i < EFL_WIDTH; i++) {
		st->run[i] = i < active ? 0 : -1;
		st->c[i] = st->w[i] = 0;
		st->bit[i] = st->l[i] = st->r[i] = 0;
		st->d[i] = NQ_EF_COLS;
		st->top[i] = i - EFL_WIDTH;
		st->el[i] = st->er[i] = st->slo[i] = st->shi[i] = 0;
		st->bot[i] = st->lr[i] = 0;
	}
}

/* efl_hold makes lane i hold the task whose state is s (loaded by
 * nq_ef_start, its frames in the lane's place of st->fr). */
static void efl_hold(efl_state *st, int i, const nq_ef_state *s, int32_t lastrow)
{
	st->run[i] = 1;
	st->act |= (uint64_t)1 << i;
	st->w[i] = s->w;
	st->c[i] = 0;
	st->el[i] = s->el;
	st->er[i] = s->er;
	st->slo[i] = (uint32_t)s->sched;
	st->shi[i] = (uint32_t)(s->sched >> 32);
	st->bit[i] = s->bit;
	st->d[i] = s->d;
	st->l[i] = s->l;
	st->r[i] = s->r;
	st->top[i] = (int32_t)((intptr_t)(s->top - (nq_ef_ptr)st->fr) / (intptr_t)sizeof(nq_ef_frame));
	st->bot[i] = 0;
	st->lr[i] = lastrow;
}

/*
 * efl_steal gives lane i, which has no task, the lowest saved level of
 * another lane's task that has at least st->steal rows below it (a smaller
 * subtree costs more to hand over than to search where it is), the one
 * with the most. The thief gets the victim's task words, the frame as its
 * frame 0 and a state with no queen on a row with every column taken,
 * whose first step pops it; the victim's frame becomes one with no column
 * left on such a row, so that the victim's task ends when it pops down to
 * it. It returns 1 if it stole.
 */
static int efl_steal(efl_state *st, int i)
{
	int v = -1;
	int32_t best = 0;
	for (int j = 0; j < EFL_WIDTH; j++) {
		const int32_t at = st->bot[j] * EFL_WIDTH + j;
		if (st->run[j] <= 0 || at > st->top[j])
			continue;
		const int32_t left = st->lr[j] - (int32_t)(st->fr[at].d & NQ_EF_ROWS);
		if (left >= st->steal && left > best) {
			best = left;
			v = j;
		}
	}
	if (v < 0)
		return 0;
	const int32_t at = st->bot[v] * EFL_WIDTH + v;
	st->fr[i] = st->fr[at];
	st->fr[at].f = 0;
	st->fr[at].d = NQ_EF_COLS;
	st->bot[v]++;
	nq_ef_state s;
	s.w = st->w[v];
	s.el = st->el[v];
	s.er = st->er[v];
	s.sched = st->slo[v] | (uint64_t)st->shi[v] << 32;
	s.bit = 0;
	s.d = NQ_EF_COLS;
	s.l = s.r = 0;
	s.top = (nq_ef_ptr)&st->fr[i];
	efl_hold(st, i, &s, st->lr[v]);
	return 1;
}

/* efl_addup adds every lane's completions since the last time, times its
 * weight, to st->total. */
static void efl_addup(efl_state *st)
{
	for (int i = 0; i < EFL_WIDTH; i++) {
		st->total += (uint64_t)st->w[i] * st->c[i];
		st->c[i] = 0;
	}
}

/* efl_refill gives each lane of want (bit i: lane i, whose task has ended
 * or which has none yet) the next task that needs a search, after adding
 * up its finished task's completions; once none is left, a lane without a
 * task steals (where st->steal > 0) or gets weight 0 and run -1. It
 * returns how many lanes hold a task. */
static int efl_refill(efl_state *st, uint64_t want, int count, const uint64_t *left, const uint64_t *right,
		      const uint32_t *down, const uint32_t *meta)
{
	for (; want != 0; want &= want - 1) {
		const int i = __builtin_ctzll(want);
		st->total += (uint64_t)st->w[i] * st->c[i];
		st->c[i] = 0;
		st->w[i] = 0;
		st->run[i] = 0;
		st->act &= ~((uint64_t)1 << i);
		while (st->run[i] == 0) {
			const int t = st->next;
			if (t >= count) {
				st->run[i] = -1;
				break;
			}
			st->next++;
			nq_ef_state s;
			nq_ef_counts k = {0, 0};
			nq_ef_consts(&s, 0u);
			if (nq_ef_start(&s, (nq_ef_ptr)&st->fr[i], 16 * EFL_WIDTH, left[t], right[t], down[t], meta[t], &k)) {
				const uint32_t m = meta[t], lv = m & 0xffu, a = m >> 8 & 0xffu, b = m >> 16 & 0xffu;
				efl_hold(st, i, &s, (int32_t)(lv - 1u + (a + 1u < lv) + (b + 1u < lv)));
			}
			st->total += k.total;
		}
	}
	/* A lane that finds nothing to steal ends the looking: the others
	 * would find nothing either. */
	if (st->steal > 0 && st->next >= count)
		for (int i = 0; i < EFL_WIDTH; i++)
			if (st->run[i] < 0 && !efl_steal(st, i))
				break;
	return __builtin_popcountll(st->act);
}

#if defined(__x86_64__)
#include <immintrin.h>

#define EFL_AVX512 __attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512dq")))

/* efl_group is 16 lanes of st in registers (efl_state's words; top as an
 * element index of st->fr), and which of them hold a task. */
typedef struct {
	__m512i bit, d, l, r, top, c, el, er, slo, shi;
	__mmask16 act;
} efl_group;

/* efl_vconst are the vector engine's constants: the group's lanes (the
 * element index of each lane's frame 0), and values. */
typedef struct {
	__m512i lane, cols, rows, width, zero, one, n32, lo, hi, even, odd;
} efl_vconst;

/*
 * efl_vstep is nq_ef_step for the 16 lanes of g (nqtotal.h: the schedule's
 * word of the row, the child's words by funnel shifts written as shift
 * pairs, the completions where that word is 0, and nq_ef_next's pop, the
 * next queen and the push). A shift by 32 or more gives 0 in AVX-512,
 * which the funnel and the 64-bit schedule shift rely on. It returns the
 * lanes whose task has ended (bit 0).
 */
EFL_AVX512 static inline __attribute__((always_inline)) __mmask16 efl_vstep(efl_group *g, const efl_vconst *k,
									    nq_ef_frame *fr)
{
	long long *mem = (long long *)fr;
	__m512i d = g->d, l = g->l, r = g->r, top = g->top, bit = g->bit;
	const __m512i row = _mm512_and_si512(d, k->rows), k2 = _mm512_add_epi32(row, row);
	/* y: the high word of sched << 2 * row, sh its top two bits */
	const __m512i y = _mm512_ternarylogic_epi32(_mm512_sllv_epi32(g->shi, k2),
						    _mm512_srlv_epi32(g->slo, _mm512_sub_epi32(k->n32, k2)),
						    _mm512_sllv_epi32(g->slo, _mm512_sub_epi32(k2, k->n32)), 0xfe);
	const __m512i sh = _mm512_srli_epi32(y, 30), csh = _mm512_sub_epi32(k->n32, sh);
	g->c = _mm512_mask_add_epi32(g->c, _mm512_mask_cmpeq_epi32_mask(g->act, y, k->zero), g->c, k->one);
	d = _mm512_add_epi32(d, _mm512_add_epi32(bit, sh));
	l = _mm512_or_si512(_mm512_sllv_epi32(_mm512_add_epi32(l, bit), sh),
			    _mm512_srlv_epi32(_mm512_sllv_epi32(g->el, row), csh));
	r = _mm512_or_si512(_mm512_srlv_epi32(_mm512_add_epi32(r, bit), sh),
			    _mm512_sllv_epi32(_mm512_srlv_epi32(g->er, row), csh));
	__m512i f = _mm512_andnot_si512(_mm512_ternarylogic_epi32(d, l, r, 0xfe), k->cols);
	/* Pop where the child has no free column, or end the task. */
	const __mmask16 dead = _mm512_mask_testn_epi32_mask(g->act, f, f);
	const __mmask16 pop = _mm512_mask_cmpge_epi32_mask(dead, top, k->lane);
	d = _mm512_mask_mov_epi32(d, dead, k->cols);
	if (pop) {
		const __m512i i2 = _mm512_add_epi32(top, top);
		const __m256i a0 = _mm512_castsi512_si256(i2), a1 = _mm512_extracti32x8_epi32(i2, 1);
		const __m256i b0 = _mm256_add_epi32(a0, _mm256_set1_epi32(1)), b1 = _mm256_add_epi32(a1, _mm256_set1_epi32(1));
		const __m512i fd0 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)pop, a0, mem, 8);
		const __m512i fd1 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)(pop >> 8), a1, mem, 8);
		const __m512i lr0 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)pop, b0, mem, 8);
		const __m512i lr1 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)(pop >> 8), b1, mem, 8);
		f = _mm512_mask_mov_epi32(f, pop, _mm512_permutex2var_epi32(fd0, k->even, fd1));
		d = _mm512_mask_mov_epi32(d, pop, _mm512_permutex2var_epi32(fd0, k->odd, fd1));
		l = _mm512_mask_mov_epi32(l, pop, _mm512_permutex2var_epi32(lr0, k->even, lr1));
		r = _mm512_mask_mov_epi32(r, pop, _mm512_permutex2var_epi32(lr0, k->odd, lr1));
		top = _mm512_mask_sub_epi32(top, pop, top, k->width);
	}
	/* The next queen, and the level saved if it has columns left. */
	bit = _mm512_and_si512(f, _mm512_sub_epi32(k->zero, f));
	f = _mm512_xor_si512(f, bit);
	const __mmask16 push = _mm512_mask_test_epi32_mask(g->act, f, f);
	if (push) {
		top = _mm512_mask_add_epi32(top, push, top, k->width);
		const __m512i i2 = _mm512_add_epi32(top, top);
		const __m256i a0 = _mm512_castsi512_si256(i2), a1 = _mm512_extracti32x8_epi32(i2, 1);
		const __m256i b0 = _mm256_add_epi32(a0, _mm256_set1_epi32(1)), b1 = _mm256_add_epi32(a1, _mm256_set1_epi32(1));
		_mm512_mask_i32scatter_epi64(mem, (__mmask8)push, a0, _mm512_permutex2var_epi32(f, k->lo, d), 8);
		_mm512_mask_i32scatter_epi64(mem, (__mmask8)(push >> 8), a1, _mm512_permutex2var_epi32(f, k->hi, d), 8);
		_mm512_mask_i32scatter_epi64(mem, (__mmask8)push, b0, _mm512_permutex2var_epi32(l, k->lo, r), 8);
		_mm512_mask_i32scatter_epi64(mem, (__mmask8)(push >> 8), b1, _mm512_permutex2var_epi32(l, k->hi, r), 8);
	}
	g->bit = bit;
	g->d = d;
	g->l = l;
	g->r = r;
	g->top = top;
	return _mm512_mask_cmpeq_epi32_mask(g->act, bit, k->zero);
}

/* efl_vload loads lanes 16 * h .. 16 * h + 15 of st into g; efl_vsave
 * stores them back. */
EFL_AVX512 static inline __attribute__((always_inline)) void efl_vload(efl_group *g, const efl_state *st, int h)
{
	g->act = (__mmask16)(st->act >> 16 * h);
	g->bit = _mm512_loadu_si512(st->bit + 16 * h);
	g->d = _mm512_loadu_si512(st->d + 16 * h);
	g->l = _mm512_loadu_si512(st->l + 16 * h);
	g->r = _mm512_loadu_si512(st->r + 16 * h);
	g->top = _mm512_loadu_si512(st->top + 16 * h);
	g->c = _mm512_loadu_si512(st->c + 16 * h);
	g->el = _mm512_loadu_si512(st->el + 16 * h);
	g->er = _mm512_loadu_si512(st->er + 16 * h);
	g->slo = _mm512_loadu_si512(st->slo + 16 * h);
	g->shi = _mm512_loadu_si512(st->shi + 16 * h);
}

EFL_AVX512 static inline __attribute__((always_inline)) void efl_vsave(const efl_group *g, efl_state *st, int h)
{
	_mm512_storeu_si512(st->bit + 16 * h, g->bit);
	_mm512_storeu_si512(st->d + 16 * h, g->d);
	_mm512_storeu_si512(st->l + 16 * h, g->l);
	_mm512_storeu_si512(st->r + 16 * h, g->r);
	_mm512_storeu_si512(st->top + 16 * h, g->top);
	_mm512_storeu_si512(st->c + 16 * h, g->c);
}

/*
 * efl_run_avx512 runs the batch on the lanes of st (efl_init first) for at
 * most budget steps, and returns 1 once every task is done (st->total is
 * then the batch's Σ weight × completions), 0 when the budget ran out
 * first (call it again to go on). The two groups step in turn, so that one
 * group's gathers overlap the other's work.
 */
EFL_AVX512 static int efl_run_avx512(efl_state *st, int count, const uint64_t *left, const uint64_t *right,
				     const uint32_t *down, const uint32_t *meta, uint64_t budget)
{
	efl_vconst k;
	k.lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	k.cols = _mm512_set1_epi32((int)NQ_EF_COLS);
	k.rows = _mm512_set1_epi32((int)NQ_EF_ROWS);
	k.width = _mm512_set1_epi32(EFL_WIDTH);
	k.zero = _mm512_setzero_si512();
	k.one = _mm512_set1_epi32(1);
	k.n32 = _mm512_set1_epi32(32);
	/* f, d of lanes 0..7 and 8..15 into 64-bit words (f | d << 32), and
	 * back: the even and the odd 32-bit halves. */
	k.lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
	k.hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
	k.even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
	k.odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
	efl_vconst k2 = k; /* the second group's lanes are 16..31 */
	k2.lane = _mm512_add_epi32(k.lane, _mm512_set1_epi32(16));
	uint64_t want = 0;
	for (int i = 0; i < EFL_WIDTH; i++)
		want |= (uint64_t)(st->run[i] == 0) << i;
	for (;;) {
		if (efl_refill(st, want, count, left, right, down, meta) == 0)
			return 1;
		if (budget == 0) {
			efl_addup(st);
			return 0;
		}
		efl_group a, b;
		efl_vload(&a, st, 0);
		efl_vload(&b, st, 1);
		__mmask16 ea, eb;
		do {
			ea = efl_vstep(&a, &k, st->fr);
			eb = efl_vstep(&b, &k2, st->fr);
		} while ((ea | eb) == 0 && --budget != 0);
		efl_vsave(&a, st, 0);
		efl_vsave(&b, st, 1);
		want = ea | (uint64_t)eb << 16;
		if (want == 0 && budget == 0) {
			efl_addup(st);
			return 0;
		}
	}
}
#endif
