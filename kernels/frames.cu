/*
 * frames.cu: the carry-chain kernel (docs/kernels.md) over a batch of
 * canonical frames (tasks.Frames), searched by nq_carry_frame of
 * nqsearch.h. Frame i has its n row words in rows[i*n ...] (one bit, bit c
 * = column c, for each row the frame fills; 0 for an inner row to search;
 * 5 <= n <= 28), its weight 8/|stabiliser| in weight[i] and sym180[i] 1
 * when its stabiliser holds the half turn. The kernel ADDS weighted
 * completions to out[0] (W2), out[1] (W4) and out[2] (W8): summed over
 * every frame of N, COUNTk = Wk/k (tasks.Weighted); with NQ_NODES the
 * nodes to out[3]. Launch: one-dimensional, blockDim.x a multiple of 32,
 * at most 1024, a few blocks per SM, grid-stride; no shared memory.
 */
#include "nqsearch.h"
#include "nqreduce.cuh"

extern "C" __global__ void NQ_KERNEL(nq_carry_frames)(int n, int count,
						      const uint32_t *__restrict__ rows,
						      const uint8_t *__restrict__ weight,
						      const uint8_t *__restrict__ sym180,
						      unsigned long long *out)
{
	nq_counts w = {0, 0, 0, 0};
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		nq_carry_frame(n, rows + i * n, weight[i], sym180[i], &w);
	nq_block_add_counts(&w, out);
}
