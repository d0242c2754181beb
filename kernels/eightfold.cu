/*
 * eightfold.cu: the eightfold kernels over a batch of tasks
 * (tasks.Eightfold): Total as Σ weight × completions over canonical border
 * pre-placements. The search is nq_ef_start / nq_ef_step in nqtotal.h, the
 * same code the kernels/host tests run on the CPU.
 *
 * Kernels (extern "C": the PTX entries are named exactly so):
 *
 *   __global__ void nq_eightfold(            // dynamic fetching
 *       int                       count,   // tasks in the batch, >= 0
 *       int                       frames,  // frames per thread, >= 1
 *       const unsigned long long *left,    // count words
 *       const unsigned long long *right,   // count words
 *       const uint32_t           *down,    // count words
 *       const uint32_t           *meta,    // count words
 *       unsigned long long       *out,     // 4 counters; out[2]: Σ weight × completions
 *       unsigned int             *next);   // task counter, zeroed before launch
 *
 *   __global__ void nq_eightfold_static(...) // the same arguments but next
 *
 * Argument block (cuLaunchKernel with kernelParams, one pointer per
 * argument; or a packed buffer with natural alignment): count at byte 0,
 * frames at 4, left at 8, right at 16, down at 24, meta at 32, out at 40,
 * next at 48 (nq_eightfold only); 56 bytes in all (48 for the static
 * kernel).
 *
 * Memory layout: the device arrays are the Go tasks.Eightfold slices Left,
 * Right, Down and Meta copied as they are (Cols stays on the host). Task i
 * searches Meta[i] & 0xff levels; frames must be at least
 * NQ_EF_FRAMES(levels) = levels - 1 (at least 1) for every task of the
 * batch: its largest levels - 1, or N - 4 - split for any batch of N and
 * split (N - 3 - split for corner borders, which leave one row more).
 *
 * Dynamic shared memory: frames * blockDim.x * 20 bytes: first the
 * threads' frames, 16 bytes each, frame k of thread t at index k *
 * blockDim.x + t; then the table words, word j of thread t at j *
 * blockDim.x + t (nqtotal.h: no bank conflicts). 260 bytes per thread at
 * N=20 with the default split (14 levels).
 *
 * Output: the kernels ADD Σ weight × completions over the batch to
 * out[2], the slot where the other kernels add their orbits of 8, and
 * leave out[0] and out[1] alone; zero them before the first batch of an N
 * and read them after the last: summed over every task of N, out[2] is
 * Total. Built with NQ_NODES=1 (make ptx: eightfold_nodes.ptx with
 * nq_eightfold_nodes and nq_eightfold_static_nodes) they also add the
 * search's nodes to out[3].
 *
 * Launch shape: one-dimensional; blockDim.x a multiple of 32, at most
 * 1024 (128 suggested: shared memory, not registers, bounds the threads
 * per SM). nq_eightfold: as many blocks as stay resident (threads loop
 * until the counter passes count); zero *next before each launch. A
 * thread whose task is finished takes the next one from *next inside the
 * loop in which its warp's other threads go on stepping, so no thread
 * waits for the longest task of its warp. nq_eightfold_static: gridDim.x =
 * min(ceil(count / blockDim.x), resident blocks), a grid-stride loop, one
 * task per thread at a time. Both keep a 64-bit sum per thread in
 * registers and end with one atomicAdd per block (nqreduce.cuh).
 *
 * Warps and shapes: the step has no branch that depends on a task's
 * shape (its start row and pre-filled rows are data: the table's shifts),
 * so threads of one warp may hold tasks of any shape; the enumeration
 * still lists tasks grouped by shape (tasks.EnumerateEightfold), so that
 * neighbouring tasks, taken by neighbouring threads, have the same depth.
 */
#include "nqtotal.h"
#include "nqreduce.cuh"

/* nq_ef_smem places the thread's frames and table words in the block's
 * dynamic shared memory (see the header comment). */
static __device__ __forceinline__ void nq_ef_smem(int frames, nq_ef_frame **fr, uint32_t **tab)
{
	extern __shared__ nq_ef_frame nq_ef_frames[];
	*fr = nq_ef_frames + threadIdx.x;
	*tab = (uint32_t *)(nq_ef_frames + (size_t)frames * blockDim.x) + threadIdx.x;
}

/* nq_ef_add_out adds the thread's counters to out: the total to out[2]
 * (the slot of the other kernels' orbits of 8), with NQ_NODES the nodes to
 * out[3]. Every thread of the block calls it. */
static __device__ __forceinline__ void nq_ef_add_out(const nq_ef_counts *k, unsigned long long *out)
{
	nq_block_add1(k->total, out + 2);
	if (NQ_NODES) {
		__syncthreads(); /* the shared sums of nq_block_add1 are reused */
		nq_block_add1(k->nodes, out + 3);
	}
}

extern "C" __global__ void NQ_KERNEL(nq_eightfold)(int count, int frames,
						   const unsigned long long *__restrict__ left,
						   const unsigned long long *__restrict__ right,
						   const uint32_t *__restrict__ down,
						   const uint32_t *__restrict__ meta,
						   unsigned long long *out, unsigned int *next)
{
	nq_ef_frame *fr;
	uint32_t *tab;
	nq_ef_smem(frames, &fr, &tab);
	nq_ef_counts k = {0, 0};
	nq_ef_state s;
	unsigned int i = atomicAdd(next, 1u);
	if (i < (unsigned int)count)
		nq_ef_start(&s, fr, blockDim.x, tab, blockDim.x, left[i], right[i], down[i], meta[i], &k);
	while (i < (unsigned int)count) {
		if (!nq_ef_step(&s, &k)) {
			i = atomicAdd(next, 1u);
			if (i < (unsigned int)count)
				nq_ef_start(&s, fr, blockDim.x, tab, blockDim.x, left[i], right[i], down[i],
					    meta[i], &k);
		}
	}
	nq_ef_add_out(&k, out);
}

extern "C" __global__ void NQ_KERNEL(nq_eightfold_static)(int count, int frames,
							  const unsigned long long *__restrict__ left,
							  const unsigned long long *__restrict__ right,
							  const uint32_t *__restrict__ down,
							  const uint32_t *__restrict__ meta,
							  unsigned long long *out)
{
	nq_ef_frame *fr;
	uint32_t *tab;
	nq_ef_smem(frames, &fr, &tab);
	nq_ef_counts k = {0, 0};
	nq_ef_state s;
	/* i + stride stays below 2^32: count < 2^31, and so is the grid. */
	const unsigned int stride = gridDim.x * blockDim.x;
	for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)count; i += stride) {
		nq_ef_start(&s, fr, blockDim.x, tab, blockDim.x, left[i], right[i], down[i], meta[i], &k);
		while (nq_ef_step(&s, &k))
			;
	}
	nq_ef_add_out(&k, out);
}
