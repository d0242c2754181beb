#!/bin/sh
# cuda13-standin.sh DIR: a stand-in for a CUDA 13.x toolkit, made from the
# installed CUDA 11.8 (Debian's: /usr/include/cuda.h and /usr/bin/nvcc), for
# checking on a machine without CUDA 13 that the build copes with the two
# changes of 13.x that break it (issue 23). It writes
#
#   DIR/include/cuda.h  the 11.8 header plus CUDA 13.x's changes to the
#                       driver declarations: cuCtxCreate maps to
#                       cuCtxCreate_v4(CUcontext *, CUctxCreateParams *,
#                       unsigned int, CUdevice), cuCtxCreate_v2 is no longer
#                       declared, cuMemAdvise and cuMemPrefetchAsync map to
#                       their _v2 (CUmemLocation) forms, CUDA_VERSION is 13000
#   DIR/bin/nvcc        says "release 13.0" and, as nvcc 13 does, refuses
#                       every target below compute_75/sm_75; anything else
#                       goes to the real nvcc
#
# Use: CGO_CFLAGS=-IDIR/include PATH=DIR/bin:$PATH make ... (.ci/run does).
# The header is a model of the changes that matter here, not NVIDIA's file:
# CUctxCreateParams in particular is a stand-in with the same role.
set -eu

[ $# = 1 ] || { echo "usage: scripts/cuda13-standin.sh DIR" >&2; exit 2; }
dir=$1
real_h=${CUDA_STANDIN_HEADER:-/usr/include/cuda.h}
real_nvcc=${CUDA_STANDIN_NVCC:-$(command -v nvcc || echo /usr/bin/nvcc)}
[ -f "$real_h" ] || { echo "cuda13-standin.sh: no $real_h (make cuda-deps)" >&2; exit 1; }
mkdir -p "$dir/include" "$dir/bin"

cat >"$dir/include/cuda.h" <<HDR
/* Stand-in for CUDA 13.x's cuda.h (scripts/cuda13-standin.sh). */
#ifndef NQ_CUDA13_STANDIN_H
#define NQ_CUDA13_STANDIN_H

/* 13.x declares no cuCtxCreate_v2: the 11.8 header's declaration of it
   (cuCtxCreate -> cuCtxCreate_v2) is renamed out of the way. */
#define cuCtxCreate_v2 nq_standin_undeclared_cuCtxCreate_v2
#include "$real_h"
#undef cuCtxCreate_v2

#undef CUDA_VERSION
#define CUDA_VERSION 13000

typedef struct CUctxCreateParams_st {
	CUexecAffinityParam *execAffinityParams;
	int numExecAffinityParams;
	void *cigParams;
} CUctxCreateParams;

#undef cuCtxCreate
#define cuCtxCreate cuCtxCreate_v4
CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);

#undef cuMemAdvise
#define cuMemAdvise cuMemAdvise_v2
CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location);

#undef cuMemPrefetchAsync
#define cuMemPrefetchAsync cuMemPrefetchAsync_v2
CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream);

#endif
HDR

cat >"$dir/bin/nvcc" <<NVCC
#!/bin/sh
# Stand-in for nvcc 13.0 (scripts/cuda13-standin.sh): the real one is $real_nvcc.
for a in "\$@"; do
	case \$a in
	--version | -V)
		echo "nvcc: NVIDIA (R) Cuda compiler driver (stand-in for 13.0 around $real_nvcc)"
		echo "Cuda compilation tools, release 13.0, V13.0.0"
		echo "Build cuda_13.0.r13.0/compiler.standin_0"
		exit 0
		;;
	esac
	# nvcc 13 dropped offline compilation and PTX for targets below 7.5.
	for arch in \$(printf '%s\n' "\$a" | grep -oE '(compute|sm)_[0-9]+'); do
		if [ "\${arch#*_}" -lt 75 ]; then
			echo "nvcc fatal   : Unsupported gpu architecture '\$arch'" >&2
			exit 1
		fi
	done
done
exec "$real_nvcc" "\$@"
NVCC
chmod +x "$dir/bin/nvcc"
echo "cuda13-standin.sh: $dir/include/cuda.h (CUDA_VERSION 13000) and $dir/bin/nvcc (release 13.0, around $real_nvcc)"
