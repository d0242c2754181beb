/*
 * nodes.cu: every kernel of boards.cu, frames.cu and eightfold.cu once
 * more, built with NQ_NODES=1 so that the search also counts its nodes
 * (nq_counts, nq_ef_counts) and adds them to out[3] (out[1] for the
 * eightfold kernels), under the same name with the suffix _nodes
 * (nq_symmetry_boards_nodes, nq_eightfold_nodes, ...). The arguments,
 * memory layout and launch shape are those of the original kernel; out
 * must hold 4 counters (2 for the eightfold kernels).
 *
 * Counting costs a 64-bit add per node and two registers, so the plain
 * kernels stay the ones that run; these serve `-gpu-nodes` runs, which
 * report nodes per second (a node count is fixed by N, the algorithm and
 * the depth, and every kernel of one algorithm counts the same nodes).
 */
#define NQ_NODES 1
#define NQ_KERNEL(name) name##_nodes
#include "boards.cu"
#include "frames.cu"
#include "eightfold.cu"
