/*
 * eightfold.cu: the eightfold kernels (docs/kernels.md). Each thread runs
 * tasks (tasks.Eightfold) with nq_ef_start and nq_ef_step of nqtotal.h
 * and ADDS Σ weight × completions over the batch to out[2] (summed over
 * every task of N, Total), with NQ_NODES (the _nodes twins) the nodes to
 * out[3]. left, right (64-bit), down and meta hold count tasks as the Go
 * slices do; nq_eightfold also takes next, a task counter zeroed before
 * the launch. Launch: one-dimensional, blockDim.x a multiple of 32, and
 * frames * blockDim.x * 16 bytes of dynamic shared memory, frames at least
 * NQ_EF_FRAMES(levels) for every task of the batch.
 */
#include "nqtotal.h"
#include "nqreduce.cuh"

#if NQ_EF_AFTER != 9
#error "nq_ef_run writes out NQ_EF_AFTER + 1 = 10 steps"
#endif

/* nq_ef_mem is the block's dynamic shared memory: frame k of thread t at
 * index k * blockDim.x + t, so that a warp's 16-byte accesses to the same
 * frame are contiguous (no bank conflict). */
extern __shared__ nq_ef_frame nq_ef_mem[];

/* nq_ef_layout gives the thread's frame 0 and the stride between its
 * frames in bytes, and sets s's constants. fs is 16 * blockDim.x, computed
 * as the difference of two of the thread's frames so that ptxas keeps it
 * in a thread's register and steps the frame pointer with IMAD.IADD (the
 * FMA pipe), not with an IADD3 from a uniform register (the ALU pipe);
 * fs >> 31, 0, is the value ptxas cannot see that nq_ef_consts wants. */
static __device__ __forceinline__ void nq_ef_layout(nq_ef_ptr *base, uint32_t *fs, nq_ef_state *s)
{
	const nq_ef_ptr mem = nq_ef_ptr_of(nq_ef_mem);
	*base = mem + threadIdx.x * 16u;
	asm("sub.u32 %0, %1, %2;" : "=r"(*fs) : "r"(mem + (blockDim.x + threadIdx.x) * 16u), "r"(*base));
	nq_ef_consts(s, *fs >> 31);
}

/* nq_ef_run takes NQ_EF_AFTER + 1 steps and returns the last one's result.
 * They are written out: NVVM folds an unrolled loop of them back into one
 * copy with a counter. */
static __device__ __forceinline__ int nq_ef_run(nq_ef_state *s, nq_ef_counts *k)
{
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	nq_ef_step(s, k);
	return nq_ef_step(s, k);
}

/* nq_ef_add_out adds the thread's counters to out[2] (and out[3]) with one
 * atomicAdd per warp: no static shared memory, which would cost a block
 * per SM. Every thread of the block calls it. */
static __device__ __forceinline__ void nq_ef_add_out(const nq_ef_counts *k, unsigned long long *out)
{
	nq_warp_add1(k->total, out + 2);
	if (NQ_NODES)
		nq_warp_add1(k->nodes, out + 3);
}

/* nq_eightfold: as many blocks as stay resident; threads take tasks from
 * *next. A warp steps until a thread has finished its task (a warp vote
 * every NQ_EF_AFTER + 1 steps, so the loop has no divergent branch; a
 * finished task's further steps do nothing), then the threads without a
 * task take the next ones; once they are all handed out each thread ends
 * its own. */
extern "C" __global__ void __launch_bounds__(1024, 1)
	NQ_KERNEL(nq_eightfold)(int count, const unsigned long long *__restrict__ left,
				const unsigned long long *__restrict__ right, const uint32_t *__restrict__ down,
				const uint32_t *__restrict__ meta, unsigned long long *out, unsigned int *next)
{
	nq_ef_ptr base;
	uint32_t fs;
	nq_ef_state s;
	nq_ef_layout(&base, &fs, &s);
	nq_ef_counts k = {0, 0};
	s.w = 0;
	s.c = NQ_EF_C0;
	int more = 0; /* s holds a task in progress */
	for (;;) {
		while (!more) {
			const unsigned int i = atomicAdd(next, 1u);
			if (i >= (unsigned int)count)
				break;
			more = nq_ef_start(&s, base, fs, left[i], right[i], down[i], meta[i], &k);
		}
		if (__any_sync(0xffffffffu, !more))
			break; /* the tasks are all handed out */
		do {
			more = nq_ef_run(&s, &k);
			nq_ef_finish(&s, &k);
		} while (__all_sync(0xffffffffu, more));
	}
	while (more) {
		more = nq_ef_step(&s, &k);
		nq_ef_finish(&s, &k);
	}
	nq_ef_add_out(&k, out);
}

/* nq_eightfold_static: gridDim.x = min(ceil(count / blockDim.x), resident
 * blocks), a grid-stride loop, one task per thread at a time. */
extern "C" __global__ void __launch_bounds__(1024, 1)
	NQ_KERNEL(nq_eightfold_static)(int count, const unsigned long long *__restrict__ left,
				       const unsigned long long *__restrict__ right, const uint32_t *__restrict__ down,
				       const uint32_t *__restrict__ meta, unsigned long long *out)
{
	nq_ef_ptr base;
	uint32_t fs;
	nq_ef_state s;
	nq_ef_layout(&base, &fs, &s);
	nq_ef_counts k = {0, 0};
	/* i + stride stays below 2^32: count < 2^31, and so is the grid. */
	const unsigned int stride = gridDim.x * blockDim.x;
	for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)count; i += stride) {
		if (nq_ef_start(&s, base, fs, left[i], right[i], down[i], meta[i], &k)) {
			int more;
			do {
				more = nq_ef_run(&s, &k);
				nq_ef_finish(&s, &k);
			} while (more);
		}
	}
	nq_ef_add_out(&k, out);
}
