/*
 * nqreduce.cuh: the block reduction every kernel ends with, and the
 * kernels' naming macro (CUDA only). Include it after nqsearch.h.
 */
#ifndef NQREDUCE_CUH
#define NQREDUCE_CUH

/*
 * NQ_KERNEL(name) is the name of a kernel: define every kernel as
 * extern "C" __global__ void NQ_KERNEL(name)(...). make ptx compiles each
 * kernels/NAME.cu twice: into NAME.ptx as it is, and with -DNQ_NODES=1
 * into NAME_nodes.ptx, where the searches also count their nodes and every
 * kernel is called name_nodes (the -gpu-nodes twins; same arguments).
 */
#ifndef NQ_KERNEL
#if NQ_NODES
#define NQ_KERNEL(name) name##_nodes
#else
#define NQ_KERNEL(name) name
#endif
#endif

/* nq_warp_sum returns, in lane 0, the sum of v over the warp. */
static __device__ __forceinline__ unsigned long long nq_warp_sum(unsigned long long v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

/*
 * nq_block_add3 sums three per-thread counters over the block and adds the
 * sums to out[0..2] with one atomicAdd each (none for a zero sum). Every
 * thread of the block must call it, once; blockDim.x must be a multiple of
 * 32 and at most 1024. Each warp sums by shuffles, lane 0 of each warp
 * leaves its sums in shared memory, and warp 0 sums those.
 *
 * It is not static on purpose: nvcc names the shared array of a function
 * with internal linkage after a hash of the build directory
 * (_ZZN39_INTERNAL_<hash>_...), which would make the committed PTX differ
 * from one checkout to the next. Each .cu is its own module, so the
 * external name clashes with nothing.
 */
__device__ __forceinline__ void nq_block_add3(unsigned long long a, unsigned long long b,
						     unsigned long long c, unsigned long long *out)
{
	__shared__ unsigned long long part[3][32];
	const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	a = nq_warp_sum(a);
	b = nq_warp_sum(b);
	c = nq_warp_sum(c);
	if (lane == 0) {
		part[0][warp] = a;
		part[1][warp] = b;
		part[2][warp] = c;
	}
	__syncthreads();
	if (warp != 0)
		return;
	const unsigned warps = blockDim.x >> 5;
	a = nq_warp_sum(lane < warps ? part[0][lane] : 0);
	b = nq_warp_sum(lane < warps ? part[1][lane] : 0);
	c = nq_warp_sum(lane < warps ? part[2][lane] : 0);
	if (lane == 0) {
		if (a)
			atomicAdd(&out[0], a);
		if (b)
			atomicAdd(&out[1], b);
		if (c)
			atomicAdd(&out[2], c);
	}
}

/*
 * nq_block_add_counts sums the thread's counters over the block and adds
 * them to out: c2, c4 and c8 to out[0..2], and with NQ_NODES the nodes to
 * out[3]. Every thread of the block calls it once, at the end.
 */
static __device__ __forceinline__ void nq_block_add_counts(const nq_counts *k, unsigned long long *out)
{
	nq_block_add3(k->c2, k->c4, k->c8, out);
	if (NQ_NODES) {
		__syncthreads(); /* the shared sums of nq_block_add3 are reused */
		nq_block_add3(k->nodes, 0, 0, out + 3);
	}
}

/*
 * nq_warp_add1 sums one per-thread counter over the warp and adds the sum
 * to *out with one atomicAdd (none for a zero sum): no shared memory, for
 * kernels whose shared memory bounds the warps per SM. Every thread of
 * the warp calls it, once; blockDim.x a multiple of 32.
 */
static __device__ __forceinline__ void nq_warp_add1(unsigned long long v, unsigned long long *out)
{
	v = nq_warp_sum(v);
	if ((threadIdx.x & 31) == 0 && v)
		atomicAdd(out, v);
}

#endif /* NQREDUCE_CUH */
