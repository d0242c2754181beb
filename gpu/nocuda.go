//go:build !cuda

package gpu

import (
	"context"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Context is a CUDA context on one GPU; a build without CUDA has none.
type Context struct{}

// Devices lists the GPUs the driver reports.
func Devices() ([]DeviceInfo, error) { return nil, ErrNoCUDA }

// Driver describes the NVIDIA driver. Without CUDA only the kernel
// module's version is known, and the error is ErrNoCUDA.
func Driver() (DriverInfo, error) {
	v, _ := readModuleVersion()
	return DriverInfo{Version: v}, ErrNoCUDA
}

// DriverVersion returns the CUDA version the driver supports and the file
// the driver library was loaded from; ErrNoCUDA without CUDA.
func DriverVersion() (version int, path string, err error) { return 0, "", ErrNoCUDA }

// OpenWith creates a context on GPU ordinal, loads the kernels and runs
// its counts with tune.
func OpenWith(ordinal int, tune Tuning) (*Backend, error) { return nil, ErrNoCUDA }

// solve is the count of Backend.Count; there is none without CUDA.
func (b *Backend) solve(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) (nodes uint64, err error) {
	return 0, ErrNoCUDA
}

// Close releases the GPU context.
func (b *Backend) Close() error { return nil }

// CUDABuild reports whether the binary was built with CUDA and, if so,
// how its kernels' PTX was compiled (nvcc version and flags).
func CUDABuild() (cuda bool, ptx string) { return false, "" }
