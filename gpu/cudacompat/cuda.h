/*
 * gpu/cudacompat/cuda.h: the installed cuda.h, with every CUDA driver
 * function that nqueens-gpu and the binding github.com/mumax/3/cuda/cu call
 * pinned to the symbol and the prototype that CUDA 11.8's cuda.h gives it:
 * the ABI the Go code and gpu/cudashim.c were written against (issue 23).
 *
 * Why: cuda.h maps many names to versioned symbols (cuCtxCreate ->
 * cuCtxCreate_v2 since CUDA 3.2), and a new toolkit may re-point a name to a
 * newer symbol with another signature. CUDA 13.0 did so for cuCtxCreate
 * (cuCtxCreate_v4, which takes a CUctxCreateParams * as well) and no longer
 * declares cuCtxCreate_v2, so the binding's three-argument C.cuCtxCreate
 * and cudashim.c's trampoline stop compiling. The driver library keeps
 * exporting the older symbols for programs built with older toolkits, so a
 * binary built through this file calls what a binary built with CUDA 11.8
 * calls, whichever toolkit's header it was compiled with.
 *
 * How: this folder comes before the toolkit's in the include path (the
 * Makefile puts -I.../gpu/cudacompat first in CGO_CFLAGS, which reaches the
 * binding's package too; the gpu package also names it in its #cgo CFLAGS),
 * so #include <cuda.h> finds this file. It includes the real cuda.h with
 * #include_next (GCC and clang), then, for each function below, drops the
 * header's macro for the name, maps the name to the 11.8 symbol (where 11.8
 * maps it) and declares that symbol with 11.8's prototype. A header that
 * still declares the symbol declares it the same way, so the repeated
 * declaration is harmless; one that no longer does (13.x: cuCtxCreate_v2)
 * gets its declaration from here. gpu/cudashim.c defines each function under
 * the mapped name and looks that name up in the driver with dlsym, so the
 * definition, the callers and the lookup agree.
 *
 * A new cu* function in the gpu package or a new trampoline in cudashim.c
 * needs its lines here (TestCudaCompatPinsShim in gpu/cudacompat_test.go
 * fails otherwise), with the symbol and prototype of 11.8's cuda.h. Types,
 * enums and constants come from the installed header unchanged.
 */
#ifndef NQUEENS_CUDACOMPAT_CUDA_H
#define NQUEENS_CUDACOMPAT_CUDA_H

#include_next <cuda.h>

#ifndef CUDA_VERSION
#error "gpu/cudacompat/cuda.h: the cuda.h after this folder in the include path defines no CUDA_VERSION"
#endif

/* Initialization, version, errors. */
#undef cuInit
CUresult CUDAAPI cuInit(unsigned int Flags);
#undef cuDriverGetVersion
CUresult CUDAAPI cuDriverGetVersion(int *driverVersion);
#undef cuGetErrorName
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr);
#undef cuGetErrorString
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr);

/* Devices. */
#undef cuDeviceGet
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal);
#undef cuDeviceGetCount
CUresult CUDAAPI cuDeviceGetCount(int *count);
#undef cuDeviceGetName
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev);
#undef cuDeviceGetAttribute
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev);
#undef cuDeviceTotalMem
#define cuDeviceTotalMem cuDeviceTotalMem_v2
CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev);
#undef cuDeviceCanAccessPeer
CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev);

/* Contexts. */
#undef cuCtxCreate
#define cuCtxCreate cuCtxCreate_v2
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
#undef cuCtxDestroy
#define cuCtxDestroy cuCtxDestroy_v2
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx);
#undef cuCtxGetApiVersion
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version);
#undef cuCtxGetCurrent
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx);
#undef cuCtxSetCurrent
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx);
#undef cuCtxGetDevice
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device);
#undef cuCtxSynchronize
CUresult CUDAAPI cuCtxSynchronize(void);
#undef cuCtxEnablePeerAccess
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags);
#undef cuCtxDisablePeerAccess
CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext);

/* Modules, functions, launches. */
#undef cuModuleLoad
CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname);
#undef cuModuleLoadData
CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image);
#undef cuModuleLoadDataEx
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                    CUjit_option *options, void **optionValues);
#undef cuModuleUnload
CUresult CUDAAPI cuModuleUnload(CUmodule hmod);
#undef cuModuleGetFunction
CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
#undef cuFuncGetAttribute
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc);
#undef cuLaunchKernel
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra);
/* The dynamic shared memory opt-in and the occupancy query. */
#undef cuFuncSetAttribute
CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value);
#undef cuOccupancyMaxActiveBlocksPerMultiprocessor
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                             size_t dynamicSMemSize);

/* Streams. */
#undef cuStreamCreate
CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags);
#undef cuStreamDestroy
#define cuStreamDestroy cuStreamDestroy_v2
CUresult CUDAAPI cuStreamDestroy(CUstream hStream);
#undef cuStreamQuery
CUresult CUDAAPI cuStreamQuery(CUstream hStream);
#undef cuStreamSynchronize
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream);

/* Memory. */
#undef cuMemGetInfo
#define cuMemGetInfo cuMemGetInfo_v2
CUresult CUDAAPI cuMemGetInfo(size_t *free, size_t *total);
#undef cuMemAlloc
#define cuMemAlloc cuMemAlloc_v2
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
#undef cuMemFree
#define cuMemFree cuMemFree_v2
CUresult CUDAAPI cuMemFree(CUdeviceptr dptr);
#undef cuMemAllocHost
#define cuMemAllocHost cuMemAllocHost_v2
CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize);
#undef cuMemFreeHost
CUresult CUDAAPI cuMemFreeHost(void *p);
#undef cuMemHostRegister
#define cuMemHostRegister cuMemHostRegister_v2
CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
#undef cuMemHostUnregister
CUresult CUDAAPI cuMemHostUnregister(void *p);
#undef cuMemGetAddressRange
#define cuMemGetAddressRange cuMemGetAddressRange_v2
CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
#undef cuPointerGetAttribute
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr);

/* Copies and sets (the legacy default stream: per-thread _ptds/_ptsz
   variants, which CUDA_API_PER_THREAD_DEFAULT_STREAM would select, are
   not used). */
#undef cuMemcpy
CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
#undef cuMemcpyAsync
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
#undef cuMemcpyHtoD
#define cuMemcpyHtoD cuMemcpyHtoD_v2
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
#undef cuMemcpyHtoDAsync
#define cuMemcpyHtoDAsync cuMemcpyHtoDAsync_v2
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                   CUstream hStream);
#undef cuMemcpyDtoH
#define cuMemcpyDtoH cuMemcpyDtoH_v2
CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
#undef cuMemcpyDtoHAsync
#define cuMemcpyDtoHAsync cuMemcpyDtoHAsync_v2
CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
#undef cuMemcpyDtoD
#define cuMemcpyDtoD cuMemcpyDtoD_v2
CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
#undef cuMemcpyDtoDAsync
#define cuMemcpyDtoDAsync cuMemcpyDtoDAsync_v2
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream);
#undef cuMemcpyPeer
CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                              CUcontext srcContext, size_t ByteCount);
#undef cuMemcpyPeerAsync
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                   CUcontext srcContext, size_t ByteCount, CUstream hStream);
#undef cuMemsetD8
#define cuMemsetD8 cuMemsetD8_v2
CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N);
#undef cuMemsetD8Async
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
#undef cuMemsetD32
#define cuMemsetD32 cuMemsetD32_v2
CUresult CUDAAPI cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N);
#undef cuMemsetD32Async
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);

#endif /* NQUEENS_CUDACOMPAT_CUDA_H */
