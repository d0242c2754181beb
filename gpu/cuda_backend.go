//go:build cuda

package gpu

import (
	"fmt"
)

// Backend runs the kernels on one GPU.
type Backend struct {
	ctx  *Context
	info DeviceInfo
}

// Open creates a context on GPU ordinal and loads the kernels. Its error
// is one of the causes of gpu.go (an *OrdinalError for an ordinal that does
// not exist) or a driver failure (*Error).
func Open(ordinal int) (*Backend, error) {
	if err := initDriver(); err != nil {
		return nil, err
	}
	if err := checkOrdinal(ordinal); err != nil {
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
