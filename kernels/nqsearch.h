/*
 * nqsearch.h: the per-task searches of the symmetry and carry-chain
 * kernels (docs/kernels.md), in C for nvcc and a host C compiler (C99):
 *
 *   nq_symmetry_board  completes one symmetry-elimination partial board
 *                      (tasks.Boards) and counts its canonical solutions
 *                      by orbit size;
 *   nq_carry_frame     completes one carry-chain frame (tasks.Frames) and
 *                      adds its weight per completion by orbit size.
 *
 * Both are depth-first bitmap searches without recursion over small
 * arrays (N <= NQ_MAXN), bit c of a word column c; a pushed row keeps the
 * bits its child's shift dropped (nq_fsw), so that a pop restores l, d
 * and r exactly. Every counter is 64-bit (nq_counts).
 */
#ifndef NQSEARCH_H
#define NQSEARCH_H

#include <stdint.h>

#ifdef __CUDACC__
#define NQ_HD __host__ __device__ __forceinline__
#else
#define NQ_HD static inline
#endif

/* The largest N the fixed-size arrays hold. */
#define NQ_MAXN 28

/* nq_ctz: index of the lowest set bit of a non-zero word. */
NQ_HD int nq_ctz(uint32_t x)
{
#if defined(__CUDA_ARCH__)
	return __ffs((int)x) - 1;
#elif defined(__GNUC__)
	return __builtin_ctz(x);
#else
	int i = 0;
	while (!(x & 1u)) {
		x >>= 1;
		i++;
	}
	return i;
#endif
}

/* nq_popc: number of set bits of a word. */
NQ_HD int nq_popc(uint32_t x)
{
#if defined(__CUDA_ARCH__)
	return __popc(x);
#elif defined(__GNUC__)
	return __builtin_popcount(x);
#else
	int c = 0;
	for (; x; x &= x - 1)
		c++;
	return c;
#endif
}

/*
 * ---------------------------------------------------------------------------
 * Symmetry elimination (the Go tasks.Rules and cpu.symmetryBoards).
 * ---------------------------------------------------------------------------
 */

/*
 * nq_rules: the constraints of one symmetry board, as tasks.Rules.
 * Corner boards (row-0 queen in column 0): rows < b1 may not use column 1,
 * where b1 is the row-1 queen's column; every solution has an orbit of 8.
 * Non-corner boards (row-0 queen in column b1, b2 = n-1-b1): rows < b1 may
 * not use an edge column, at row b2 an edge column must already be taken or
 * be taken there, the last row may not use the b1 outer columns on either
 * side (last), and each solution is checked against its rotations.
 *
 * The search applies them without branching on the kind of board, so that
 * the threads of a warp holding corner and non-corner boards stay
 * together: early is the column mask of the rows < b1 (without column 1 or
 * without the edges), b2 is -1 on a corner board (no row matches) and last
 * is 0 there.
 */
typedef struct {
	int n, corner, b1, b2;
	uint32_t mask;  /* the n columns */
	uint32_t side;  /* columns 0 and n-1 */
	uint32_t early; /* the columns rows < b1 may use */
	uint32_t last;  /* LastMask: the b1 outer columns on each side */
} nq_rules;

/* nq_rules_init derives the rules from the board's rows 0 and 1, as
 * tasks.RulesFor. */
NQ_HD void nq_rules_init(nq_rules *ru, int n, uint32_t row0, uint32_t row1)
{
	ru->n = n;
	ru->mask = (1u << n) - 1;
	ru->side = 1u | 1u << (n - 1);
	ru->corner = row0 == 1u;
	if (ru->corner) {
		ru->b1 = nq_ctz(row1);
		ru->b2 = -1;
		ru->early = ru->mask & ~2u;
		ru->last = 0;
		return;
	}
	ru->b1 = nq_ctz(row0);
	ru->b2 = n - 1 - ru->b1;
	ru->early = ru->mask & ~ru->side;
	/* b1 low columns, and the same b1 columns mirrored to the high end. */
	uint32_t low = (1u << ru->b1) - 1;
	ru->last = low | low << (n - ru->b1);
}

