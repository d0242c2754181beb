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
 * NQ_EF_FRAMES(levels) (= levels - 1, at least 1) for every task of the
 * batch: for its largest levels, or N - 4 - split for any batch of N and
 * split (a task has at most N - 3 - split levels), or N - 5 - split once
 * the tasks of N - 3 - split levels are split into their children
 * (tasks.Eightfold.SplitLevels, as the gpu package sends them).
 *
 * Dynamic shared memory: frames * blockDim.x * 16 bytes, the threads'
 * frames, frame k of thread t at index k * blockDim.x + t (nqtotal.h: no
 * bank conflicts). 192 bytes per thread at N=20 with split 3 as the gpu
 * package sends the tasks (at most 13 levels, 12 frames).
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
 * per SM; __launch_bounds__ allows the kernels 64 registers, and they
 * need fewer).
 * nq_eightfold: as many blocks as stay resident (threads loop until the
 * counter passes count); zero *next before each launch. A warp runs the
 * step loop until one of its threads has finished its task (a warp vote,
 * so the loop has no divergent branch; it looks every NQ_EF_AFTER + 1
 * steps, a finished task's state taking any further steps doing
 * nothing); then the threads without a task take the next ones from
 * *next, and the warp runs the loop again. So no thread waits for the
 * longest task of its warp, and no iteration pays for a refill it does
 * not make; once the tasks are all handed out, each thread finishes its
 * own. nq_eightfold_static: gridDim.x =
 * min(ceil(count / blockDim.x), resident blocks), a grid-stride loop, one
 * task per thread at a time. Both keep a 64-bit sum per thread in
 * registers and end with one atomicAdd per warp (nqreduce.cuh).
 *
 * Warps and shapes: the step has no branch that depends on a task's
 * shape (its start row and pre-filled rows are data: the table's shifts),
 * so threads of one warp may hold tasks of any shape; the enumeration
 * still lists tasks grouped by shape (tasks.EnumerateEightfold), so that
 * neighbouring tasks, taken by neighbouring threads, have the same depth.
 */
#include "nqtotal.h"
#include "nqreduce.cuh"

#if NQ_EF_AFTER != 9
#error "nq_eightfold's step loop writes out NQ_EF_AFTER + 1 = 10 steps"
#endif

/* nq_ef_mem is the block's dynamic shared memory: the frame area (see the
 * header comment). */
extern __shared__ nq_ef_frame nq_ef_mem[];

/* nq_ef_layout gives the thread's place in nq_ef_mem (nq_ef_start): its
 * frame 0 and the stride between its frames, in bytes. */
static __device__ __forceinline__ void nq_ef_layout(nq_ef_ptr *base, uint32_t *fs)
{
	const nq_ef_ptr mem = nq_ef_ptr_of(nq_ef_mem);
	*base = mem + threadIdx.x * 16u;
	/* fs = 16 * blockDim.x, as the difference of two of the thread's
	 * frames, where ptxas does not see that it is the same for every
	 * thread: it keeps it in a thread's register, and steps the frame
	 * pointer with IMAD.IADD (the FMA pipe) instead of an IADD3 from a
	 * uniform register (the ALU pipe, which the step loop fills). */
	asm("sub.u32 %0, %1, %2;" : "=r"(*fs) : "r"(mem + (blockDim.x + threadIdx.x) * 16u), "r"(*base));
}

/* nq_ef_add_out adds the thread's counters to out: the total to out[2]
 * (the slot of the other kernels' orbits of 8), with NQ_NODES the nodes to
 * out[3]; one atomicAdd per warp, so that the kernels use no static shared
 * memory (the frames bound the warps per SM). Every thread of the block
 * calls it. */
static __device__ __forceinline__ void nq_ef_add_out(const nq_ef_counts *k, unsigned long long *out)
{
	nq_warp_add1(k->total, out + 2);
	if (NQ_NODES)
		nq_warp_add1(k->nodes, out + 3);
}

extern "C" __global__ void __launch_bounds__(1024, 1) NQ_KERNEL(nq_eightfold)(int count, int frames,
						   const unsigned long long *__restrict__ left,
						   const unsigned long long *__restrict__ right,
						   const uint32_t *__restrict__ down,
						   const uint32_t *__restrict__ meta,
						   unsigned long long *out, unsigned int *next)
{
	nq_ef_ptr base;
	uint32_t fs;
	(void)frames; /* the launch sized the shared memory from it */
	nq_ef_layout(&base, &fs);
	nq_ef_counts k = {0, 0};
	nq_ef_state s;
	s.w = 0;
	s.c = 0;
	int more = 0; /* s holds a task in progress */
	for (;;) {
		/* Threads without a task take one (or find none left). */
		while (!more) {
			const unsigned int i = atomicAdd(next, 1u);
			if (i >= (unsigned int)count)
				break;
			more = nq_ef_start(&s, base, fs, left[i], right[i], down[i], meta[i], &k);
		}
		if (__any_sync(0xffffffffu, !more))
			break; /* the tasks are all handed out */
		/* Step until a thread of the warp finishes its task: the loop's
		 * test is warp-uniform, so it has no divergent branch. It looks
		 * only every NQ_EF_AFTER + 1 steps: the steps a finished task
		 * takes after its end do nothing. */
		do {
			/* NQ_EF_AFTER + 1 steps, written out: NVVM folds an
			 * unrolled loop of them back into one copy with a
			 * counter. */
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			nq_ef_step(&s, &k);
			more = nq_ef_step(&s, &k);
		} while (__all_sync(0xffffffffu, more));
		nq_ef_finish(&s, &k); /* the finished tasks, and the others so far */
	}
	while (more) /* the warp's last tasks */
		more = nq_ef_step(&s, &k);
	nq_ef_finish(&s, &k);
	nq_ef_add_out(&k, out);
}

extern "C" __global__ void __launch_bounds__(1024, 1) NQ_KERNEL(nq_eightfold_static)(int count, int frames,
							  const unsigned long long *__restrict__ left,
							  const unsigned long long *__restrict__ right,
							  const uint32_t *__restrict__ down,
							  const uint32_t *__restrict__ meta,
							  unsigned long long *out)
{
	nq_ef_ptr base;
	uint32_t fs;
	(void)frames; /* the launch sized the shared memory from it */
	nq_ef_layout(&base, &fs);
	nq_ef_counts k = {0, 0};
	nq_ef_state s;
	/* i + stride stays below 2^32: count < 2^31, and so is the grid. */
	const unsigned int stride = gridDim.x * blockDim.x;
	for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)count; i += stride) {
		if (nq_ef_start(&s, base, fs, left[i], right[i], down[i], meta[i], &k)) {
			while (nq_ef_step(&s, &k))
				;
			nq_ef_finish(&s, &k);
		}
	}
	nq_ef_add_out(&k, out);
}
