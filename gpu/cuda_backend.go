//go:build cuda

package gpu

import (
	"context"
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Backend runs the kernels on one GPU.
type Backend struct {
	ctx  *Context
	info DeviceInfo
}

// Open creates a context on GPU ordinal and loads the kernels.
func Open(ordinal int) (*Backend, error) {
	if err := initDriver(); err != nil {
		return nil, err
	}
	var info DeviceInfo
	if err := guard(fmt.Sprintf("GPU %d", ordinal), func() { info = deviceInfo(ordinal) }); err != nil {
		return nil, err
	}
	ctx, err := newContext(ordinal)
	if err != nil {
		return nil, err
	}
	return &Backend{ctx: ctx, info: info}, nil
}

// Info describes the backend's GPU.
func (b *Backend) Info() DeviceInfo { return b.info }

// Close releases the GPU context.
func (b *Backend) Close() error { return b.ctx.Close() }

// Solve counts the solutions of the n-queens problem with algo on the GPU.
//
// Placeholder until the kernel wrappers exist: it checks its arguments and
// reports that the kernel is not wired up yet.
func (b *Backend) Solve(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error) {
	if err := nq.CheckN(n); err != nil {
		return nq.Counts{}, err
	}
	if !Supports(algo) {
		return nq.Counts{}, fmt.Errorf("gpu: algorithm %s has no GPU kernel", algo)
	}
	return nq.Counts{}, fmt.Errorf("gpu: the %s kernel is not wired up yet", algo)
}
