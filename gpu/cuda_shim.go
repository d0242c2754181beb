//go:build cuda

package gpu

// The CUDA driver is not linked: cudashim.c defines every cu* function the
// binding github.com/mumax/3/cuda/cu and this package call, and opens
// libcuda.so.1 with dlopen on first use, so a binary built with -tags cuda
// starts on machines without the NVIDIA driver and reports the missing
// driver as an error (see Devices). The -L below puts cudashim/, whose
// libcuda.a is an empty archive, first in the library search path: the
// binding's -lcuda resolves to nothing and the binary has no DT_NEEDED
// entry for libcuda.so.1. -I${SRCDIR}/cudacompat comes first so that
// #include <cuda.h> pins every driver function to CUDA 11.8's symbol and
// prototype. docs/gpu.md ("Linking without libcuda") says why each works.

// #cgo CFLAGS: -I${SRCDIR}/cudacompat -I/usr/local/cuda/include
// #cgo LDFLAGS: -L${SRCDIR}/cudashim -ldl
// #include <stdlib.h>
// #include <cuda.h>
// #include "cudashim.h"
//
// // nq_module_load JIT-compiles a PTX image (NUL-terminated) into a module,
// // keeping the JIT's error log.
// static CUresult nq_module_load(CUmodule *mod, const char *image, char *log, size_t logSize) {
// 	CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
// 	void *vals[2] = {log, (void *)logSize};
// 	return cuModuleLoadDataEx(mod, image, 2, opts, vals);
// }
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/mumax/3/cuda/cu"
)

// ctxSchedBlockingSync makes cuCtxSynchronize sleep instead of spinning, so
// that waiting for a long kernel leaves the CPU to the CPU workers.
const ctxSchedBlockingSync = uint(C.CU_CTX_SCHED_BLOCKING_SYNC)

// driverError returns nil when the driver library is open, or why it could
// not be opened (ErrNoDriver with the loader's message).
func driverError() error {
	if msg := C.nqshim_load(); msg != nil {
		return fmt.Errorf("%w (%s)", ErrNoDriver, C.GoString(msg))
	}
	return nil
}

// driverPath is the file the driver library was loaded from, or "".
func driverPath() string {
	if p := C.nqshim_libpath(); p != nil {
		return C.GoString(p)
	}
	return ""
}

// resultText describes a driver status with the driver's own name and
// message for it, which know every code (the binding's table does not).
func resultText(r cu.Result) string {
	var name, msg *C.char
	if driverError() == nil && C.cuGetErrorName(C.CUresult(r), &name) == C.CUDA_SUCCESS && name != nil {
		s := C.GoString(name)
		if C.cuGetErrorString(C.CUresult(r), &msg) == C.CUDA_SUCCESS && msg != nil {
			s += ": " + C.GoString(msg)
		}
		return s
	}
	return fmt.Sprintf("%v (%d)", r, int(r))
}

// loadModule JIT-compiles ptx into a module of the current context. It
// panics with an *Error carrying the JIT's log when that fails. It is
// cu.ModuleLoadData with the error log added (and the C copy of the image
// freed): a PTX that the driver rejects is otherwise only "invalid PTX".
func loadModule(name, ptx string) cu.Module {
	image := C.CString(ptx)
	defer C.free(unsafe.Pointer(image))
	const logSize = 16 << 10
	log := (*C.char)(C.calloc(logSize, 1))
	defer C.free(unsafe.Pointer(log))
	var mod C.CUmodule
	if r := cu.Result(C.nq_module_load(&mod, image, log, logSize)); r != cu.SUCCESS {
		panic(&Error{Op: "load module " + name + ": cuModuleLoadDataEx", Code: r, Detail: C.GoString(log)})
	}
	notNull("load module "+name+": cuModuleLoadDataEx", uintptr(unsafe.Pointer(mod)))
	return cu.Module(uintptr(unsafe.Pointer(mod)))
}

// moduleFunction looks a kernel up in a module without panicking: ok is
// false when the module has no kernel of that name.
func moduleFunction(mod cu.Module, name string) (f cu.Function, ok bool) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var fn C.CUfunction
	// A cu.Module holds the CUmodule handle's bits; read them back as one.
	cmod := *(*C.CUmodule)(unsafe.Pointer(&mod))
	r := cu.Result(C.cuModuleGetFunction(&fn, cmod, cname))
	switch r {
	case cu.SUCCESS:
		return cu.Function(uintptr(unsafe.Pointer(fn))), true
	case cu.ERROR_NOT_FOUND:
		return 0, false
	}
	panic(&Error{Op: "cuModuleGetFunction " + name, Code: r})
}
