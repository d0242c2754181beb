/*
 * ws_ef.c: traces of the eightfold search, by nq_ef_start and nq_ef_step
 * of kernels/nqtotal.h (the code nq_eightfold and nq_eightfold_static
 * run), one step call per loop iteration.
 */
#include <stddef.h>

#define NQ_NODES 1
#include "nqtotal.h"
#include "warpsim.h"

int ws_ef_frames(int levels)
{
	return NQ_EF_FRAMES(levels);
}

int ws_trace_ef(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums)
{
	nq_ef_state s;
	nq_ef_frame fr[NQ_EF_FRAMES(NQ_MAXN - 2)];
	nq_ef_counts k = {0, 0};
	tr->len = 0;
	nq_ef_consts(&s, 0u);
	if (!nq_ef_start(&s, (nq_ef_ptr)fr, 16, t->ef_left[i], t->ef_right[i], t->ef_down[i],
			 t->ef_meta[i], &k)) {
		/* Settled by the start (one level, or no free column): no step, but the kernels'
		 * refill handles it; one end entry keeps the lane busy for it. */
		if (ws_push(tr, WS_END) < 0)
			return -1;
		sums->by_class[WS_END]++;
		sums->c4++; /* the tasks settled by their start */
	} else {
		for (;;) {
			const nq_ef_ptr top = s.top;
			const int more = nq_ef_step(&s, &k);
			uint8_t c;
			if (!more)
				c = WS_END; /* the task's last node, and its end */
			else if (s.top > top)
				c = WS_PUSH;
			else if (s.top < top)
				c = WS_POP;
			else
				c = WS_DEAD; /* descend without saving, or stay on the level */
			if (ws_push(tr, c) < 0)
				return -1;
			sums->by_class[c]++;
			sums->c2 += (uint32_t)s.c; /* the completions, each a last-level step */
			nq_ef_finish(&s, &k);
			if (!more)
				break;
		}
	}
	sums->c8 += k.total;
	sums->nodes += k.nodes;
	return 0;
}
