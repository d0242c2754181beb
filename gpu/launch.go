package gpu

import (
	"reflect"
	"sync"
	"unsafe"
)

// The kernel glue, kernels_gen.go, is generated (go generate ./gpu, by
// gpu/internal/kernelgen) from the kernels' declarations, as mumax3's
// cuda package generates its wrappers: per kernel a struct of its
// parameters, its argBlock, and the registry adapter that fills the
// struct from a groupArgs. It holds no CUDA types, so that the registry
// builds and is tested without the cuda tag: a launcher queues the launch
// (in the cuda build, cu.LaunchKernel on a stream: streamLauncher in
// cuda_launch.go).

// devPtr is a device address (a CUdeviceptr; cu.DevicePtr in the cuda
// build).
type devPtr uint64

// kernelFunc is a kernel's handle (a CUfunction; cu.Function in the cuda
// build).
type kernelFunc uintptr

// launchShape is a one-dimensional launch: blocks of threads threads, with
// sharedBytes of dynamic shared memory per block.
type launchShape struct {
	blocks, threads, sharedBytes int
}

// launcher queues a launch of f with the argument pointers args (one per
// kernel parameter, each to a value of the parameter's size). It does not
// wait for the kernel, and it may read 8 bytes behind every pointer (see
// cu.LaunchKernel), so each points into an argument block.
type launcher interface {
	launch(f kernelFunc, shape launchShape, args []unsafe.Pointer)
}

// groupArgs is what a solve hands to the registry's adapters for one
// launch group: every kernel's arguments, of which each wrapper takes
// those of its layout.
type groupArgs struct {
	n, depth, count int32
	rows            devPtr // boards: count*depth words; frames: count*n words
	left            devPtr // boards: count words each; eightfold: count 64-bit words
	down            devPtr
	right           devPtr
	meta            devPtr // eightfold: count words
	weight          devPtr // frames: count bytes each
	sym180          devPtr
	out             devPtr // 3 counters (4 for a _nodes twin)
	next            devPtr // the fetching kernels' 32-bit task counter
}

// argBlock is a kernel's argument block: args, a struct P of one field per
// kernel parameter, in order and of the parameter's C size, and ptrs, the
// pointers to its fields that a launcher takes. One block serves all
// launches of its kernel (and twin) without allocating; ptrs follows args,
// so that reading 8 bytes behind a 4-byte last field stays in the block.
type argBlock[P any] struct {
	mu   sync.Mutex
	args P
	ptrs []unsafe.Pointer
}

// launch queues f with l and shape and the arguments p. The block stays
// locked until l returns, since l reads the fields until then.
func (b *argBlock[P]) launch(l launcher, f kernelFunc, shape launchShape, p P) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ptrs == nil {
		v := reflect.ValueOf(&b.args).Elem()
		b.ptrs = make([]unsafe.Pointer, v.NumField())
		for i := range b.ptrs {
			b.ptrs[i] = v.Field(i).Addr().UnsafePointer()
		}
	}
	b.args = p
	l.launch(f, shape, b.ptrs)
}
