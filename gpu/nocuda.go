//go:build !cuda

package gpu

import (
	"context"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

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

// Backend runs the kernels on one GPU.
type Backend struct{}

// Open creates a context on GPU ordinal and loads the kernels.
func Open(ordinal int) (*Backend, error) { return nil, ErrNoCUDA }

// Info describes the backend's GPU.
func (b *Backend) Info() DeviceInfo { return DeviceInfo{} }

// Solve counts the solutions of the n-queens problem with algo on the GPU.
func (b *Backend) Solve(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error) {
	return nq.Counts{}, ErrNoCUDA
}

// SolvePartial searches the batches that opt selects and returns their
// summed partials.
func (b *Backend) SolvePartial(ctx context.Context, n int, algo nq.Algo, opt Options) (nq.Partial, error) {
	return nq.Partial{}, ErrNoCUDA
}

// Close releases the GPU context.
func (b *Backend) Close() error { return nil }
