/*
 * boards.cu: the symmetry-elimination kernels over a batch of partial
 * boards (tasks.Boards of kind Symmetry). The search itself is
 * nq_symmetry_board / nq_sym_step in nqsearch.h, the same code the
 * kernels/host tests run on the CPU. Three kernels share the arguments
 * below: nq_symmetry_boards (one board per thread at a time, the stack in
 * a thread-private array), nq_symmetry_boards_dyn (threads take boards
 * from a shared counter) and nq_symmetry_boards_smem (as _dyn, the stack
 * in shared memory).
 *
 * Kernel (extern "C": the PTX entry is named exactly nq_symmetry_boards):
 *
 *   __global__ void nq_symmetry_boards(
 *       int                 n,      // board size, 4..28
 *       int                 depth,  // rows placed per board, 2..n-1
 *       int                 count,  // boards in the batch, >= 0
 *       const uint32_t     *rows,   // count*depth words
 *       const uint32_t     *left,   // count words
 *       const uint32_t     *down,   // count words
 *       const uint32_t     *right,  // count words
 *       unsigned long long *out);   // 3 counters: C2, C4, C8
 *
 * Argument block (cuLaunchKernel with kernelParams, one pointer per
 * argument; or a packed buffer with natural alignment): n at byte 0, depth
 * at 4, count at 8, 4 bytes of padding, rows at 16, left at 24, down at 32,
 * right at 40, out at 48; 56 bytes in all.
 *
 * Memory layout: the device arrays are the Go tasks.Boards slices copied
 * as they are. Board i has its row words (one set bit per row, bit c =
 * column c) in rows[i*depth .. i*depth+depth-1]; left[i], down[i] and
 * right[i] are the attack words that row depth sees.
 *
 * Output: the kernel ADDS the canonical solutions it finds to out[0]
 * (orbit 2), out[1] (orbit 4) and out[2] (orbit 8); zero them before the
 * first batch of an N and read them after the last. Summed over every
 * board of N they are exactly COUNT2, COUNT4 and COUNT8. The same kernels
 * built with NQ_NODES=1 (ptx/boards_nodes.ptx: names ending in _nodes, see
 * NQ_KERNEL in nqreduce.cuh) also add the search's nodes (nq_counts) to
 * out[3].
 *
 * Launch shape: one-dimensional; blockDim.x a multiple of 32, at most
 * 1024 (128 or 256 suggested). nq_symmetry_boards: gridDim.x =
 * ceil(count / blockDim.x), one board per thread (a smaller grid makes the
 * threads loop over the boards, grid-stride). The dynamic kernels: as many
 * blocks as the GPU keeps resident; threads loop until the counter passes
 * count. Only _smem takes dynamic shared memory. Every kernel keeps its
 * 64-bit counters in registers; each block then sums them (warp shuffles,
 * then shared memory across warps) and does one atomicAdd per counter
 * (nqreduce.cuh).
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
