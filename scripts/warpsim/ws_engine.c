/*
 * ws_engine.c: the lockstep replay of traces (warpsim.h).
 */
#include <stdlib.h>
#include <string.h>

#include "warpsim.h"

int ws_push(ws_trace *tr, uint8_t c)
{
	if (tr->len == tr->cap) {
		long long cap = tr->cap ? 2 * tr->cap : 1 << 12;
		uint8_t *b = realloc(tr->b, (size_t)cap);
		if (b == NULL)
			return -1;
		tr->b = b;
		tr->cap = cap;
	}
	tr->b[tr->len++] = c;
	return 0;
}

int ws_make_trace(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums)
{
	switch (t->kind) {
	case WS_SYM:
		return ws_trace_sym(t, i, tr, sums);
	case WS_CARRY:
		return ws_trace_carry(t, i, tr, sums);
	case WS_PEER:
		return ws_trace_peer(t, i, tr, sums);
	case WS_EF:
		return ws_trace_ef(t, i, tr, sums);
	}
	return -1;
}

/* The lanes' traces, reused from call to call (one set per thread). */
static __thread ws_trace ws_lane[32];

/* ws_load makes task i's trace in lane l, without a WS_END entry when the
 * kernel's loop ends inside the last step. */
static int ws_load(const ws_tasks *t, long long i, int l, const ws_costs *c, ws_unit *u)
{
	ws_trace *tr = &ws_lane[l];
	if (ws_make_trace(t, i, tr, &u->sums) < 0)
		return -1;
	if (!c->end_is_step && tr->len > 0 && tr->b[tr->len - 1] == WS_END)
		tr->len--;
	u->tasks++;
	return 0;
}

int ws_round(const ws_tasks *t, long long first, const ws_costs *c, ws_unit *u)
{
	int lanes = 0;
	long long len[32];
	int order[32];
	for (int l = 0; l < 32 && first + l < t->count; l++) {
		if (ws_load(t, first + l, l, c, u) < 0)
			return -1;
		len[l] = ws_lane[l].len;
		order[l] = l;
		lanes++;
	}
	/* Longest first: the lanes still running are a prefix of order. */
	for (int a = 1; a < lanes; a++)
		for (int b = a; b > 0 && len[order[b]] > len[order[b - 1]]; b--) {
			int x = order[b];
			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	int active = lanes;
	long long steps = lanes ? len[order[0]] : 0;
	double insts = 0, alu = 0, imad = 0, lane_steps = 0;
	for (long long s = 0; s < steps; s++) {
		while (active > 0 && len[order[active - 1]] <= s)
			active--;
		unsigned mask = 0;
		for (int a = 0; a < active; a++)
			mask |= 1u << ws_lane[order[a]].b[s];
		insts += c->step[mask];
		alu += c->alu[mask];
		imad += c->imad[mask];
		lane_steps += active;
	}
	u->warp_steps += (double)steps;
	u->lane_steps += lane_steps;
	u->insts += insts + c->per_round;
	u->alu += alu;
	u->imad += imad;
	return 0;
}

int ws_refill(const ws_tasks *t, long long w, long long warps, const ws_costs *c, ws_unit *u)
{
	long long pos[32], next = 32 * warps + w;
	int live[32], nlive = 0, ended[32];
	const int group = c->steps > 1 ? c->steps : 1;
	int drain = group == 1; /* one step at a time */
	for (int l = 0; l < 32; l++) {
		long long i = 32 * w + l;
		if (i >= t->count)
			break;
		if (ws_load(t, i, l, c, u) < 0)
			return -1;
		pos[l] = 0;
		ended[l] = 0;
		live[nlive++] = l;
	}
	double insts = 0, alu = 0, imad = 0, lane_steps = 0, steps = 0;
	while (nlive > 0 && !drain) {
		/* One iteration of group steps; lanes whose task ends idle to
		 * its end, then take their next task. */
		unsigned mask = 0;
		for (int s = 0; s < group; s++)
			for (int a = 0; a < nlive; a++) {
				int l = live[a];
				if (ended[l])
					continue;
				ws_trace *tr = &ws_lane[l];
				mask |= 1u << tr->b[pos[l]];
				lane_steps++;
				if (++pos[l] >= tr->len)
					ended[l] = 1;
			}
		steps += group;
		insts += c->step[mask];
		alu += c->alu[mask];
		imad += c->imad[mask];
		for (int a = 0; a < nlive; a++) {
			int l = live[a];
			if (!ended[l])
				continue;
			if (next < t->count) {
				if (ws_load(t, next, l, c, u) < 0)
					return -1;
				next += warps;
				pos[l] = 0;
				if (ws_lane[l].len > 0) {
					ended[l] = 0;
					continue;
				}
			}
			live[a--] = live[--nlive]; /* idle from now on */
			drain = 1;
		}
	}
	while (nlive > 0) {
		unsigned mask = 0;
		lane_steps += nlive;
		steps++;
		for (int a = 0; a < nlive; a++) {
			int l = live[a];
			ws_trace *tr = &ws_lane[l];
			mask |= 1u << tr->b[pos[l]];
			if (++pos[l] < tr->len)
				continue;
			/* The task ended in this iteration: take the next. */
			if (next < t->count) {
				if (ws_load(t, next, l, c, u) < 0)
					return -1;
				next += warps;
				pos[l] = 0;
				if (ws_lane[l].len > 0)
					continue;
			}
			live[a--] = live[--nlive]; /* idle from now on */
		}
		insts += c->step[mask] / group;
		alu += c->alu[mask] / group;
		imad += c->imad[mask] / group;
	}
	u->warp_steps += steps;
	u->lane_steps += lane_steps;
	u->insts += insts + c->per_warp;
	u->alu += alu;
	u->imad += imad;
	return 0;
}
