/*
 * ws_sym.c: traces of the symmetry-board search, by nq_sym_start and
 * nq_sym_step of kernels/nqsearch.h (the code nq_symmetry_boards,
 * nq_symmetry_boards_dyn and nq_symmetry_boards_smem run), one step call
 * per loop iteration.
 */
#include <stddef.h>

#define NQ_NODES 1
#include "nqsearch.h"
#include "warpsim.h"

int ws_trace_sym(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums)
{
	const int n = t->n;
	nq_sym_state s;
	uint32_t stk[NQ_SYM_WORDS(NQ_MAXN, 2)];
	nq_counts k = {0, 0, 0, 0};
	tr->len = 0;
	nq_sym_start(&s, stk, 1, n, t->depth, t->rows + (size_t)i * t->depth, t->left[i], t->down[i], t->right[i], &k);
	for (;;) {
		const int row = s.row;
		const uint32_t f = s.f;
		/* The step writes row n-1's word only when it classifies a
		 * complete board. */
		stk[n - 1] = 0;
		const int more = nq_sym_step(&s, &k);
		uint8_t c;
		if (!more)
			c = WS_END;
		else if (f == 0)
			c = WS_POP;
		else if (s.row == row + 1)
			c = WS_PUSH;
		else if (row + 1 == n - 1)
			c = stk[n - 1] != 0 ? WS_SOL : WS_LEAF;
		else
			c = WS_DEAD;
		if (ws_push(tr, c) < 0)
			return -1;
		sums->by_class[c]++;
		if (!more)
			break;
	}
	sums->c2 += k.c2;
	sums->c4 += k.c4;
	sums->c8 += k.c8;
	sums->nodes += k.nodes;
	return 0;
}
