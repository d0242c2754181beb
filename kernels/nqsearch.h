/*
 * nqsearch.h: the per-task N-Queens searches, in C that both nvcc (device
 * and host code) and a host C compiler (C99 or later) build.
 *
 * Two searches, one per kind of task of internal/tasks:
 *
 *   nq_symmetry_board  completes one symmetry-elimination partial board
 *                      (tasks.Boards of kind Symmetry) and counts its
 *                      canonical solutions by orbit size.
 *   nq_carry_frame     completes one carry-chain frame (tasks.Frames) and
 *                      adds the frame's weight per completion by orbit size.
 *
 * Both are depth-first bitmap searches without recursion: each row's state
 * lives in small fixed-size arrays (N <= NQ_MAXN), so a GPU thread needs no
 * call stack. A row's attack words are l (diagonals going towards higher
 * columns), d (columns) and r (diagonals going towards lower columns); the
 * next row sees (l|bit)<<1, d|bit and (r|bit)>>1. Bit c of a word is column
 * c, as in the Go code.
 *
 * The stack keeps, per row, the columns not yet tried (fs) and the r word;
 * l and d are recovered when a row is popped by undoing the child's queen:
 * l = (l_child >> 1) & ~bit, d = d_child & ~bit. That is exact for l
 * because the only bit the left shift lost (past bit 31) was off the board
 * and would only have moved further off; it is not for r, whose bit that
 * left past column 0 is gone, hence r is saved.
 *
 * Every counter is 64-bit; the callers own them (registers on the GPU).
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
 */
typedef struct {
	int n, corner, b1, b2;
	uint32_t mask; /* the n columns */
	uint32_t side; /* columns 0 and n-1 */
	uint32_t last; /* LastMask: the b1 outer columns on each side */
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
		ru->b2 = 0;
		ru->last = 0;
		return;
	}
	ru->b1 = nq_ctz(row0);
	ru->b2 = n - 1 - ru->b1;
	/* b1 low columns, and the same b1 columns mirrored to the high end. */
	uint32_t low = (1u << ru->b1) - 1;
	ru->last = low | low << (n - ru->b1);
}

/* nq_free returns the columns a queen may take in row, given the attack
 * words the row sees: tasks.Rules.Free. */