/* nq_free returns the columns a queen may take in row, given the attack
 * words the row sees: tasks.Rules.Free. */
NQ_HD uint32_t nq_free(const nq_rules *ru, int row, uint32_t l, uint32_t d, uint32_t r)
{
	uint32_t f = (row < ru->b1 ? ru->early : ru->mask) & ~(l | d | r);
	if (row == ru->b2) {
		/* An edge column must be taken by the end of row b2: with neither
		 * edge in d the row is dead; with one, this row takes the other. */
		uint32_t s = d & ru->side;
		if (s == 0)
			return 0;
		if (s != ru->side)
			f &= ru->side;
	}
	if (row == ru->n - 1)
		f &= ~ru->last;
	return f;
}

/*
 * The stack of a symmetry-board search. One thread's words are
 *
 *   word r                the queen of row r (one bit), r = 0..n-1
 *   word n + row-depth    row's nq_fsw word, for the rows depth..n-2 that
 *                         the search pushes
 *
 * NQ_SYM_WORDS(n, depth) words in all. Word w lives at stk[w * stride]. A
 * thread-private array has stride 1. A shared-memory array of a block
 * holds word w of thread t at w * blockDim.x + t (stk = base + t, stride =
 * blockDim.x): whatever word each thread of a warp touches, the 32
 * addresses differ by the thread index modulo 32, so they fall into 32
 * different banks and no access conflicts (blockDim.x a multiple of 32).
 */
#define NQ_SYM_WORDS(n, depth) (2 * (n) - 1 - (depth))

/* nq_fsw packs a row's untried columns f (bits 0..27) with the bits that
 * the child's attack words lose: bit 31 of l and bit 0 of r|bit. */
NQ_HD uint32_t nq_fsw(uint32_t f, uint32_t l, uint32_t r, uint32_t bit)
{
	return f | (l & 0x80000000u) | ((r | bit) & 1u) << 30;
}

/* nq_unpush restores a row's words from its child's and the row's nq_fsw
 * word w, and returns the row's untried columns. */
NQ_HD uint32_t nq_unpush(uint32_t w, uint32_t bit, uint32_t *l, uint32_t *d, uint32_t *r)
{
	*l = (*l >> 1 | (w & 0x80000000u)) & ~bit;
	*d &= ~bit;
	*r = (*r << 1 | (w >> 30 & 1u)) & ~bit;
	return w & 0x3fffffffu;
}

/* NQ_NODES, when defined non-zero before this header is included, makes
 * the searches count their nodes (see nq_counts); otherwise the counting
 * compiles away. */
#ifndef NQ_NODES
#define NQ_NODES 0
#endif

/*
 * nq_counts are the counters a search adds to: canonical solutions (or
 * weighted completions, for the carry chain) by orbit size, and the
 * search's nodes: the queens its loop places, one per iteration that
 * places one (the last row of a solution, placed without an iteration, and
 * the carry chain's popcount-counted last row are not nodes). nodes stays
 * 0 unless NQ_NODES is set.
 */
typedef struct {
	uint64_t c2, c4, c8, nodes;
} nq_counts;

/*
 * nq_canonical checks a complete non-corner board (row r's queen at
 * board[r * bs]) against its 90, 180 and 270 degree rotations, as
 * tasks.Rules.Canonical. It returns 0 when a rotation reads smaller (the
 * board is not its orbit's representative), else the orbit size 2, 4 or 8.
 *
 * Boards are compared row by row from row 1 by the queen's column. A
 * rotation needs the comparison only when it maps the row-0 queen onto
 * itself, which a tell-tale square shows: (b2, 0) for 90 degrees,
 * (n-1, n-1-b1) for 180 and (b1, n-1) for 270. The rotated board's column
 * in row r is n-1-inv[r] for 90 degrees, n-1-col(n-1-r) for 180 and
 * inv[n-1-r] for 270, where inv[c] is the row of the queen in column c.
 */
