//go:build cuda

// cudashim.c defines every CUDA driver API function that the binding
// github.com/mumax/3/cuda/cu (and this package) calls, under the symbol
// names gpu/cudacompat/cuda.h pins them to (CUDA 11.8's), as trampolines
// into the driver library, which is opened with dlopen on first use: the
// binary needs no libcuda.so.1 to start (docs/gpu.md, "Linking without
// libcuda"). A function added here needs its line in cudacompat/cuda.h.
//
// When the library cannot be opened, cuInit returns CUDA_ERROR_NO_DEVICE and
// every other function CUDA_ERROR_NOT_INITIALIZED; nqshim_load tells why.
// A function the installed driver lacks returns CUDA_ERROR_NOT_FOUND.
// NQUEENS_LIBCUDA names another file to open instead of libcuda.so.1;
// without it the loader's search path is tried, then the usual driver
// folders (nqshim_places).

#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudashim.h"

static void *nqshim_lib;
static char nqshim_err[512];
static pthread_once_t nqshim_once = PTHREAD_ONCE_INIT;

// Where drivers live when the loader's search path does not name them:
// container runtimes mount the driver under /usr/local/nvidia, some
// distributions use lib64, WSL its own folder. Never a CUDA toolkit's
// stubs/ folder: its libcuda only returns errors.
static const char *const nqshim_places[] = {
    "/usr/local/nvidia/lib64/libcuda.so.1",
    "/usr/local/nvidia/lib/libcuda.so.1",
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    "/usr/lib64/libcuda.so.1",
    "/usr/lib/wsl/lib/libcuda.so.1",
};

static void nqshim_open(void) {
	const char *name = getenv("NQUEENS_LIBCUDA");
	int named = name != NULL && name[0] != '\0';
	if (!named) {
		name = "libcuda.so.1";
	}
	nqshim_lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (nqshim_lib != NULL) {
		return;
	}
	// Keep the loader's first answer: it is the one that explains.
	const char *e = dlerror();
	snprintf(nqshim_err, sizeof nqshim_err, "%s", e != NULL ? e : "dlopen failed");
	if (named) {
		return;
	}
	for (size_t i = 0; i < sizeof nqshim_places / sizeof nqshim_places[0]; i++) {
		nqshim_lib = dlopen(nqshim_places[i], RTLD_NOW | RTLD_LOCAL);
		if (nqshim_lib != NULL) {
			return;
		}
	}
}

const char *nqshim_load(void) {
	pthread_once(&nqshim_once, nqshim_open);
	return nqshim_lib != NULL ? NULL : nqshim_err;
}

