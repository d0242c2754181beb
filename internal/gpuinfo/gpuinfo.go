// Package gpuinfo holds the description of NVIDIA GPUs and drivers and
// the tuning of a GPU count: the types the gpu package takes and returns
// that the packages wiring it (which sit below it) need too.
package gpuinfo

import (
	"fmt"
	"time"
)

// Variant is how a kernel schedules its tasks over the GPU's threads.
type Variant string

// DriverInfo describes the NVIDIA driver, for devices and bench.
type DriverInfo struct {
	// Version is the kernel module's version, e.g. "535.183.01", from
	// /proc/driver/nvidia/version; "" when no module is loaded.
	Version string
	// CUDA is the newest CUDA version the driver supports, 1000*major +
	// 10*minor (cuDriverGetVersion; 12020 for 12.2); 0 when unknown.
	CUDA int
	// Library is the file the driver library libcuda.so.1 was loaded
	// from; "" when it was not.
	Library string
}

// CUDAVersion is CUDA as "major.minor", or "" when unknown.
func (d DriverInfo) CUDAVersion() string {
	if d.CUDA <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", d.CUDA/1000, d.CUDA%1000/10)
}

// DeviceInfo describes one GPU.
type DeviceInfo struct {
	Ordinal  int
	Name     string
	SMs      int    // streaming multiprocessors
	Major    int    // compute capability
	Minor    int    //
	MemBytes uint64 // global memory
}

// Tuning chooses the kernel variant and the launch shape of a GPU
// backend's counts (the -gpu-* flags): the one set of options of a GPU
// count besides its spec. The zero value is the default.
type Tuning struct {
	// Threads is the kernels' block size, a multiple of 32 from 32 to
	// 1024; 0 means DefaultThreads.
	Threads int
	// LaunchTime is the kernel time each launch aims at where the tasks
	// are short; 0 means DefaultLaunchTime. The launch size adapts to the
	// measured throughput, and never falls below many tasks per resident
	// thread (launchPlanner).
	LaunchTime time.Duration
	// MaxTasks, if positive, caps the tasks of a launch below what a
	// slot holds (a launch still takes at least one whole batch): for
	// tests that need several launches per N, such as the simulator's.
	MaxTasks int
	// Variant selects the kernel of the algorithm by its variant (see
	// Variants); an algorithm without that variant is an error. Empty
	// means the shortcuts below, or Static.
	Variant Variant
	// Dynamic selects the symmetry kernel whose threads take boards from a
	// shared counter until none is left (a few blocks per SM), instead of
	// one board per thread: Variant Dynamic. The carry-chain kernel
	// ignores it.
	Dynamic bool
	// SharedStack selects the dynamic symmetry kernel that keeps the
	// threads' search stacks in shared memory (nq_symmetry_boards_smem),
	// NQ_SYM_WORDS(N, Depth) 32-bit words per thread: Variant
	// SharedStacks; it implies Dynamic. The carry-chain kernel ignores it.
	SharedStack bool
	// Nodes makes the counts use the kernels' twins that also count their
	// search nodes (NAME_nodes, built with NQ_NODES=1; slower, for
	// measurement); Backend.TakeNodes returns their sum. A node is a
	// queen placed by a search loop, so a count depends on N, the
	// algorithm and the depth only.
	Nodes bool
	// Trace, if not nil, receives every launch once it has ended (see
	// LaunchTrace), from the goroutine that drives the GPU: with several
	// GPUs it is called concurrently.
	Trace func(LaunchTrace)
	// OpenTrace, if not nil, receives the steps of opening each GPU
	// (see OpenTrace), possibly concurrently.
	OpenTrace func(OpenTrace)
}

// OpenTrace is how long opening one GPU took, step by step: what the
// program does on a GPU host before it can count.
type OpenTrace struct {
	Device   int
	Driver   time.Duration // loading the driver library and cuInit: the process's first GPU pays it
	Context  time.Duration // creating the context
	Module   time.Duration // loading the eightfold kernels' module: the driver's JIT of its PTX
	SelfTest time.Duration // the self-test launch and its read-back
}

// LaunchTrace is the timeline of one launch of a GPU solve: when the host
// had its tasks packed, when it queued them and the kernel, and when it
// saw the launch end. The times are since the solve began, so that a GPU
// idle while the host enumerates shows as a launch queued late, and a
// tail as a launch that ends long after the one before it.
type LaunchTrace struct {
	Device  int // the GPU's ordinal
	N       int
	Launch  int // 0, 1, ... in the solve
	Tasks   int
	Batches int
	Levels  int           // eightfold: the most levels its tasks were split to
	Packed  time.Duration // the producer had the group ready
	Queued  time.Duration // the host queued its copies and kernel
	Done    time.Duration // the host saw it end (and read its sums)
}
