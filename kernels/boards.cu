/*
 * boards.cu: the symmetry-elimination kernel over a batch of partial boards
 * (tasks.Boards of kind Symmetry). The search itself is nq_symmetry_board
 * in nqsearch.h, the same code the kernels/host tests run on the CPU.
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
 * board of N they are exactly COUNT2, COUNT4 and COUNT8.
 *
 * Launch shape: one-dimensional, no dynamic shared memory. blockDim.x a
 * multiple of 32, at most 1024 (128 or 256 suggested); gridDim.x =
 * min(ceil(count / blockDim.x), k * SM count) with k a small multiple such
 * as 4..8. Threads take boards by a grid-stride loop, one board at a time,
 * and keep 64-bit counters in registers; each block then sums them (warp
 * shuffles, then shared memory across warps) and does one atomicAdd per
 * counter (nqreduce.cuh).
 */
#include "nqsearch.h"
#include "nqreduce.cuh"

extern "C" __global__ void nq_symmetry_boards(int n, int depth, int count,
					      const uint32_t *__restrict__ rows,
					      const uint32_t *__restrict__ left,
					      const uint32_t *__restrict__ down,
					      const uint32_t *__restrict__ right,
					      unsigned long long *out)
{
	uint64_t c2 = 0, c4 = 0, c8 = 0;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		nq_symmetry_board(n, depth, rows + i * depth, left[i], down[i], right[i], &c2, &c4, &c8);
	nq_block_add3(c2, c4, c8, out);
}

/*
 * nq_symmetry_boards_dyn is the same search with dynamic fetching: each
 * thread takes boards from the shared counter *next (zero it before the
 * launch) with atomicAdd, and a thread whose board is finished takes the
 * next one inside the same loop in which its warp's other threads go on
 * stepping their own boards, so no thread waits idle for the longest board
 * of its warp. Launch it with enough blocks to fill the GPU (a few per SM);
 * the arguments are those of nq_symmetry_boards followed by next.
 *
 * Argument block: as nq_symmetry_boards, then next at byte 56; 64 bytes.
 */
extern "C" __global__ void nq_symmetry_boards_dyn(int n, int depth, int count,
						  const uint32_t *__restrict__ rows,
						  const uint32_t *__restrict__ left,
						  const uint32_t *__restrict__ down,
						  const uint32_t *__restrict__ right,
						  unsigned long long *out, unsigned int *next)
{
	uint64_t c2 = 0, c4 = 0, c8 = 0;
	nq_sym_state s;
	uint32_t board[NQ_MAXN], fs[NQ_MAXN], rs[NQ_MAXN];
	unsigned int i = atomicAdd(next, 1u);
	if (i < (unsigned int)count)
		nq_sym_start(&s, board, n, depth, rows + (size_t)i * depth, left[i], down[i], right[i], &c2, &c4, &c8);
	while (i < (unsigned int)count) {
		if (!nq_sym_step(&s, board, fs, rs, &c2, &c4, &c8)) {
			i = atomicAdd(next, 1u);
			if (i < (unsigned int)count)
				nq_sym_start(&s, board, n, depth, rows + (size_t)i * depth, left[i], down[i], right[i],
					     &c2, &c4, &c8);
		}
	}
	nq_block_add3(c2, c4, c8, out);
}
