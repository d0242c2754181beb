//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"os"
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
	d := strings.Join(strings.Fields(strings.ReplaceAll(e.Detail, "\n", " | ")), " ")
	if e.Code == cu.SUCCESS && d != "" {
		return e.Op + " " + d // a call that succeeded with nothing
	}
	s := e.Op + ": " + resultText(e.Code)
	if d != "" {
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

// initDriver opens the driver library and calls cuInit, once per process;
// its error is one of the causes of gpu.go.
var initDriver = sync.OnceValue(func() error {
	if err := driverError(); err != nil {
		return err
	}
	if err := guard("cuInit", func() { cu.Init(0) }); err != nil {
		_, loaded := readModuleVersion()
		return classifyInit(err, loaded, driverPath(), os.Getenv("CUDA_VISIBLE_DEVICES"))
	}
	return nil
})

// classifyInit turns a failed cuInit into a cause: loaded says whether
// the NVIDIA kernel module is loaded (/proc/driver/nvidia/version exists),
// lib is the driver library's file, and visible is CUDA_VISIBLE_DEVICES
// ("" when unset).
func classifyInit(err error, loaded bool, lib, visible string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	// A driver library without its kernel module (Debian's libcuda1 on a
	// machine without an NVIDIA GPU, or a module that failed to load)
	// reports no device. WSL has a driver but no /proc/driver/nvidia.
	if !loaded && !strings.Contains(lib, "/wsl/") &&
		(e.Code == cu.ERROR_NO_DEVICE || e.Code == cu.ERROR_UNKNOWN || e.Code == cu.ERROR_OPERATING_SYSTEM) {
		if lib == "" {
			lib = "libcuda.so.1"
		}
		return fmt.Errorf("%w: %s is installed (%w)", ErrNoModule, lib, e)
	}
	if e.Code == cu.ERROR_NO_DEVICE {
		if visible != "" {
			return fmt.Errorf("%w with CUDA_VISIBLE_DEVICES=%q (%w)", ErrNoDevice, visible, e)
		}
		return fmt.Errorf("%w (%w)", ErrNoDevice, e)
	}
	return fmt.Errorf("%w: %w", ErrDriver, e)
}

// Devices lists the GPUs the driver reports. It returns an error, and never
// panics or exits, when the driver library is missing (no NVIDIA driver),
// when its kernel module is not loaded, when it finds no device, or when
// the driver fails: see gpu.go's causes.
func Devices() ([]DeviceInfo, error) {
	if err := initDriver(); err != nil {
		return nil, err
	}
	var devs []DeviceInfo
	err := guard("list devices", func() {
		var n int
		named("cuDeviceGetCount", func() { n = cu.DeviceGetCount() })
		for i := 0; i < n; i++ {
			devs = append(devs, deviceInfo(i))
		}
	})
	if err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("%w (it counts 0 devices)", ErrNoDevice)
	}
	return devs, nil
}

// checkOrdinal returns nil when GPU ordinal exists, else an
// *OrdinalError (or the driver's error). The driver must be initialised.
func checkOrdinal(ordinal int) error {
	var count int
	if err := guard("count devices: cuDeviceGetCount", func() { count = cu.DeviceGetCount() }); err != nil {
		return err
	}
	if ordinal < 0 || ordinal >= count {
		if count == 0 {
			return fmt.Errorf("%w (it counts 0 devices)", ErrNoDevice)
		}
		return &OrdinalError{Ordinal: ordinal, Count: count}
	}
	return nil
}

// deviceInfo describes GPU ordinal; it panics like the cu binding.
func deviceInfo(ordinal int) DeviceInfo {
	info := DeviceInfo{Ordinal: ordinal}
	var d cu.Device
	named("cuDeviceGet", func() { d = cu.DeviceGet(ordinal) })
	named("cuDeviceGetAttribute", func() {
		info.Major, info.Minor = d.ComputeCapability()
		info.SMs = d.Attribute(cu.MULTIPROCESSOR_COUNT)
	})
	named("cuDeviceGetName", func() { info.Name = d.Name() })
	named("cuDeviceTotalMem", func() { info.MemBytes = uint64(d.TotalMem()) })
	return info
}

// Driver describes the NVIDIA driver: the kernel module's version, the
// CUDA version the driver library supports and its file. It needs no GPU
// and no cuInit; without the library it returns what it knows with the
// ErrNoDriver error.
func Driver() (DriverInfo, error) {
	var d DriverInfo
	d.Version, _ = readModuleVersion()
	if err := driverError(); err != nil {
		return d, err
	}
	d.Library = driverPath()
	err := guard("cuDriverGetVersion", func() { d.CUDA = cu.Version() })
	return d, err
}

// DriverVersion returns the CUDA version the driver supports (e.g. 12020
// for 12.2) and the file the driver library was loaded from, for logs: the
// CUDA and Library of Driver.
func DriverVersion() (version int, path string, err error) {
	d, err := Driver()
	if err != nil {
		return 0, "", err
	}
	return d.CUDA, d.Library, nil
}

// CUDABuild reports whether the binary was built with CUDA and, if so,
// how its kernels' PTX was compiled (nvcc version and flags).
func CUDABuild() (cuda bool, ptx string) { return true, strings.TrimSpace(kernels.Build()) }