NQ_HD uint32_t nq_free(const nq_rules *ru, int row, uint32_t l, uint32_t d, uint32_t r)
{
	uint32_t f = ru->mask & ~(l | d | r);
	if (ru->corner) {
		if (row < ru->b1)
			f &= ~2u;
		return f;
	}
	if (row < ru->b1) {
		f &= ~ru->side;
	} else if (row == ru->b2) {
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
 * nq_canonical checks a complete non-corner board (board[r] holds the one
 * bit of row r) against its 90, 180 and 270 degree rotations, as
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
NQ_HD int nq_canonical(const nq_rules *ru, const uint32_t *board)
{
	const int n = ru->n;
	int inv[NQ_MAXN];
	int have_inv = 0, fixed180 = 0, r;

	if (board[ru->b2] == 1u) { /* 90 degrees */
		for (r = 0; r < n; r++)
			inv[nq_ctz(board[r])] = r;
		have_inv = 1;
		for (r = 1; r < n; r++) {
			int a = nq_ctz(board[r]), b = n - 1 - inv[r];
			if (a != b) {
				if (a > b)
					return 0;
				break;
			}
		}
		if (r == n) /* equal to its quarter turn */
			return 2;
	}
	if (board[n - 1] == 1u << (n - 1 - ru->b1)) { /* 180 degrees */
		for (r = 1; r < n; r++) {
			int a = nq_ctz(board[r]), b = n - 1 - nq_ctz(board[n - 1 - r]);
			if (a != b) {
				if (a > b)
					return 0;
				break;
			}
		}
		fixed180 = r == n;
	}
	if (board[ru->b1] == 1u << (n - 1)) { /* 270 degrees */
		if (!have_inv)
			for (r = 0; r < n; r++)
				inv[nq_ctz(board[r])] = r;
		for (r = 1; r < n; r++) {
			int a = nq_ctz(board[r]), b = inv[n - 1 - r];
			if (a != b) {
				if (a > b)
					return 0;
				break;
			}
		}
	}
	return fixed180 ? 4 : 8;
}

/* nq_classify adds a complete symmetry board (board[r] holds the one bit of
 * row r) to the counter of its orbit size if it is canonical. */
NQ_HD void nq_classify(const nq_rules *ru, const uint32_t *board,
		       uint64_t *k2, uint64_t *k4, uint64_t *k8)
{
	if (ru->corner) { /* every corner solution is canonical, orbit 8 */
		++*k8;
		return;
	}
	int o = nq_canonical(ru, board);
	*k2 += o == 2;
	*k4 += o == 4;
	*k8 += o == 8;
}

/*
 * nq_sym_state is the search below one symmetry board in progress: the
 * rules, the row being filled (row), the row the task started at (depth),
 * and that row's untried columns and attack words (f, l, d, r). The stack
 * lives in three arrays beside it: per pushed row its queen (board),
 * untried columns (fs) and r word (rs). They are kept apart so that the
 * compiler can hold the scalars in registers.
 *
 * nq_sym_start loads a board and nq_sym_step advances its search by one
 * node, so that a GPU lane whose board is finished can load the next one
 * inside the same loop as its neighbours' steps (the dynamic kernel), and
 * nq_symmetry_board runs one board to the end (the static kernel and the
 * host tests): both are the same code.
 */
typedef struct {
	nq_rules ru;
	int row, depth;
	uint32_t f, l, d, r;
} nq_sym_state;

/*
 * nq_sym_start loads one symmetry board into s:
 *
 *   n       board size, 4 <= n <= NQ_MAXN
 *   depth   rows already placed, 2 <= depth <= n-1; the search starts there
 *   pre     the board's depth row words (one bit each), as tasks.Boards.Rows
 *   l, d, r the attack words row depth sees (tasks.Boards.Left/Down/Right)
 *
 * A board whose only row left is the last is settled here (small N).
 */
NQ_HD void nq_sym_start(nq_sym_state *s, uint32_t *board, int n, int depth, const uint32_t *pre,
			uint32_t l, uint32_t d, uint32_t r,
			uint64_t *k2, uint64_t *k4, uint64_t *k8)
{
	int i;
	nq_rules_init(&s->ru, n, pre[0], pre[1]);
	for (i = 0; i < depth; i++)
		board[i] = pre[i];
	s->row = s->depth = depth;
	s->l = l;
	s->d = d;
	s->r = r;
	s->f = nq_free(&s->ru, depth, l, d, r);
	if (depth == n - 1) {
		if (s->f != 0) {
			board[depth] = s->f;
			nq_classify(&s->ru, board, k2, k4, k8);
		}
		s->f = 0; /* finished: the next step says so */
	}
}

/*
 * nq_sym_step tries the next column of the current row, or pops a row when
 * none is left. It returns 0 when the board's search is complete. The last
 * row is never pushed: a queen in row n-2 whose row n-1 has a free column
 * (at most one is left) makes a solution at once.
 */
NQ_HD int nq_sym_step(nq_sym_state *s, uint32_t *board, uint32_t *fs, uint32_t *rs,
		      uint64_t *k2, uint64_t *k4, uint64_t *k8)
{
	const int n = s->ru.n;
	int row = s->row;
	if (s->f == 0) {
		if (row == s->depth)
			return 0;
		row--; /* pop: undo the parent's queen */
		uint32_t bit = board[row];
		s->l = (s->l >> 1) & ~bit;
		s->d &= ~bit;
		s->r = rs[row];
		s->f = fs[row];
		s->row = row;
		return 1;
	}
	uint32_t bit = s->f & -s->f; /* lowest free column */
	s->f ^= bit;
	board[row] = bit;
	uint32_t nl = (s->l | bit) << 1, nd = s->d | bit, nr = (s->r | bit) >> 1;
	uint32_t nf = nq_free(&s->ru, row + 1, nl, nd, nr);
	if (nf == 0)
		return 1;
	if (row + 1 == n - 1) { /* a solution: nf is its last queen */
		board[n - 1] = nf;
		nq_classify(&s->ru, board, k2, k4, k8);
		return 1;
	}
	fs[row] = s->f; /* push */
	rs[row] = s->r;
	s->row = row + 1;
	s->l = nl;
	s->d = nd;
	s->r = nr;
	s->f = nf;
	return 1;
}

/*
 * nq_symmetry_board counts the canonical solutions below one symmetry
 * board (arguments as nq_sym_start) and adds them to *c2, *c4 and *c8 by
 * orbit size.
 */
NQ_HD void nq_symmetry_board(int n, int depth, const uint32_t *pre,
			     uint32_t l, uint32_t d, uint32_t r,
			     uint64_t *c2, uint64_t *c4, uint64_t *c8)
{
	nq_sym_state s;
	uint32_t board[NQ_MAXN], fs[NQ_MAXN], rs[NQ_MAXN];
	uint64_t k2 = 0, k4 = 0, k8 = 0;
	nq_sym_start(&s, board, n, depth, pre, l, d, r, &k2, &k4, &k8);
	while (nq_sym_step(&s, board, fs, rs, &k2, &k4, &k8))
		;
	*c2 += k2;
	*c4 += k4;
	*c8 += k8;
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
 * nq_carry_frame completes one carry-chain frame and adds weight per
 * completion to *w2, *w4 or *w8 by the completion's orbit size
 * (tasks.Weighted: COUNTk = Wk/k once every frame is summed).
 *
 *   n       board size, 5 <= n <= NQ_MAXN
 *   rows    the frame's n row words: one bit per row the frame fills, 0 for
 *           the inner rows to search (tasks.Frames.Rows)
 *   weight  8/|stabiliser| of the frame (tasks.Frames.Weight)
 *   sym180  non-zero when the frame's stabiliser holds the half turn
 *           (tasks.Frames.Sym180): only then is each completion tested for
 *           half- and quarter-turn symmetry; otherwise every completion
 *           has an orbit of 8, and the last inner row is counted by a
 *           popcount.
 *
 * The search runs over rows 2..n-3 with l, d, r carrying the queens it
 * places itself (frame rows inside that range included); the frame's own
 * constraints come from the attack masks.
 */
NQ_HD void nq_carry_frame(int n, const uint32_t *rows, uint32_t weight, int sym180,
			  uint64_t *w2, uint64_t *w4, uint64_t *w8)
{
	const uint32_t m = (1u << n) - 1;
	const int first = 2, last = n - 3;
	uint32_t attack[NQ_MAXN], board[NQ_MAXN], fs[NQ_MAXN], rs[NQ_MAXN];
	uint64_t k2 = 0, k4 = 0, k8 = 0;
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
			uint32_t bit = board[row];
			l = (l >> 1) & ~bit;
			d &= ~bit;
			r = rs[row];
			f = fs[row];
			continue;
		}
		uint32_t bit = f & -f; /* lowest free column */
		f ^= bit;
		board[row] = bit;
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
		fs[row] = f; /* push */
		rs[row] = r;
		row++;
		l = nl;
		d = nd;
		r = nr;
		f = nf;
	}
	*w2 += k2 * weight;
	*w4 += k4 * weight;
	*w8 += k8 * weight;
}

#endif /* NQSEARCH_H */
