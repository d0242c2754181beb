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
 *   efl_run_avx512 32 lanes in the 32-bit elements of AVX-512 registers,
 *                  compiled with a target attribute so that the binary
 *                  runs on every x86-64; Go calls it only where
 *                  golang.org/x/sys/cpu reports AVX-512 F, CD, BW, DQ
 *                  and VL. Its lanes refill as soon as their task ends,
 *                  and once the batch has no task left, an idle lane
 *                  steals a saved level of another lane (efl_steal).
 *
 * Both are the same step as nq_ef_step, with the same words (bit, d, l, r,
 * the level in d's low five bits, column c at bit c + 4), the same table
 * (per level: the placed queens' diagonals on the next level and the shift
 * to it; below the last level every column and EFL_DONE) and the same
 * frames (NQ_EF_AFTER + 1 sentinels below the start row, a level pushed
 * only while it has columns left), as nqtotal.h had them up to commit
 * 5b6b5d4 (the kernel has since dropped the table for a shift of the
 * task's 64-bit words per step, and keeps one sentinel). They do not
 * include nqtotal.h: the GPU kernel's header is written for the GPU's
 * memory (16-byte frames behind a per-thread pointer), and the lanes need
 * other memory: a lane has no pointer of its own, only an index. Frames
 * and table words are lane-interleaved, as in the kernel's shared memory:
 * word k of lane i at [k][i], so the table's lookup is a gather of one
 * 32-bit element per lane, a pop gathers and a push scatters two 64-bit
 * elements per lane (a frame's f d l r packed as the kernel's 16-byte frame
 * lays them out).
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
/* The lanes of efl_run_avx512, two groups of 16 (four groups, 64 lanes,
 * measured twice the time at N=16: the registers no longer hold them), and
 * log2 of it. */
#define EFL_WIDTH 32
#define EFL_WSHIFT 5

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

/* efl_pack packs a frame's words as the kernel's 16-byte frame lays
 * them out, f d l r, into two 64-bit words: f | d << 32 and l | r << 32. */
static inline uint64_t efl_pack(uint32_t lo, uint32_t hi)
{
	return lo | (uint64_t)hi << 32;
}

/*
 * efl_start is nq_ef_start for lane i of a lane-interleaved memory of
 * stride lanes: it fills the lane's table (tab[j * lanes + i]) and its
 * first four frames (the sentinels and the start row; frame k's words in
 * fd[k * lanes + i] and lr[k * lanes + i], efl_pack) and returns 1, or
 * settles a task of one level (adding its weight to *total if its only
 * level has a free column) and returns 0. The lane's state is then the
 * placeholder of nq_ef_start: bit 0, d every column on level 0, l = r = 0,
 * top EFL_AFTER + 2 (frames above the start row are free).
 */
static int efl_start(int i, int lanes, uint32_t *tab, uint64_t *fd, uint64_t *lr, uint64_t left, uint64_t right,
		     uint32_t down, uint32_t meta, uint64_t *total)
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
		fd[j * lanes + i] = efl_pack(0, EFL_COLS);
		lr[j * lanes + i] = 0;
	}
	fd[j * lanes + i] = efl_pack(f0, down << EFL_COL0 & EFL_COLS);
	lr[j * lanes + i] = 0;
	return 1;
}

/*
 * efl_state is a batch's search in progress: every lane's memory (table
 * words and frames, lane-interleaved with the engine's stride), every
 * lane's words, frame top (an index), completions since they were last
 * added up (c) and weight (w; 0 for a lane without a task), and which
 * lanes hold a task (run: 1 a task, 0 wants one, -1 none left for it),
 * the lane's lowest frame that is not a sentinel (bot) and its task's
 * levels (lv), and the fewest levels below a frame that an idle lane steals
 * (steal; 0: none, efl_steal).
 * It lives in Go memory and holds no pointer.
 */
