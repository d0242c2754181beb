/*
 * ws_carry.c: traces of the carry-chain search, by nq_carry_frame of
 * kernels/nqsearch.h (the code nq_carry_frames runs).
 *
 * nq_carry_frame runs a frame to its end in one call, so this file
 * watches it instead of stepping it: NQ_NODES, which the search tests
 * where it places a queen, becomes an expression that records the node's
 * row, and the popcount that counts the last inner row records itself
 * too. From those events and the loop's rules (a pop is an iteration of
 * its own; the popcount iteration also pops; the search ends with an
 * iteration at the first row with no column left) ws_trace_carry rebuilds
 * the iterations. The watching changes no result (the events only go to
 * a buffer; the popcount returns its value).
 */
#include <stdint.h>
#include <stdlib.h>

#include "warpsim.h"

/* One event per node (its row) or popcount (WS_EV_POPC). */
#define WS_EV_POPC 0xff
static __thread uint8_t *ws_ev;
static __thread long long ws_ev_len, ws_ev_cap;
static __thread int ws_ev_oom;

static void ws_event(uint8_t e)
{
	if (ws_ev_len == ws_ev_cap) {
		long long cap = ws_ev_cap ? 2 * ws_ev_cap : 1 << 16;
		uint8_t *b = realloc(ws_ev, (size_t)cap);
		if (b == NULL) {
			ws_ev_oom = 1;
			return;
		}
		ws_ev = b;
		ws_ev_cap = cap;
	}
	ws_ev[ws_ev_len++] = e;
}

static void ws_node_event(int row) { ws_event((uint8_t)row); }

static int ws_popc_event(uint32_t x)
{
	ws_event(WS_EV_POPC);
	return __builtin_popcount(x);
}

#define NQ_NODES (ws_node_event(row), 1)
#define __builtin_popcount(x) ws_popc_event(x)
#include "nqsearch.h"
#undef __builtin_popcount

int ws_trace_carry(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums)
{
	const int n = t->n, first = 2, last = n - 3;
	nq_counts w = {0, 0, 0, 0};
	ws_ev_len = 0;
	ws_ev_oom = 0;
	nq_carry_frame(n, t->frows + (size_t)i * n, t->weight[i], t->sym180[i], &w);
	if (ws_ev_oom)
		return -1;
	tr->len = 0;
	int row = first;
#define WS_EMIT(c)                               \
	do {                                     \
		if (ws_push(tr, (c)) < 0)        \
			return -1;               \
		sums->by_class[(c)]++;           \
	} while (0)
	for (long long e = 0; e < ws_ev_len; e++) {
		if (ws_ev[e] == WS_EV_POPC) {
			if (row == first) { /* n = 5: the count ends the search */
				WS_EMIT(WS_END);
				goto done;
			}
			WS_EMIT(WS_POPC); /* at row last: count, then pop */
			row--;
			continue;
		}
		int r = ws_ev[e];
		for (; row > r; row--)
			WS_EMIT(WS_POP);
		uint8_t next = e + 1 < ws_ev_len ? ws_ev[e + 1] : 0;
		int pushed = e + 1 < ws_ev_len && (next == r + 1 || (next == WS_EV_POPC && r == last - 1));
		if (pushed) {
			WS_EMIT(WS_PUSH);
			row = r + 1;
		} else if (r == last) {
			WS_EMIT(WS_ORBIT);
		} else {
			WS_EMIT(WS_DEAD);
		}
	}
	for (; row > first; row--)
		WS_EMIT(WS_POP);
	WS_EMIT(WS_END);
done:
#undef WS_EMIT
	sums->c2 += w.c2;
	sums->c4 += w.c4;
	sums->c8 += w.c8;
	sums->nodes += w.nodes;
	return 0;
}
