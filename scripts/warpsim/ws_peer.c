/*
 * ws_peer.c: traces of the peer model's search (peer.h: pm_start and
 * pm_step, the code peer.cu runs), and its task list.
 */
#include <stddef.h>

#include "peer.h"
#include "warpsim.h"

int ws_trace_peer(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums)
{
	pm_entry stk[32];
	pm_state s;
	unsigned long long sum = 0;
	const uint32_t *w = t->peer + 3 * (size_t)i;
	tr->len = 0;
	pm_start(&s, stk, 1, t->n, w[0], w[1], w[2]);
	while (s.top != s.base) {
		uint8_t c;
		switch (pm_step(&s, &sum)) {
		case PM_PUSH:
			c = WS_PUSH;
			break;
		case PM_DEAD:
			c = WS_DEAD;
			break;
		default:
			c = WS_LEAF;
			break;
		}
		if (ws_push(tr, c) < 0)
			return -1;
		sums->by_class[c]++;
		sums->nodes++;
	}
	sums->c8 += sum;
	return 0;
}

typedef struct {
	uint32_t *out;
	long long count;
} ws_peer_list;

static void ws_peer_emit(uint32_t cols, uint32_t l, uint32_t r, void *arg)
{
	ws_peer_list *p = arg;
	if (p->out != NULL) {
		p->out[3 * p->count] = cols;
		p->out[3 * p->count + 1] = l;
		p->out[3 * p->count + 2] = r;
	}
	p->count++;
}

long long ws_peer_tasks(int n, int rows, uint32_t *out)
{
	ws_peer_list p = {out, 0};
	pm_tasks(n, rows, ws_peer_emit, &p);
	return p.count;
}