typedef struct {
	uint64_t fd[EFL_ROWS * EFL_MODEL_LANES], lr[EFL_ROWS * EFL_MODEL_LANES];
	uint32_t tab[EFL_ROWS * EFL_MODEL_LANES];
	uint32_t bit[EFL_MODEL_LANES], cd[EFL_MODEL_LANES], cl[EFL_MODEL_LANES], cr[EFL_MODEL_LANES];
	uint32_t top[EFL_MODEL_LANES], c[EFL_MODEL_LANES], w[EFL_MODEL_LANES];
	uint32_t bot[EFL_MODEL_LANES], lv[EFL_MODEL_LANES];
	int32_t run[EFL_MODEL_LANES];
	uint64_t act; /* bit i: lane i holds a task (run[i] > 0) */
	int32_t next, lanes, steal;
	efl_counts k;
} efl_state;

/* efl_init readies st for a batch on lanes lanes, of which the first
 * active take tasks (the others idle until they steal, with steal > 0). */
static void efl_init(efl_state *st, int lanes, int active, int steal)
{
	st->next = 0;
	st->lanes = lanes;
	st->steal = steal;
	st->act = 0;
	st->k.total = st->k.nodes = 0;
	for (int i = 0; i < lanes; i++) {
		st->run[i] = i < active ? 0 : -1;
		st->c[i] = st->w[i] = 0;
		st->bit[i] = st->cl[i] = st->cr[i] = 0;
		st->cd[i] = EFL_COLS;
		st->top[i] = EFL_AFTER + 2;
		st->bot[i] = EFL_AFTER + 1;
		st->lv[i] = 0;
		st->tab[i] = 0; /* idle lanes read table word 0 */
	}
}

/*
 * efl_steal gives lane i, which has no task, the shallowest saved level of
 * another lane's task: the victim's lowest frame above its sentinels (bot),
 * if at least st->steal levels lie below it (a smaller subtree costs
 * more to hand over than to search where it is). The thief gets the
 * victim's table and weight, sentinels, the frame as its start row and the
 * placeholder state; the victim's frame becomes a sentinel, so that the
 * victim's task ends when it pops down to it instead of searching it. This
 * is the only thing the lanes do that the GPU kernel does not: it keeps
 * the lanes busy at the end of a batch, whose last tasks can be long (a
 * batch of N=25 to 28 has 16 or 32 tasks). It returns 1 if it stole.
 */
static int efl_steal(efl_state *st, int i)
{
	const int L = st->lanes;
	int v = -1;
	uint32_t best = 0;
	for (int j = 0; j < L; j++) {
		if (st->run[j] <= 0 || st->bot[j] >= st->top[j])
			continue;
		const uint32_t lvl = (uint32_t)(st->fd[st->bot[j] * L + j] >> 32) & EFL_LVL;
		const uint32_t left = st->lv[j] - lvl;
		if (left >= (uint32_t)st->steal && left > best) {
			best = left;
			v = j;
		}
	}
	if (v < 0)
		return 0;
	for (uint32_t k = 0; k < st->lv[v]; k++)
		st->tab[k * L + i] = st->tab[k * L + v];
	for (int k = 0; k <= EFL_AFTER; k++) {
		st->fd[k * L + i] = efl_pack(0, EFL_COLS);
		st->lr[k * L + i] = 0;
	}
	st->fd[(EFL_AFTER + 1) * L + i] = st->fd[st->bot[v] * L + v];
	st->lr[(EFL_AFTER + 1) * L + i] = st->lr[st->bot[v] * L + v];
	st->fd[st->bot[v] * L + v] = efl_pack(0, EFL_COLS);
	st->lr[st->bot[v] * L + v] = 0;
	st->bot[v]++;
	st->lv[i] = st->lv[v];
	st->w[i] = st->w[v];
	st->c[i] = 0; /* what an idle lane's steps counted is no completion */
	st->run[i] = 1;
	st->act |= (uint64_t)1 << i;
	st->bit[i] = 0;
	st->cd[i] = EFL_COLS;
	st->cl[i] = st->cr[i] = 0;
	st->top[i] = EFL_AFTER + 2;
	st->bot[i] = EFL_AFTER + 1;
	return 1;
}

