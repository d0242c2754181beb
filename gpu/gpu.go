// Package gpu counts N-Queens solutions on NVIDIA GPUs through CUDA.
//
// The CUDA code is compiled only with the build tag "cuda"; without it every
// entry point returns ErrNoCUDA so that callers can fall back to the CPU.
package gpu

import (
	"errors"

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
