// Package gpu counts N-Queens solutions on NVIDIA GPUs through CUDA.
//
// The CUDA code is compiled only with the build tag "cuda"; without it every
// entry point returns ErrNoCUDA so that callers can fall back to the CPU.
package gpu

import (
	"errors"
	"fmt"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// ErrNoCUDA is returned when the binary was built without the cuda tag.
var ErrNoCUDA = errors.New("built without CUDA")

// DeviceInfo describes one GPU.
type DeviceInfo struct {
	Ordinal  int
	Name     string
	SMs      int    // streaming multiprocessors
	Major    int    // compute capability
	Minor    int    //
	MemBytes uint64 // global memory
}

// Options tunes a GPU run. The zero value picks sensible defaults. Depth and
// Batch number the batches exactly as cpu.Options do, so that batches,
// checkpoints and shards mean the same tasks on every backend.
type Options struct {
	// Depth is the number of rows of the partial boards; 0 means
	// tasks.DefaultDepth.
	Depth int
	// Batch is the number of tasks in a numbered batch; 0 means
	// cpu.DefaultBatch. A launch covers many batches.
	Batch int
	// Select, if not nil, picks the batches to search by index.
	Select func(batch int) bool
	// Done, if not nil, is called after each launch with the indexes of the
	// batches it covered and their summed partials (see nq.Reduce).
	Done func(batches []int, p nq.Partial)
	// Threads is the kernels' block size, a multiple of 32 from 32 to 1024;
	// 0 means DefaultThreads.
	Threads int
	// LaunchTime is the kernel time each launch aims at; 0 means
	// DefaultLaunchTime. The launch size adapts to the measured throughput.
	LaunchTime time.Duration
	// Dynamic selects the symmetry kernel whose threads take boards from a
	// shared counter until none is left (a few blocks per SM), instead of
	// one board per thread. The carry-chain kernel ignores it.
	Dynamic bool
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

// DefaultAlgo is the fastest GPU kernel.
const DefaultAlgo = nq.Symmetry

// Supports reports whether algo has a GPU kernel.
func Supports(algo nq.Algo) bool {
	for _, a := range Algos() {
		if a == algo {
			return true
		}
	}
	return false
}