/* efl_addup adds every lane's completions since the last time, times its
 * weight, to st->k.total. */
static void efl_addup(efl_state *st)
{
	for (int i = 0; i < st->lanes; i++) {
		st->k.total += (uint64_t)st->w[i] * st->c[i];
		st->c[i] = 0;
	}
}

/* efl_refill gives each lane of want (bit i: lane i, whose task has
 * ended or which has none yet) the next task that needs a search
 * (nq_ef_start), after adding up its finished task's completions; once
 * none is left, a lane without a task steals (efl_steal, where st->steal >
 * 0) or gets weight 0 and run -1. It visits only the lanes of want, and
 * the others only to steal: at N=16 a lane's task ends every 9 steps of
 * the 32 lanes. It returns how many lanes hold a task. */
static int efl_refill(efl_state *st, uint64_t want, int count, const uint64_t *left, const uint64_t *right,
		      const uint32_t *down, const uint32_t *meta)
{
	const int lanes = st->lanes;
	for (; want != 0; want &= want - 1) {
		const int i = __builtin_ctzll(want);
		st->k.total += (uint64_t)st->w[i] * st->c[i];
		st->c[i] = 0;
		st->run[i] = 0;
		st->act &= ~((uint64_t)1 << i);
		while (st->run[i] == 0) {
			const int t = st->next;
			if (t >= count) {
				st->run[i] = -1;
				st->w[i] = 0;
				break;
			}
			st->next++;
			if (efl_start(i, lanes, st->tab, st->fd, st->lr, left[t], right[t], down[t],
				      meta[t], &st->k.total)) {
				st->run[i] = 1;
				st->act |= (uint64_t)1 << i;
				st->w[i] = meta[t] >> 24;
				st->bit[i] = 0;
				st->cd[i] = EFL_COLS;
				st->cl[i] = st->cr[i] = 0;
				st->top[i] = EFL_AFTER + 2;
				st->bot[i] = EFL_AFTER + 1;
				st->lv[i] = meta[t] & 0xffu;
			}
		}
	}
	/* A lane that finds nothing to steal ends the looking: the others
	 * would find nothing either. */
	if (st->steal > 0 && st->next >= count)
		for (int i = 0; i < lanes; i++)
			if (st->run[i] < 0 && !efl_steal(st, i))
				break;
	return __builtin_popcountll(st->act);
}

/* efl_wanting returns the lanes of st whose run is 0 (as efl_refill's
 * want). */
