/*
 * gpu/cudacompat/cuda.h: the installed cuda.h, with every CUDA driver
 * function that nqueens-gpu and the binding github.com/mumax/3/cuda/cu call
 * pinned to the symbol and prototype CUDA 11.8's cuda.h gives it, whatever
 * toolkit's header it wraps (CUDA 13.x maps cuCtxCreate to cuCtxCreate_v4
 * and no longer declares cuCtxCreate_v2). It comes first in the include
 * path, includes the real cuda.h with #include_next, then for each function
 * below drops the header's macro, maps the name to the 11.8 symbol and
 * declares that symbol with 11.8's prototype; the driver library keeps
 * exporting the older symbols. docs/gpu.md ("CUDA 12.x and 13.x") has the
 * details. A new cu* function in the gpu package or cudashim.c needs its
 * lines here (TestCudaCompatPinsShim fails otherwise).
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
