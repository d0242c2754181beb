/*
 * boards.cu: the symmetry-elimination kernels (docs/kernels.md) over a
 * batch of partial boards (tasks.Boards of kind Symmetry), searched by
 * nq_symmetry_board / nq_sym_step of nqsearch.h. Board i has its depth row
 * words (bit c = column c) in rows[i*depth ...]; left[i], down[i] and
 * right[i] are the attack words row depth sees (4 <= n <= 28, 2 <= depth
 * <= n-1). The kernels ADD the canonical solutions to out[0], out[1] and
 * out[2] by orbit size 2, 4 and 8 (summed over every board of N: COUNT2,
 * COUNT4, COUNT8), with NQ_NODES the nodes to out[3]. Launch:
 * one-dimensional, blockDim.x a multiple of 32, at most 1024.
 * nq_symmetry_boards: one board per thread, grid-stride; _dyn and _smem:
 * as many blocks as stay resident, boards from the counter next; only
 * _smem takes dynamic shared memory.
 */
#include "nqsearch.h"
#include "nqreduce.cuh"

extern "C" __global__ void NQ_KERNEL(nq_symmetry_boards)(int n, int depth, int count,
							 const uint32_t *__restrict__ rows,
							 const uint32_t *__restrict__ left,
							 const uint32_t *__restrict__ down,
							 const uint32_t *__restrict__ right,
							 unsigned long long *out)
{
	nq_counts k = {0, 0, 0, 0};
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		nq_symmetry_board(n, depth, rows + i * depth, left[i], down[i], right[i], &k);
	nq_block_add_counts(&k, out);
}

/*
 * nq_boards_fetch is the loop of the dynamic kernels: the thread takes
 * boards from the shared counter *next with atomicAdd, and a thread whose
 * board is finished takes the next one inside the same loop in which its
 * warp's other threads go on stepping their own boards, so no thread waits
 * idle for the longest board of its warp. stk and stride place the
 * thread's stack (see NQ_SYM_WORDS).
 */
static __device__ __forceinline__ void nq_boards_fetch(int n, int depth, int count, const uint32_t *rows,
						       const uint32_t *left, const uint32_t *down,
						       const uint32_t *right, unsigned int *next,
						       uint32_t *stk, int stride, nq_counts *k)
{
	nq_sym_state s;
	unsigned int i = atomicAdd(next, 1u);
	if (i < (unsigned int)count)
		nq_sym_start(&s, stk, stride, n, depth, rows + (size_t)i * depth, left[i], down[i], right[i], k);
	while (i < (unsigned int)count) {
		if (!nq_sym_step(&s, k)) {
			i = atomicAdd(next, 1u);
			if (i < (unsigned int)count)
				nq_sym_start(&s, stk, stride, n, depth, rows + (size_t)i * depth, left[i], down[i],
					     right[i], k);
		}
	}
}

/*
 * nq_symmetry_boards_dyn is the search with dynamic fetching
 * (nq_boards_fetch), the stack in a thread-private array. Zero *next
 * before the launch, and launch enough blocks to fill the GPU (as many as
 * stay resident); the arguments are those of nq_symmetry_boards followed
 * by next.
 *
 * Argument block: as nq_symmetry_boards, then next at byte 56; 64 bytes.
 */
extern "C" __global__ void NQ_KERNEL(nq_symmetry_boards_dyn)(int n, int depth, int count,
							     const uint32_t *__restrict__ rows,
							     const uint32_t *__restrict__ left,
							     const uint32_t *__restrict__ down,
							     const uint32_t *__restrict__ right,
							     unsigned long long *out, unsigned int *next)
{
	nq_counts k = {0, 0, 0, 0};
	uint32_t stk[NQ_SYM_WORDS(NQ_MAXN, 2)];
	nq_boards_fetch(n, depth, count, rows, left, down, right, next, stk, 1, &k);
	nq_block_add_counts(&k, out);
}

/*
 * nq_symmetry_boards_smem is nq_symmetry_boards_dyn with the stacks of the
 * block's threads in dynamic shared memory, word-major (see NQ_SYM_WORDS:
 * no bank conflicts). Launch it with NQ_SYM_WORDS(n, depth) * blockDim.x *
 * 4 bytes of dynamic shared memory (176 bytes per thread at N=20, depth
 * 7); the arguments and argument block are those of
 * nq_symmetry_boards_dyn.
 */
extern "C" __global__ void NQ_KERNEL(nq_symmetry_boards_smem)(int n, int depth, int count,
							      const uint32_t *__restrict__ rows,
							      const uint32_t *__restrict__ left,
							      const uint32_t *__restrict__ down,
							      const uint32_t *__restrict__ right,
							      unsigned long long *out, unsigned int *next)
{
	extern __shared__ uint32_t nq_stacks[];
	nq_counts k = {0, 0, 0, 0};
	nq_boards_fetch(n, depth, count, rows, left, down, right, next, nq_stacks + threadIdx.x, blockDim.x, &k);
	nq_block_add_counts(&k, out);
}
