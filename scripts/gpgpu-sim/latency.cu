/*
 * latency.cu: the latencies and pipe rates of GPGPU-Sim that the
 * latency-aware model of nq_eightfold uses (scripts/warpsim latency;
 * docs/performance.md, "A model that sees latency"). Each kernel is one
 * measurement, a chain_* kernel one warp's dependent chain of an operation
 * (its latency), a rate_* kernel 32 warps' independent chains (the pipe's
 * issue rate); the simulator prints each launch's gpu_sim_cycle, and
 * latency.sh turns them into cycles per operation against the empty
 * launch. Built with nvcc -arch=sm_70 -cudart shared, run on the
 * simulator's runtime API (../shared/tools/gpgpu-sim). Not part of the
 * product.
 */
#include <cstdio>

#define R4(x) x x x x
#define R16(x) R4(R4(x))
#define R64(x) R4(R16(x))
#define R256(x) R16(R16(x))

__global__ void empty(unsigned *out) { out[threadIdx.x] = 1; }

__global__ void chain_xor(unsigned *out, unsigned k)
{
	unsigned a = k + threadIdx.x;
	asm volatile(R4(R256("xor.b32 %0, %0, %1;\n\t")) : "+r"(a) : "r"(k));
	out[threadIdx.x] = a;
}

__global__ void chain_add(unsigned *out, unsigned k)
{
	unsigned a = k + threadIdx.x;
	asm volatile(R4(R256("add.u32 %0, %0, %1;\n\t")) : "+r"(a) : "r"(k));
	out[threadIdx.x] = a;
}

/* The loaded word is 0, so the address stays put; the add waits for it. */
__global__ void chain_lds(unsigned *out, unsigned k)
{
	__shared__ uint4 s[32];
	s[threadIdx.x] = make_uint4(0, 1, 2, 3);
	unsigned p = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]), x = 0, y = 0, z = 0, w = 0;
	asm volatile(R256("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n\tadd.u32 %4, %4, %0;\n\t")
		     : "+r"(x), "+r"(y), "+r"(z), "+r"(w), "+r"(p));
	out[threadIdx.x] = x ^ y ^ z ^ w ^ p;
}

/* The load's predicate is off in every lane (k != 12345); the xor reads
 * the load's destination all the same. */
__global__ void chain_ldsoff(unsigned *out, unsigned k)
{
	__shared__ uint4 s[32];
	s[threadIdx.x] = make_uint4(0, 1, 2, 3);
	unsigned p = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]), x = 0, y = 0, z = 0, w = 0;
	asm volatile("{\n\t.reg .pred q;\n\tsetp.eq.u32 q, %5, 12345;\n\t"
		     R256("@q ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n\txor.b32 %0, %0, %5;\n\t") "}"
		     : "+r"(x), "+r"(y), "+r"(z), "+r"(w)
		     : "r"(p), "r"(k));
	out[threadIdx.x] = x ^ y ^ z ^ w;
}

/* The next address depends on the atomic's result (and-ed to 0). */
__global__ void chain_atom(unsigned *out, unsigned k)
{
	unsigned long long p = (unsigned long long)out, t = 0;
	unsigned r = k;
	asm volatile(R64("atom.global.add.u32 %1, [%0], 1;\n\tand.b32 %1, %1, 0;\n\tcvt.u64.u32 %2, %1;\n\tadd.s64 %0, %0, %2;\n\t")
		     : "+l"(p), "+r"(r), "+l"(t));
	out[1] = (unsigned)p;
}

/* A pointer chase through words that hold 0, one 128-byte line apart:
 * each load misses L1. */
__global__ void chain_ldg(unsigned *out, unsigned k)
{
	unsigned long long p = (unsigned long long)(out + 256 + threadIdx.x), t = 0;
	unsigned r = k;
	asm volatile(R64("ld.global.nc.u32 %1, [%0];\n\tcvt.u64.u32 %2, %1;\n\tadd.s64 %0, %0, %2;\n\tadd.s64 %0, %0, 128;\n\t")
		     : "+l"(p), "+r"(r), "+l"(t));
	out[threadIdx.x] = (unsigned)p;
}

/* RATE(name, op): four independent chains of op a warp; run with 8 warps
 * a scheduler, the kernel's time is the rate at which a scheduler takes
 * that instruction. */
#define RATE(name, op)                                                                                       \
	__global__ void name(unsigned *out, unsigned k)                                                      \
	{                                                                                                    \
		unsigned a = k, b = k + 1, c = k + 2, d = k + 3;                                             \
		asm volatile(R256(op " %0, %0, %4;\n\t" op " %1, %1, %4;\n\t" op " %2, %2, %4;\n\t" op \
				  " %3, %3, %4;\n\t")                                                      \
			     : "+r"(a), "+r"(b), "+r"(c), "+r"(d)                                          \
			     : "r"(k));                                                                    \
		out[threadIdx.x] = a ^ b ^ c ^ d;                                                            \
	}
RATE(rate_xor, "xor.b32")
RATE(rate_add, "add.u32")

__global__ void rate_atom(unsigned *out)
{
	unsigned v = atomicAdd(out, 1u);
	out[1 + (v & 1023)] = v;
}

int main()
{
	unsigned *d;
	if (cudaMalloc(&d, 1 << 20) != cudaSuccess || cudaMemset(d, 0, 1 << 20) != cudaSuccess) {
		fprintf(stderr, "latency: no memory\n");
		return 1;
	}
	empty<<<1, 32>>>(d);
	chain_xor<<<1, 32>>>(d, 7);
	chain_add<<<1, 32>>>(d, 7);
	chain_lds<<<1, 32>>>(d, 7);
	chain_ldsoff<<<1, 32>>>(d, 7);
	chain_atom<<<1, 1>>>(d, 7);
	chain_ldg<<<1, 32>>>(d, 7);
	rate_xor<<<1, 1024>>>(d, 7);
	rate_add<<<1, 1024>>>(d, 7);
	empty<<<32, 1024>>>(d);
	rate_atom<<<32, 1024>>>(d);
	if (cudaDeviceSynchronize() != cudaSuccess) {
		fprintf(stderr, "latency: a kernel failed\n");
		return 1;
	}
	printf("latency: done\n");
	return 0;
}
