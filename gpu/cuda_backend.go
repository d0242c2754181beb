//go:build cuda

package gpu

import (
	"fmt"
	"time"
)

// OpenWith creates a context on GPU ordinal, loads the kernels and runs
// its counts with tune. Its error is one of the causes of gpu.go (an
// *OrdinalError for an ordinal that does not exist) or a driver failure
// (*Error).
func OpenWith(ordinal int, tune Tuning) (*Backend, error) {
	if err := CheckTuning(tune.Threads, tune.LaunchTime); err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	start := time.Now()
	if err := initDriver(); err != nil {
		return nil, err
	}
	driver := time.Since(start)
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
	if tune.OpenTrace != nil {
		t := ctx.opened
		t.Device, t.Driver = ordinal, driver
		tune.OpenTrace(t)
	}
	return &Backend{ctx: ctx, info: info, tune: tune}, nil
}

// Close releases the GPU context.
func (b *Backend) Close() error { return b.ctx.Close() }
