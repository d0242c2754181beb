//go:build cuda

package gpu

// The driver calls of a count beyond the cu binding, and the checks that
// make every failed call, and every call that "succeeds" with nothing
// (a stub of the driver API, such as a simulator's), an *Error that names
// the call.

// #include <cuda.h>
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/mumax/3/cuda/cu"
)

// named runs f, one call of the cu binding, and turns the binding's panic
// with the driver's status into an *Error whose Op is call (the driver
// function's name). Other panics go on.
func named(call string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			if code, ok := r.(cu.Result); ok {
				panic(&Error{Op: call, Code: code})
			}
			panic(r)
		}
	}()
	f()
}

// check panics with an *Error naming call unless the driver's status r is
// success.
func check(call string, r C.CUresult) {
	if r != C.CUDA_SUCCESS {
		panic(&Error{Op: call, Code: cu.Result(r)})
	}
}

// nullHandle is the detail of an *Error for a call that succeeded and
// gave no handle.
const nullHandle = "returned success and a null handle (a stub, not a driver: " +
	"the library NQUEENS_LIBCUDA or the loader found does not implement it)"

// notNull panics with an *Error naming call when the handle or pointer
// it returned is zero.
func notNull[T ~uintptr | ~uint64](call string, h T) {
	if h == 0 {
		panic(&Error{Op: call, Detail: nullHandle})
	}
}

// notNil is notNull for a host pointer.
func notNil(call string, p unsafe.Pointer) {
	if p == nil {
		panic(&Error{Op: call, Detail: nullHandle})
	}
}

// cfunc is f as the driver's handle (a cu.Function holds its bits).
func cfunc(f cu.Function) C.CUfunction { return *(*C.CUfunction)(unsafe.Pointer(&f)) }

// funcAttribute is cuFuncGetAttribute.
func funcAttribute(f cu.Function, attr C.CUfunction_attribute) int {
	var v C.int
	check("cuFuncGetAttribute", C.cuFuncGetAttribute(&v, attr, cfunc(f)))
	return int(v)
}

// sharedShapeOf is the shared memory of f's launches on the context's GPU:
// its static shared memory and the most a block may have with the opt-in.
func (c *Context) sharedShapeOf(f cu.Function) sharedShape {
	sh := sharedShape{static: funcAttribute(f, C.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)}
	var v C.int
	check("cuDeviceGetAttribute", C.cuDeviceGetAttribute(&v, C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, C.CUdevice(c.ordinal)))
	sh.limit = max(int(v), MaxSharedStack)
	return sh
}

// allowShared lets f's blocks have dynamic bytes of dynamic shared memory
// where that needs the opt-in.
func allowShared(f cu.Function, sh sharedShape, dynamic int) {
	if sh.needsOptIn(dynamic) {
		check("cuFuncSetAttribute", C.cuFuncSetAttribute(cfunc(f), C.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, C.int(dynamic)))
	}
}

// residentBlocks is the number of blocks of threads threads and dynamic
// bytes of dynamic shared memory that the GPU's sms SMs keep resident at
// once (the driver's occupancy calculator), at least 1.
func residentBlocks(f cu.Function, threads, dynamic, sms int) int {
	var v C.int
	check("cuOccupancyMaxActiveBlocksPerMultiprocessor",
		C.cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, cfunc(f), C.int(threads), C.size_t(dynamic)))
	if v <= 0 {
		panic(&Error{Op: "cuOccupancyMaxActiveBlocksPerMultiprocessor", Detail: fmt.Sprintf(
			"no block of %d threads with %d bytes of dynamic shared memory fits on an SM", threads, dynamic)})
	}
	return int(v) * max(1, sms)
}

// streamDone reports whether the work queued on s is done (cuStreamQuery);
// a failed launch or copy panics with its *Error.
func streamDone(s cu.Stream) bool {
	switch r := C.cuStreamQuery(*(*C.CUstream)(unsafe.Pointer(&s))); r {
	case C.CUDA_SUCCESS:
		return true
	case C.CUDA_ERROR_NOT_READY:
		return false
	default:
		panic(&Error{Op: "cuStreamQuery (the launch or its copies)", Code: cu.Result(r)})
	}
}

// selfTestThreads is the block of the self-test launch.
const selfTestThreads = 32

// selfTest launches nq_eightfold once with no task, in one block: each of
// its threads takes one look at the task counter, so the counter must
// read selfTestThreads afterwards. It proves that the driver runs
// kernels and passes their arguments, which a stub of the driver API
// (a simulator's, or a library that only answers) does not: without it,
// a kernel that takes its tasks by index (the static ones) would add
// nothing, and the count would be wrong with no error. It panics with an
// *Error naming what failed.
func (c *Context) selfTest() {
	const op = "self-test launch of nq_eightfold"
	start := time.Now()
	f := c.Function("nq_eightfold")
	c.opened.Module = time.Since(start)
	start = time.Now()
	defer func() { c.opened.SelfTest = time.Since(start) }()
	var out cu.DevicePtr
	named(op+": cuMemAlloc", func() { out = cu.MemAlloc(outBytes) })
	notNull(op+": cuMemAlloc", out)
	defer freeQuietly(out)
	named(op+": cuMemsetD32", func() { cu.MemsetD32(out, 0, outBytes/4) })
	p := devPtr(out)
	shape := launchShape{blocks: 1, threads: selfTestThreads, sharedBytes: efStackBytes(4, 0, selfTestThreads)}
	eightfoldLaunch(streamLauncher(0), kernelFunc(f), shape, &groupArgs{left: p, right: p, down: p, meta: p, out: p, next: p + nextOffset})
	var next uint32
	named(op+": cuMemcpyDtoH", func() { cu.MemcpyDtoH(unsafe.Pointer(&next), out+nextOffset, 4) })
	if next != selfTestThreads {
		panic(&Error{Op: op, Detail: fmt.Sprintf(
			"returned success, but %d of its %d threads ran: the driver library does not run kernels", next, selfTestThreads)})
	}
}

// freeQuietly frees p and ignores a failure to: it runs after another
// failure, whose panic goes on.
func freeQuietly(p cu.DevicePtr) {
	defer func() { _ = recover() }()
	cu.MemFree(p)
}