const char *nqshim_libpath(void) {
	struct link_map *lm = NULL;
	if (nqshim_load() != NULL || dlinfo(nqshim_lib, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
		return NULL;
	}
	return lm->l_name;
}

#define NQSHIM_STR2(x) #x
#define NQSHIM_STR(x) NQSHIM_STR2(x)

// NQSHIM(nolib, name, params, args) defines CUresult name params: it
// returns nolib when the driver library is missing and otherwise calls the
// driver's function of the same (cuda.h-mapped) name, looked up once. name is
// macro-expanded before use, so the definition and the dlsym string both get
// the versioned name. The locals carry a prefix so that no parameter name
// (cuLaunchKernel has one called f) can shadow them.
#define NQSHIM(nolib, name, params, args)                                          \
	CUresult CUDAAPI name params {                                             \
		static CUresult(CUDAAPI * nqshim_cached) params;                   \
		CUresult(CUDAAPI * nqshim_fn) params =                             \
		    __atomic_load_n(&nqshim_cached, __ATOMIC_ACQUIRE);             \
		if (nqshim_fn == NULL) {                                           \
			if (nqshim_load() != NULL) {                               \
				return nolib;                                      \
			}                                                          \
			*(void **)(&nqshim_fn) = dlsym(nqshim_lib, NQSHIM_STR(name)); \
			if (nqshim_fn == NULL) {                                   \
				return CUDA_ERROR_NOT_FOUND;                       \
			}                                                          \
			__atomic_store_n(&nqshim_cached, nqshim_fn, __ATOMIC_RELEASE); \
		}                                                                  \
		return nqshim_fn args;                                             \
	}

#define NQ(name, params, args) NQSHIM(CUDA_ERROR_NOT_INITIALIZED, name, params, args)

NQSHIM(CUDA_ERROR_NO_DEVICE, cuInit, (unsigned int Flags), (Flags))
NQ(cuDriverGetVersion, (int *driverVersion), (driverVersion))
NQ(cuGetErrorName, (CUresult error, const char **pStr), (error, pStr))
NQ(cuGetErrorString, (CUresult error, const char **pStr), (error, pStr))

NQ(cuDeviceGet, (CUdevice *device, int ordinal), (device, ordinal))
NQ(cuDeviceGetCount, (int *count), (count))
NQ(cuDeviceGetName, (char *name, int len, CUdevice dev), (name, len, dev))
NQ(cuDeviceGetAttribute, (int *pi, CUdevice_attribute attrib, CUdevice dev), (pi, attrib, dev))
NQ(cuDeviceTotalMem, (size_t *bytes, CUdevice dev), (bytes, dev))
NQ(cuDeviceCanAccessPeer, (int *canAccessPeer, CUdevice dev, CUdevice peerDev), (canAccessPeer, dev, peerDev))

NQ(cuCtxCreate, (CUcontext *pctx, unsigned int flags, CUdevice dev), (pctx, flags, dev))
NQ(cuCtxDestroy, (CUcontext ctx), (ctx))
NQ(cuCtxGetApiVersion, (CUcontext ctx, unsigned int *version), (ctx, version))
NQ(cuCtxGetCurrent, (CUcontext *pctx), (pctx))
NQ(cuCtxSetCurrent, (CUcontext ctx), (ctx))
NQ(cuCtxGetDevice, (CUdevice *device), (device))
NQ(cuCtxSynchronize, (void), ())
NQ(cuCtxEnablePeerAccess, (CUcontext peerContext, unsigned int Flags), (peerContext, Flags))
NQ(cuCtxDisablePeerAccess, (CUcontext peerContext), (peerContext))

NQ(cuModuleLoad, (CUmodule *module, const char *fname), (module, fname))
NQ(cuModuleLoadData, (CUmodule *module, const void *image), (module, image))
NQ(cuModuleLoadDataEx,
   (CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options, void **optionValues),
   (module, image, numOptions, options, optionValues))
NQ(cuModuleUnload, (CUmodule hmod), (hmod))
NQ(cuModuleGetFunction, (CUfunction *hfunc, CUmodule hmod, const char *name), (hfunc, hmod, name))
NQ(cuFuncGetAttribute, (int *pi, CUfunction_attribute attrib, CUfunction hfunc), (pi, attrib, hfunc))
NQ(cuLaunchKernel,
   (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
    unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
    unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra),
   (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
    kernelParams, extra))

NQ(cuStreamCreate, (CUstream *phStream, unsigned int Flags), (phStream, Flags))
NQ(cuStreamDestroy, (CUstream hStream), (hStream))
NQ(cuStreamQuery, (CUstream hStream), (hStream))
NQ(cuStreamSynchronize, (CUstream hStream), (hStream))

NQ(cuMemGetInfo, (size_t *free, size_t *total), (free, total))
NQ(cuMemAlloc, (CUdeviceptr *dptr, size_t bytesize), (dptr, bytesize))
NQ(cuMemFree, (CUdeviceptr dptr), (dptr))
NQ(cuMemAllocHost, (void **pp, size_t bytesize), (pp, bytesize))
NQ(cuMemFreeHost, (void *p), (p))
NQ(cuMemHostRegister, (void *p, size_t bytesize, unsigned int Flags), (p, bytesize, Flags))
NQ(cuMemHostUnregister, (void *p), (p))
NQ(cuMemGetAddressRange, (CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr), (pbase, psize, dptr))
NQ(cuPointerGetAttribute, (void *data, CUpointer_attribute attribute, CUdeviceptr ptr), (data, attribute, ptr))

NQ(cuMemcpy, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount), (dst, src, ByteCount))
NQ(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream),
   (dst, src, ByteCount, hStream))
NQ(cuMemcpyHtoD, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount),
   (dstDevice, srcHost, ByteCount))
NQ(cuMemcpyHtoDAsync, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream),
   (dstDevice, srcHost, ByteCount, hStream))
NQ(cuMemcpyDtoH, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount), (dstHost, srcDevice, ByteCount))
NQ(cuMemcpyDtoHAsync, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream),
   (dstHost, srcDevice, ByteCount, hStream))
NQ(cuMemcpyDtoD, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount),
   (dstDevice, srcDevice, ByteCount))
NQ(cuMemcpyDtoDAsync, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream),
   (dstDevice, srcDevice, ByteCount, hStream))
NQ(cuMemcpyPeer,
   (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount),
   (dstDevice, dstContext, srcDevice, srcContext, ByteCount))
NQ(cuMemcpyPeerAsync,
   (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount,
    CUstream hStream),
   (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream))
NQ(cuMemsetD8, (CUdeviceptr dstDevice, unsigned char uc, size_t N), (dstDevice, uc, N))
NQ(cuMemsetD8Async, (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream),
   (dstDevice, uc, N, hStream))
NQ(cuMemsetD32, (CUdeviceptr dstDevice, unsigned int ui, size_t N), (dstDevice, ui, N))
NQ(cuMemsetD32Async, (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream),
   (dstDevice, ui, N, hStream))
NQ(cuFuncSetAttribute, (CUfunction hfunc, CUfunction_attribute attrib, int value), (hfunc, attrib, value))
NQ(cuOccupancyMaxActiveBlocksPerMultiprocessor,
   (int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize),
   (numBlocks, func, blockSize, dynamicSMemSize))