NQ_HD int nq_canonical(const nq_rules *ru, const uint32_t *board, int bs)
{
	const int n = ru->n;
	int inv[NQ_MAXN];
	int have_inv = 0, fixed180 = 0, r;
#define NQ_COL(row) nq_ctz(board[(row) * bs])

	if (board[ru->b2 * bs] == 1u) { /* 90 degrees */
		for (r = 0; r < n; r++)
			inv[NQ_COL(r)] = r;
		have_inv = 1;
		for (r = 1; r < n; r++) {
			int a = NQ_COL(r), b = n - 1 - inv[r];
			if (a != b) {
				if (a > b)
					return 0;
				break;
			}
		}
		if (r == n) /* equal to its quarter turn */
			return 2;
	}
	if (board[(n - 1) * bs] == 1u << (n - 1 - ru->b1)) { /* 180 degrees */
		for (r = 1; r < n; r++) {
			int a = NQ_COL(r), b = n - 1 - NQ_COL(n - 1 - r);
			if (a != b) {
				if (a > b)
					return 0;
				break;
			}
		}
		fixed180 = r == n;
	}
	if (board[ru->b1 * bs] == 1u << (n - 1)) { /* 270 degrees */
		if (!have_inv)
			for (r = 0; r < n; r++)
				inv[NQ_COL(r)] = r;
		for (r = 1; r < n; r++) {
			int a = NQ_COL(r), b = inv[n - 1 - r];
			if (a != b) {
				if (a > b)
					return 0;
				break;
			}
		}
	}
#undef NQ_COL
	return fixed180 ? 4 : 8;
}

/* nq_classify adds a complete symmetry board (row r's queen at
 * board[r * bs]) to the counter of its orbit size if it is canonical. */
NQ_HD void nq_classify(const nq_rules *ru, const uint32_t *board, int bs, nq_counts *k)
{
	if (ru->corner) { /* every corner solution is canonical, orbit 8 */
		k->c8++;
		return;
	}
	int o = nq_canonical(ru, board, bs);
	k->c2 += o == 2;
	k->c4 += o == 4;
	k->c8 += o == 8;
}

/*
 * nq_sym_state is the search below one symmetry board in progress: the
 * rules, the row being filled (row), the row the task started at (depth),
 * that row's untried columns and attack words (f, l, d, r), and where the
 * thread's stack is (stk, stride; see NQ_SYM_WORDS); row's nq_fsw word is
 * word row + fso.
 *
 * nq_sym_start loads a board and nq_sym_step advances its search by one
 * iteration, so that a GPU thread whose board is finished can load the
 * next one inside the same loop as its neighbours' steps (the dynamic
 * kernels), and nq_symmetry_board runs one board to the end (the static
 * kernel and the host tests): both are the same code.
 */
typedef struct {
	nq_rules ru;
	int row, depth, fso, stride;
	uint32_t f, l, d, r;
	uint32_t *stk;
} nq_sym_state;

/*
 * nq_sym_start loads one symmetry board into s:
 *
 *   n       board size, 4 <= n <= NQ_MAXN
 *   depth   rows already placed, 2 <= depth <= n-1; the search starts there
 *   pre     the board's depth row words (one bit each), as tasks.Boards.Rows
 *   l, d, r the attack words row depth sees (tasks.Boards.Left/Down/Right)
 *   stk     the thread's stack, NQ_SYM_WORDS(n, depth) words stride apart
 *
 * A board whose only row left is the last is settled here (small N).
 */
NQ_HD void nq_sym_start(nq_sym_state *s, uint32_t *stk, int stride, int n, int depth, const uint32_t *pre,
			uint32_t l, uint32_t d, uint32_t r, nq_counts *k)
{
	int i;
	nq_rules_init(&s->ru, n, pre[0], pre[1]);
	for (i = 0; i < depth; i++)
		stk[i * stride] = pre[i];
	s->stk = stk;
	s->stride = stride;
	s->row = s->depth = depth;
	s->fso = n - depth;
	s->l = l;
	s->d = d;
	s->r = r;
	s->f = nq_free(&s->ru, depth, l, d, r);
	if (depth == n - 1) {
		if (s->f != 0) {
			stk[depth * stride] = s->f;
			nq_classify(&s->ru, stk, stride, k);
		}
		s->f = 0; /* finished: the next step says so */
	}
}

