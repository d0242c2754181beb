/*
 * peer.cu: the model of the Yao & Li (2025) GPU kernel (peer.h), built
 * only by scripts/kernel-report.sh, so that the speed model counts the
 * SASS of the peer's loop as nvcc builds it. Not part of the product: it
 * lives outside kernels/ and nothing embeds or launches it.
 *
 * Launch shape of the published configuration ("configuration 2"): 160
 * threads per block, 1024 blocks, 19 stack levels per thread in static
 * shared memory (48,640 bytes per block), 6 pre-placed rows. Each thread
 * takes tasks from a global counter with atomicAdd until none is left and
 * writes each task's count to partial[task] (the host sums them and
 * doubles the sum).
 */
#include "peer.h"

#define PM_BLOCK 160
#define PM_LEVELS 19

__device__ unsigned long long pm_next;

extern "C" __global__ void __launch_bounds__(PM_BLOCK)
	pm_peer(int n, long long count, const uint32_t *__restrict__ tasks, unsigned long long *partial)
{
	__shared__ pm_entry stacks[PM_BLOCK * PM_LEVELS];
	/* Lane t of warp w: level k at entry (w*PM_LEVELS + k)*32 + t. */
	pm_entry *stk = stacks + (threadIdx.x / 32) * 32 * PM_LEVELS + threadIdx.x % 32;
	unsigned long long i = atomicAdd(&pm_next, 1ull);
	while (i < (unsigned long long)count) {
		unsigned long long sum = 0;
		pm_state s;
		pm_start(&s, stk, 32, n, tasks[3 * i], tasks[3 * i + 1], tasks[3 * i + 2]);
		while (s.top != s.base) /* one node per iteration */
			pm_step(&s, &sum);
		partial[i] = sum;
		i = atomicAdd(&pm_next, 1ull);
	}
}
