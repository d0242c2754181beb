//go:build cuda

package gpu

import (
	"fmt"
)

// OpenWith creates a context on GPU ordinal, loads the kernels and runs
// its counts with tune. Its error is one of the causes of gpu.go (an
// *OrdinalError for an ordinal that does not exist) or a driver failure
// (*Error).
func OpenWith(ordinal int, tune Tuning) (*Backend, error) {
	if err := CheckTuning(tune.Threads, tune.LaunchTime); err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
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
	return &Backend{ctx: ctx, info: info, tune: tune}, nil
}

// Close releases the GPU context.
func (b *Backend) Close() error { return b.ctx.Close() }