/*
 * nq_sym_step places the next queen of the current row, or pops a row
 * when none is left. It returns 0 when the board's search is complete.
 *
 * The child row's free columns come from the rules without a call: the
 * early mask for rows < b1, the edge rule at row b2 (a branch that a
 * thread takes once per path), the last mask at row n-1. The last row is
 * never pushed: a queen in row n-2 whose row n-1 has a free column (at
 * most one is left) makes a solution at once. A queen whose child row has
 * no free column is tried without touching the stack.
 */
NQ_HD int nq_sym_step(nq_sym_state *s, nq_counts *k)
{
	const nq_rules *ru = &s->ru;
	uint32_t *stk = s->stk;
	const int st = s->stride;
	int row = s->row;
	if (s->f == 0) {
		if (row == s->depth)
			return 0;
		row--; /* pop: undo the parent's queen */
		uint32_t bit = stk[row * st];
		s->f = nq_unpush(stk[(row + s->fso) * st], bit, &s->l, &s->d, &s->r);
		s->row = row;
		return 1;
	}
	uint32_t bit = s->f & -s->f; /* lowest free column */
	s->f ^= bit;
	if (NQ_NODES)
		k->nodes++;
	const int c = row + 1; /* the child row */
	uint32_t nl = (s->l | bit) << 1, nd = s->d | bit, nr = (s->r | bit) >> 1;
	uint32_t nf = (c < ru->b1 ? ru->early : ru->mask) & ~(nl | nd | nr);
	if (c == ru->b2) { /* the edge rule: see nq_free */
		uint32_t sd = nd & ru->side;
		nf = sd == 0 ? 0 : sd != ru->side ? nf & ru->side : nf;
	}
	if (c == ru->n - 1) { /* a solution if the last row has a column */
		nf &= ~ru->last;
		if (nf != 0) {
			stk[row * st] = bit;
			stk[c * st] = nf;
			nq_classify(ru, stk, st, k);
		}
		return 1;
	}
	if (nf == 0)
		return 1;
	stk[row * st] = bit; /* push */
	stk[(row + s->fso) * st] = nq_fsw(s->f, s->l, s->r, bit);
	s->row = c;
	s->l = nl;
	s->d = nd;
	s->r = nr;
	s->f = nf;
	return 1;
}

/*
 * nq_symmetry_board counts the canonical solutions below one symmetry
 * board (arguments as nq_sym_start, the stack a thread-private array) and
 * adds them to k by orbit size.
 */
NQ_HD void nq_symmetry_board(int n, int depth, const uint32_t *pre,
			     uint32_t l, uint32_t d, uint32_t r, nq_counts *k)
{
	nq_sym_state s;
	uint32_t stk[NQ_SYM_WORDS(NQ_MAXN, 2)];
	nq_counts t = {0, 0, 0, 0};
	nq_sym_start(&s, stk, 1, n, depth, pre, l, d, r, &t);
	while (nq_sym_step(&s, &t))
		;
	k->c2 += t.c2;
	k->c4 += t.c4;
	k->c8 += t.c8;
	k->nodes += t.nodes;
}

/*
 * ---------------------------------------------------------------------------
 * Carry chain (cpu.frameMasks, innerCount, innerClassify, boardOrbit).
 * ---------------------------------------------------------------------------
 */

/*
 * nq_frame_masks fills attack[r], for each inner row r (2..n-3), with the
 * columns the frame's queens forbid there: their columns and the squares
 * their diagonals cross (a queen k rows away covers its column +-k). A row
 * the frame already fills allows only its own queen's column, so the inner
 * search passes through it with one choice.
 */
