//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mumax/3/cuda/cu"
	"github.com/nqueens-gpu/nqueens-gpu/kernels"
)

// Error is a failed CUDA driver call.
type Error struct {
	Op     string    // what was being done, e.g. "cuInit" or "load module boards"
	Code   cu.Result // the driver's status
	Detail string    // more from the driver, such as the PTX JIT's log
}

// Error is one line (the program's fallback message quotes it): the lines
// of Detail are joined with " | ".
func (e *Error) Error() string {
	s := e.Op + ": " + resultText(e.Code)
	if d := strings.Join(strings.Fields(strings.ReplaceAll(e.Detail, "\n", " | ")), " "); d != "" {
		s += ": " + d
	}
	return s
}

// guard runs f, which calls the cu binding, and returns the binding's
// panics as errors: the binding reports every failed driver call by
// panicking with its cu.Result. op says what f was doing. A panic that is
// not the driver's (a bug) is not swallowed: it goes on.
func guard(op string, f func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		switch e := r.(type) {
		case cu.Result:
			err = &Error{Op: op, Code: e}
		case *Error:
			err = fmt.Errorf("%s: %w", op, e)
		default:
			panic(r)
		}
	}()
	f()
	return nil
}

// initDriver opens the driver library and calls cuInit, once per process.
var initDriver = sync.OnceValue(func() error {
	if err := driverError(); err != nil {
		return err
	}
	return guard("cuInit", func() { cu.Init(0) })
})

// Devices lists the GPUs the driver reports. It returns an error, and never
// panics or exits, when the driver library is missing (no NVIDIA driver),
// when it finds no device, or when the driver fails.
func Devices() ([]DeviceInfo, error) {
	if err := initDriver(); err != nil {
		return nil, err
	}
	var devs []DeviceInfo
	err := guard("list devices", func() {
		n := cu.DeviceGetCount()
		for i := 0; i < n; i++ {
			devs = append(devs, deviceInfo(i))
		}
	})
	if err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return nil, errors.New("the CUDA driver reports no device")
	}
	return devs, nil
}

// deviceInfo describes GPU ordinal; it panics like the cu binding.
func deviceInfo(ordinal int) DeviceInfo {
	d := cu.DeviceGet(ordinal)
	major, minor := d.ComputeCapability()
	return DeviceInfo{
		Ordinal:  ordinal,
		Name:     d.Name(),
		SMs:      d.Attribute(cu.MULTIPROCESSOR_COUNT),
		Major:    major,
		Minor:    minor,
		MemBytes: uint64(d.TotalMem()),
	}
}

// DriverVersion returns the CUDA version the driver supports (e.g. 12020
// for 12.2) and the file the driver library was loaded from, for logs.
func DriverVersion() (version int, path string, err error) {
	if err := driverError(); err != nil {
		return 0, "", err
	}
	err = guard("cuDriverGetVersion", func() { version = cu.Version() })
	return version, driverPath(), err
}

// CUDABuild reports whether the binary was built with CUDA and, if so,
// how its kernels' PTX was compiled (nvcc version and flags).
func CUDABuild() (cuda bool, ptx string) { return true, strings.TrimSpace(kernels.Build()) }

// DriverCUDAVersion is the CUDA version the NVIDIA driver supports, such
// as "12.4", or "" without a driver.
func DriverCUDAVersion() string {
	v, _, err := DriverVersion()
	if err != nil || v <= 0 {
		return ""
	}
	// cuDriverGetVersion: 1000*major + 10*minor.
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}
