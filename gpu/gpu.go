// Package gpu counts N-Queens solutions on NVIDIA GPUs through CUDA.
//
// The CUDA code is compiled only with the build tag "cuda"; without it every
// entry point returns ErrNoCUDA so that callers can fall back to the CPU.
package gpu

import (
	"errors"
	"fmt"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// ErrNoCUDA is returned when the binary was built without the cuda tag.
var ErrNoCUDA = errors.New("built without CUDA")

// DeviceInfo describes one GPU; it is the device layer's description.
type DeviceInfo = device.GPU

// Tuning chooses the kernel variant and the launch shape of a GPU
// backend's counts (the -gpu-* flags). The zero value is the default.
type Tuning struct {
	// Threads is the kernels' block size, a multiple of 32 from 32 to
	// 1024; 0 means DefaultThreads.
	Threads int
	// LaunchTime is the kernel time each launch aims at; 0 means
	// DefaultLaunchTime. The launch size adapts to the measured throughput.
	LaunchTime time.Duration
	// Dynamic selects the symmetry kernel whose threads take boards from a
	// shared counter until none is left (a few blocks per SM), instead of
	// one board per thread. The carry-chain kernel ignores it.
	Dynamic bool
	// SharedStack selects the dynamic symmetry kernel that keeps the
	// threads' search stacks in shared memory (nq_symmetry_boards_smem),
	// NQ_SYM_WORDS(N, Depth) 32-bit words per thread; it implies Dynamic.
	// The carry-chain kernel ignores it.
	SharedStack bool
	// Nodes makes the counts use the kernels that also count their search
	// nodes (kernels/nodes.cu; slower, for measurement); Backend.TakeNodes
	// returns their sum.
	Nodes bool
}

// Options tunes one SolvePartial call: the batches of the spec (Depth and
// Batch number them exactly as on the CPU, so that batches, checkpoints
// and shards mean the same tasks on every backend) and the kernel.
type Options struct {
	// Depth is the number of rows of the partial boards; 0 means the
	// default of nq.Spec.
	Depth int
	// Batch is the number of tasks in a numbered batch; 0 means
	// nq.DefaultBatch. A launch covers many batches.
	Batch int
	// Select, if not nil, picks the batches to search by index.
	Select func(batch int) bool
	// Done, if not nil, is called after each launch with the indexes of the
	// batches it covered and their summed partials (see nq.Reduce).
	Done func(batches []int, p nq.Partial)
	// Threads, LaunchTime, Dynamic and SharedStack are those of Tuning.
	Threads     int
	LaunchTime  time.Duration
	Dynamic     bool
	SharedStack bool
	// Nodes, if not nil, makes the run use the kernels that also count
	// their search nodes (kernels/nodes.cu; slower, for measurement) and
	// receives their sum. A node is a queen placed by a search loop, so a
	// count depends on N, the algorithm and the depth only.
	Nodes *uint64
}

// SymWords is the number of 32-bit stack words a thread of the symmetry
// kernels uses for boards of n with depth rows placed: NQ_SYM_WORDS in
// kernels/nqsearch.h (each row's queen, and a word per row the search
// pushes).
func SymWords(n, depth int) int { return 2*n - 1 - depth }

// MaxSharedStack is the most dynamic shared memory a block of
// nq_symmetry_boards_smem may ask for: 48 KiB, what every GPU grants
// without an opt-in.
const MaxSharedStack = 48 << 10

// CheckSharedStack returns an error unless a block of threads threads can
// hold its stacks for boards of n and depth in MaxSharedStack.
func CheckSharedStack(n, depth, threads int) error {
	if b := 4 * SymWords(n, depth) * threads; b > MaxSharedStack {
		return fmt.Errorf("shared-memory stacks of %d threads need %d bytes at N=%d, depth %d, more than %d: use fewer threads per block",
			threads, b, n, depth, MaxSharedStack)
	}
	return nil
}

// The defaults of the tuning knobs of Options.
const (
	DefaultThreads    = 128
	DefaultLaunchTime = 200 * time.Millisecond
)

// CheckTuning returns an error unless threads (0 or a multiple of 32 from
// 32 to 1024) and launch (0, or 1 ms to 10 s) are usable.
func CheckTuning(threads int, launch time.Duration) error {
	if threads != 0 && (threads < 32 || threads > 1024 || threads%32 != 0) {
		return fmt.Errorf("GPU block size %d: want a multiple of 32 from 32 to 1024", threads)
	}
	if launch != 0 && (launch < time.Millisecond || launch > 10*time.Second) {
		return fmt.Errorf("GPU launch time %v: want 1ms to 10s", launch)
	}
	return nil
}

// Algos lists the algorithms that have a GPU kernel.
func Algos() []nq.Algo { return []nq.Algo{nq.Symmetry, nq.CarryChain} }

// Supports reports whether algo has a GPU kernel.
func Supports(algo nq.Algo) bool {
	for _, a := range Algos() {
		if a == algo {
			return true
		}
	}
	return false
}
