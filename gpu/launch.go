package gpu

import "unsafe"

// The typed kernel wrappers (launch_*.go) follow mumax3's cuda package:
// each kernel has an argument block, a struct with one field per kernel
// parameter in the kernel's order and of the parameter's C size, plus
// argptr, the pointers to those fields that cuLaunchKernel takes, set up
// once; a mutex; and a typed function that fills the fields and queues the
// launch. They are written by hand: six kernels with five parameter
// lists do not pay for a generator that would have to parse C
// declarations, and TestRegistryMatchesPTX checks each block against the
// committed PTX in every build, which is what a generator would guarantee.
//
// The wrappers hold no CUDA types, so that they and the registry build and
// are tested without the cuda tag: a launcher queues the launch (in the
// cuda build, cu.LaunchKernel on a stream: streamLauncher in
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