static uint64_t efl_wanting(const efl_state *st)
{
	uint64_t m = 0;
	for (int i = 0; i < st->lanes; i++)
		m |= (uint64_t)(st->run[i] == 0) << i;
	return m;
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
		f = (uint32_t)st->fd[top * L + i];
		d = (uint32_t)(st->fd[top * L + i] >> 32);
		l = (uint32_t)st->lr[top * L + i];
		r = (uint32_t)(st->lr[top * L + i] >> 32);
	}
	st->bit[i] = f & (0u - f);
	f -= st->bit[i];
	if (f != 0) { /* push */
		st->fd[top * L + i] = efl_pack(f, d);
		st->lr[top * L + i] = efl_pack(l, r);
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
	efl_init(st, lanes, lanes, 0);
	for (;;) {
		efl_refill(st, efl_wanting(st), count, left, right, down, meta);
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
	efl_refill(st, efl_wanting(st), count, left, right, down, meta); /* adds up the last ones */
	*out = st->k;
}

#if defined(__x86_64__)
#include <immintrin.h>

#define EFL_AVX512 __attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512dq")))

/* efl_group is 16 lanes of the vector engine in registers: the words of
 * nq_ef_state, the frame top as the element index of the lane's next free
 * frame (top * EFL_WIDTH + lane), the completions since they were added
 * up, and which lanes hold a task. */
typedef struct {
	__m512i bit, d, l, r, top, c;
	__mmask16 act;
} efl_group;

/* efl_vconst are the vector engine's constants. */
typedef struct {
	__m512i lane, cols, lvl, sh, one, row, zero, lo, hi, even, odd;
} efl_vconst;

/*
 * efl_vstep is nq_ef_step (efl_step_model) for the 16 lanes of g, lanes
 * lane of c.lane of an interleaved memory of EFL_WIDTH lanes: the table
 * lookup a gather, the pop masked gathers of the packed frames (two 64-bit
 * words a lane: f | d << 32, l | r << 32), the push masked scatters. It
 * returns the lanes whose task has ended (bit 0).
 */
EFL_AVX512 static inline __attribute__((always_inline)) __mmask16
efl_vstep(efl_group *g, const efl_vconst *k, const uint32_t *tab, uint64_t *fd, uint64_t *lr)
{
	__m512i d = g->d, l = g->l, r = g->r, top = g->top, bit = g->bit;
	const __m512i ti = _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(d, k->lvl), EFL_WSHIFT), k->lane);
	const __m512i t = _mm512_i32gather_epi32(ti, tab, 4);
	g->c = _mm512_sub_epi32(g->c, _mm512_srai_epi32(t, 31)); /* + t >> 31: a completion */
	d = _mm512_add_epi32(d, _mm512_add_epi32(bit, k->one));	 /* and the next level */
	const __m512i s = _mm512_and_si512(t, k->sh);
	r = _mm512_srlv_epi32(_mm512_add_epi32(r, bit), s);
	l = _mm512_sllv_epi32(_mm512_add_epi32(l, bit), s);
	/* f = ~(l | r | t | d) & cols: 0xfe is a | b | c, 0x02 is ~(a | b) & c. */
	__m512i f = _mm512_ternarylogic_epi32(_mm512_ternarylogic_epi32(l, r, t, 0xfe), d, k->cols, 0x02);
	/* Pop where the child has no free column. */
	const __mmask16 pop = _mm512_mask_testn_epi32_mask(g->act, f, f);
	top = _mm512_mask_sub_epi32(top, pop, top, k->row);
	if (pop) {
		const __m256i t0 = _mm512_castsi512_si256(top), t1 = _mm512_extracti32x8_epi32(top, 1);
		const __m512i fd0 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)pop, t0, fd, 8);
		const __m512i fd1 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)(pop >> 8), t1, fd, 8);
		const __m512i lr0 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)pop, t0, lr, 8);
		const __m512i lr1 = _mm512_mask_i32gather_epi64(k->zero, (__mmask8)(pop >> 8), t1, lr, 8);
		f = _mm512_mask_mov_epi32(f, pop, _mm512_permutex2var_epi32(fd0, k->even, fd1));
		d = _mm512_mask_mov_epi32(d, pop, _mm512_permutex2var_epi32(fd0, k->odd, fd1));
		l = _mm512_mask_mov_epi32(l, pop, _mm512_permutex2var_epi32(lr0, k->even, lr1));
		r = _mm512_mask_mov_epi32(r, pop, _mm512_permutex2var_epi32(lr0, k->odd, lr1));
	}
	/* The next queen, and the level pushed if it has columns left. */
	bit = _mm512_and_si512(f, _mm512_sub_epi32(k->zero, f));
	f = _mm512_xor_si512(f, bit);
	const __mmask16 push = _mm512_mask_test_epi32_mask(g->act, f, f);
	if (push) {
		const __m256i t0 = _mm512_castsi512_si256(top), t1 = _mm512_extracti32x8_epi32(top, 1);
		_mm512_mask_i32scatter_epi64(fd, (__mmask8)push, t0, _mm512_permutex2var_epi32(f, k->lo, d), 8);
		_mm512_mask_i32scatter_epi64(fd, (__mmask8)(push >> 8), t1, _mm512_permutex2var_epi32(f, k->hi, d), 8);
		_mm512_mask_i32scatter_epi64(lr, (__mmask8)push, t0, _mm512_permutex2var_epi32(l, k->lo, r), 8);
		_mm512_mask_i32scatter_epi64(lr, (__mmask8)(push >> 8), t1, _mm512_permutex2var_epi32(l, k->hi, r), 8);
		top = _mm512_mask_add_epi32(top, push, top, k->row);
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
EFL_AVX512 static inline __attribute__((always_inline)) void efl_vload(efl_group *g, const efl_state *st, int h,
								       const efl_vconst *k)
{
	g->act = (__mmask16)(st->act >> 16 * h);
	g->bit = _mm512_loadu_si512(st->bit + 16 * h);
	g->d = _mm512_loadu_si512(st->cd + 16 * h);
	g->l = _mm512_loadu_si512(st->cl + 16 * h);
	g->r = _mm512_loadu_si512(st->cr + 16 * h);
	g->c = _mm512_loadu_si512(st->c + 16 * h);
	g->top = _mm512_add_epi32(_mm512_slli_epi32(_mm512_loadu_si512(st->top + 16 * h), EFL_WSHIFT), k->lane);
}

EFL_AVX512 static inline __attribute__((always_inline)) void efl_vsave(const efl_group *g, efl_state *st, int h)
{
	_mm512_storeu_si512(st->bit + 16 * h, g->bit);
	_mm512_storeu_si512(st->cd + 16 * h, g->d);
	_mm512_storeu_si512(st->cl + 16 * h, g->l);
	_mm512_storeu_si512(st->cr + 16 * h, g->r);
	_mm512_storeu_si512(st->c + 16 * h, g->c);
	_mm512_storeu_si512(st->top + 16 * h, _mm512_srli_epi32(g->top, EFL_WSHIFT));
}

/*
 * efl_run_avx512 runs the batch on the EFL_WIDTH lanes of st (efl_init
 * with lanes EFL_WIDTH) for at most budget steps, and returns 1 once every
 * task is done (st->k.total is then the batch's Σ weight × completions), 0
 * when the budget ran out first (call it again to go on). The lanes are
 * two groups of 16 (two AVX-512 registers a word) that step in turn, so
 * that one group's gathers overlap the other's: a step's loop-carried
 * chain, a gather of the table word and then of the popped frame, is
 * longer than either group's instructions take to issue. A lane is
 * refilled as soon as its task ends (a mask compare per step).
 */
EFL_AVX512 static int efl_run_avx512(efl_state *st, int count, const uint64_t *left, const uint64_t *right,
				     const uint32_t *down, const uint32_t *meta, uint64_t budget)
{
	efl_vconst k;
	k.lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	k.cols = _mm512_set1_epi32((int)EFL_COLS);
	k.lvl = _mm512_set1_epi32((int)EFL_LVL);
	k.sh = _mm512_set1_epi32(31);
	k.one = _mm512_set1_epi32(1);
	k.row = _mm512_set1_epi32(EFL_WIDTH);
	k.zero = _mm512_setzero_si512();
	/* f, d of lanes 0..7 and 8..15 into 64-bit words (f | d << 32), and
	 * back: the even and the odd 32-bit halves. */
	k.lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
	k.hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
	k.even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
	k.odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
	efl_vconst k2 = k; /* the second group's lanes are 16..31 */
	k2.lane = _mm512_add_epi32(k.lane, _mm512_set1_epi32(16));
	uint64_t want = efl_wanting(st); /* the lanes that want a task */
	for (;;) {
		if (efl_refill(st, want, count, left, right, down, meta) == 0)
			return 1;
		if (budget == 0) {
			efl_addup(st);
			return 0;
		}
		efl_group a, b;
		efl_vload(&a, st, 0, &k);
		efl_vload(&b, st, 1, &k2);
		__mmask16 ea, eb;
		do {
			ea = efl_vstep(&a, &k, st->tab, st->fd, st->lr);
			eb = efl_vstep(&b, &k2, st->tab, st->fd, st->lr);
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
