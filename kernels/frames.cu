/*
 * frames.cu: the carry-chain kernel over a batch of canonical frames
 * (tasks.Frames). The search itself is nq_carry_frame in nqsearch.h, the
 * same code the kernels/host tests run on the CPU.
 *
 * Kernel (extern "C": the PTX entry is named exactly nq_carry_frames):
 *
 *   __global__ void nq_carry_frames(
 *       int                 n,       // board size, 5..28
 *       int                 count,   // frames in the batch, >= 0
 *       const uint32_t     *rows,    // count*n words
 *       const uint8_t      *weight,  // count bytes
 *       const uint8_t      *sym180,  // count bytes
 *       unsigned long long *out);    // 3 counters: W2, W4, W8
 *
 * Argument block (cuLaunchKernel with kernelParams, one pointer per
 * argument; or a packed buffer with natural alignment): n at byte 0, count
 * at 4, rows at 8, weight at 16, sym180 at 24, out at 32; 40 bytes in all.
 *
 * Memory layout: the device arrays are the Go tasks.Frames slices copied
 * as they are. Frame i has its n row words in rows[i*n .. i*n+n-1]: one set
 * bit (bit c = column c) for each row the frame fills, 0 for each inner row
 * to search. weight[i] is 8/|stabiliser| (8, 4 or 2); sym180[i] is 1 when
 * the stabiliser holds the half turn, else 0.
 *
 * Output: the kernel ADDS weighted completions to out[0] (W2: completions
 * fixed by a quarter turn), out[1] (W4: fixed by a half turn only) and
 * out[2] (W8: the rest), each completion counting its frame's weight; zero
 * them before the first batch of an N and read them after the last. Summed
 * over every frame of N, COUNT2 = W2/2, COUNT4 = W4/4, COUNT8 = W8/8 and
 * Total = W2 + W4 + W8 (tasks.Weighted). Built with NQ_NODES=1
 * (ptx/frames_nodes.ptx: nq_carry_frames_nodes) it also adds the search's
 * nodes to out[3].
 *
 * Launch shape: as boards.cu. One-dimensional, no dynamic shared memory;
 * blockDim.x a multiple of 32, at most 1024 (128 or 256 suggested);
 * gridDim.x = min(ceil(count / blockDim.x), k * SM count), k about 4..8; a
 * grid-stride loop, one frame per thread at a time, 64-bit counters in
 * registers, one atomicAdd per block per counter (nqreduce.cuh).
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
