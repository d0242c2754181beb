/*
 * warpsim.h: the lockstep warp simulator's C side (see doc.go).
 *
 * A task's trace is the sequence of its step-loop iterations, one byte
 * each: the path class the iteration took (WS_PUSH ... WS_POPC). The
 * trace generators run the kernels' own per-task C search (nq_sym_step
 * from kernels/nqsearch.h, nq_carry_frame, pm_step from peer.h) on the
 * host; the engine replays 32 traces in lockstep as a warp runs them.
 */
#ifndef WARPSIM_H
#define WARPSIM_H

#include <stdint.h>

/* Path classes of one iteration (the TSV names are in warpsim.go). */
enum {
	WS_PUSH = 0,  /* placed a queen and pushed its row */
	WS_DEAD = 1,  /* placed a queen whose next row is empty (eightfold: a node
	               * that neither saved nor restored a level) */
	WS_LEAF = 2,  /* placed the queen of row n-2 (symmetry: no solution) */
	WS_SOL = 3,   /* placed the queen of row n-2 and classified a solution */
	WS_POP = 4,   /* popped a row */
	WS_END = 5,   /* the task's last iteration (ends its search) */
	WS_ORBIT = 6, /* carry chain: last inner row of a sym180 frame */
	WS_POPC = 7,  /* carry chain: counted the last inner row, popped */
	WS_CLASSES = 8
};

/* Kinds of task list (trace generator). */
enum { WS_SYM = 0, WS_CARRY = 1, WS_PEER = 2, WS_EF = 3 };

/* ws_tasks is a task list in launch order. */
typedef struct {
	int kind, n, depth;
	long long count;
	/* WS_SYM: tasks.Boards of kind Symmetry. */
	const uint32_t *rows, *left, *down, *right;
	/* WS_CARRY: tasks.Frames. */
	const uint32_t *frows;
	const uint8_t *weight, *sym180;
	/* WS_PEER: (cols, l, r) per task. */
	const uint32_t *peer;
	/* WS_EF: tasks.Eightfold. */
	const uint64_t *ef_left, *ef_right;
	const uint32_t *ef_down, *ef_meta;
} ws_tasks;

/* ws_trace is a growable byte buffer. */
typedef struct {
	uint8_t *b;
	long long len, cap;
} ws_trace;

/* ws_sums are the search's own results over the traced tasks: the
 * counts by orbit (carry chain: weighted; peer: the half-board count in
 * c8; eightfold: the weighted completions in c8, the completions in c2,
 * the tasks settled by their start in c4), nodes, and iterations by
 * class. */
typedef struct {
	uint64_t c2, c4, c8, nodes;
	uint64_t by_class[WS_CLASSES];
} ws_sums;

/* ws_make_trace fills tr with task i's trace (ending with WS_END for the
 * symmetry, carry and eightfold searches, whose last iteration ends the
 * task; the peer's ends with its last node) and adds its results to sums.
 * It returns 0, or -1 when memory runs out. */
int ws_make_trace(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums);

/* The generators, one per kind. */
int ws_trace_sym(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums);
int ws_trace_carry(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums);
int ws_trace_peer(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums);
int ws_trace_ef(const ws_tasks *t, long long i, ws_trace *tr, ws_sums *sums);

/* ws_push appends class c to tr; -1 when memory runs out. */
int ws_push(ws_trace *tr, uint8_t c);

/* ws_unit is what one sampled unit (a warp's round, or a warp's whole
 * run) cost: warp steps, active lane-steps (SIMT efficiency =
 * lane_steps / (32 * warp_steps)), warp instructions (and those of the
 * step loop on the ALU and FMA pipes), tasks. */
typedef struct {
	double warp_steps, lane_steps, insts, alu, imad, tasks;
	ws_sums sums;
} ws_unit;

/* ws_costs: the warp instructions of one warp step by the set of classes
 * its active lanes took (bit c = class c), those among them of the ALU
 * pipe and of the FMA pipe (IMAD), and the fixed costs. */
typedef struct {
	double step[1 << WS_CLASSES];
	double alu[1 << WS_CLASSES];
	double imad[1 << WS_CLASSES];
	double per_round; /* rounds: each round of 32 tasks */
	double per_warp;  /* refill: once per warp */
	int end_is_step;  /* 0: WS_END entries are dropped (the loop ends inside the last step) */
	int steps;        /* refill: steps per loop iteration (step[] costs a whole iteration); 0 or 1: one */
} ws_costs;

/* ws_round runs tasks first..first+31 (those below count) in lockstep to
 * the end of the longest, as a warp that waits for all its threads
 * before the next round. */
int ws_round(const ws_tasks *t, long long first, const ws_costs *c, ws_unit *u);

/* ws_refill runs warp w of warps resident warps that share one task
 * counter: its lanes start with tasks 32w..32w+31, then take, in the order
 * they finish, tasks 32*warps + w, 32*warps + w + warps, ... (each fetch of
 * this warp falls between warps-1 fetches of the others: equal rates), a
 * finished lane taking its next task in the iteration that ends its
 * board; a lane with none left idles until the warp's last task ends.
 * With c->steps = s > 1 an iteration is s steps: a lane whose task ends
 * before the iteration's last step idles for the rest of it (the kernel's
 * state takes those steps and does nothing), and the iteration costs
 * step[] of the classes of all its steps once; once a lane finds no task
 * left, the warp goes on one step at a time (the kernel's last loop) at
 * 1/s of an iteration's cost. */
int ws_refill(const ws_tasks *t, long long w, long long warps, const ws_costs *c, ws_unit *u);

/* ws_ef_frames returns NQ_EF_FRAMES(levels) of kernels/nqtotal.h. */
int ws_ef_frames(int levels);

/* ws_peer_tasks enumerates the peer model's tasks (peer.h) into out (3
 * words per task) when out is not NULL, and returns how many there are. */
long long ws_peer_tasks(int n, int rows, uint32_t *out);

#endif /* WARPSIM_H */