NQ_HD void nq_frame_masks(int n, const uint32_t *rows, uint32_t *attack)
{
	const uint32_t m = (1u << n) - 1;
	uint32_t cols = 0;
	int r, r0;
	for (r = 0; r < n; r++)
		cols |= rows[r];
	for (r = 2; r <= n - 3; r++) {
		if (rows[r] != 0) {
			attack[r] = m & ~rows[r];
			continue;
		}
		uint32_t a = cols;
		for (r0 = 0; r0 < n; r0++) {
			uint32_t b = rows[r0];
			int k = r > r0 ? r - r0 : r0 - r;
			if (b != 0)
				a |= b << k | b >> k;
		}
		attack[r] = a & m;
	}
}

/*
 * nq_orbit returns the orbit size (2, 4 or 8) of a complete board given as
 * one bit per row: 8 unless a half turn fixes it, 4 unless a quarter turn
 * does too. With q[r] the column of row r, the half turn fixes the board
 * when q[n-1-r] == n-1-q[r] for every r, the quarter turn when
 * q[q[r]] == n-1-r; both are tested on the row words directly.
 */
NQ_HD int nq_orbit(int n, const uint32_t *board)
{
	int r;
	for (r = 0; r < n; r++)
		if (board[n - 1 - r] != 1u << (n - 1 - nq_ctz(board[r])))
			return 8;
	for (r = 0; r < n; r++)
		if (board[nq_ctz(board[r])] != 1u << (n - 1 - r))
			return 4;
	return 2;
}

/*
 * nq_carry_frame completes one carry-chain frame of n (5..NQ_MAXN) rows,
 * rows (tasks.Frames.Rows: one bit per row the frame fills, 0 for an inner
 * row), and adds weight (8/|stabiliser|) per completion to w->c2, w->c4 or
 * w->c8 by the completion's orbit size (tasks.Weighted), and its nodes to
 * w->nodes (with NQ_NODES). Only where sym180 is non-zero (the stabiliser
 * holds the half turn) is a completion tested for symmetry; otherwise
 * every one has an orbit of 8 and the last inner row is counted by a
 * popcount. The search fills rows 2..n-3; the frame's own queens come in
 * through the attack masks.
 */
NQ_HD void nq_carry_frame(int n, const uint32_t *rows, uint32_t weight, int sym180, nq_counts *w)
{
	const uint32_t m = (1u << n) - 1;
	const int first = 2, last = n - 3;
	uint32_t attack[NQ_MAXN], board[NQ_MAXN], fsw[NQ_MAXN];
	uint64_t k2 = 0, k4 = 0, k8 = 0, nodes = 0;
	uint32_t l = 0, d = 0, r = 0;
	int row = first, i;

	nq_frame_masks(n, rows, attack);
	for (i = 0; i < n; i++)
		board[i] = rows[i];
	uint32_t f = m & ~attack[first];
	for (;;) {
		if (row == last && !sym180) { /* every free column completes */
			k8 += (uint64_t)nq_popc(f);
			f = 0;
		}
		if (f == 0) {
			if (row == first)
				break;
			row--; /* pop: undo the parent's queen */
			f = nq_unpush(fsw[row], board[row], &l, &d, &r);
			continue;
		}
		uint32_t bit = f & -f; /* lowest free column */
		f ^= bit;
		board[row] = bit;
		if (NQ_NODES)
			nodes++;
		if (row == last) { /* sym180 only: classify the completion */
			int o = nq_orbit(n, board);
			k2 += o == 2;
			k4 += o == 4;
			k8 += o == 8;
			continue;
		}
		uint32_t nl = (l | bit) << 1, nd = d | bit, nr = (r | bit) >> 1;
		uint32_t nf = m & ~(attack[row + 1] | nl | nd | nr);
		if (nf == 0)
			continue;
		fsw[row] = nq_fsw(f, l, r, bit); /* push */
		row++;
		l = nl;
		d = nd;
		r = nr;
		f = nf;
	}
	w->c2 += k2 * weight;
	w->c4 += k4 * weight;
	w->c8 += k8 * weight;
	w->nodes += nodes;
}

#endif /* NQSEARCH_H */
