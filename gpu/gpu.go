// Package gpu counts N-Queens solutions on NVIDIA GPUs through CUDA.
//
// The CUDA code is compiled only with the build tag "cuda"; without it every
// entry point returns ErrNoCUDA so that callers can fall back to the CPU.
// With it, a machine without a usable GPU gets ErrNoDriver, ErrNoModule,
// ErrNoDevice, ErrNoSuchGPU or ErrDriver (see Cause and Fix).
package gpu

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/gpuinfo"
)

// The GPU's description and the count's tuning are gpuinfo's types, so
// that the packages that wire the backends need not import gpu.
type (
	DriverInfo  = gpuinfo.DriverInfo
	DeviceInfo  = gpuinfo.DeviceInfo
	Tuning      = gpuinfo.Tuning
	OpenTrace   = gpuinfo.OpenTrace
	LaunchTrace = gpuinfo.LaunchTrace
	Variant     = gpuinfo.Variant
)

// Why no GPU can count. Devices, Open and Driver return errors that
// errors.Is matches against exactly one of these (wrapping the driver's
// own error, where there is one). Cause says which in a few words, the
// error's text adds the details (the library's file, the driver's
// status), and Fix says what the user can do about it.
var (
	// ErrNoCUDA: the binary was built without the cuda tag.
	ErrNoCUDA = errors.New("built without CUDA")
	// ErrNoDriver: the NVIDIA driver's library libcuda.so.1 cannot be
	// loaded.
	ErrNoDriver = errors.New("no NVIDIA driver")
	// ErrNoModule: the driver library loads, but the NVIDIA kernel
	// module is not loaded, so the driver finds no GPU: Debian's libcuda1
	// on a machine without an NVIDIA GPU, or a module that failed to
	// load.
	ErrNoModule = errors.New("NVIDIA kernel module not loaded")
	// ErrNoDevice: the driver is there and sees no GPU
	// (CUDA_ERROR_NO_DEVICE, or no device counted).
	ErrNoDevice = errors.New("the NVIDIA driver sees no GPU")
	// ErrNoSuchGPU: a GPU ordinal that does not exist (an *OrdinalError
	// says which and how many there are).
	ErrNoSuchGPU = errors.New("no such GPU")
	// ErrDriver: the driver is there and fails to start (cuInit), for
	// instance because its library and kernel module differ in version.
	ErrDriver = errors.New("the NVIDIA driver failed to start")
)

// causes are the causes above in the order Cause and Fix try them, each
// with what the user can do about it (Fix).
var causes = []struct {
	err error
	fix string
}{
	{ErrNoCUDA, "install the CUDA toolkit (make cuda-deps), then make"},
	{ErrNoDriver, "install it, or run the container with --gpus all"},
	{ErrNoModule, "run where nvidia-smi lists one"},
	{ErrNoDevice, "check nvidia-smi and CUDA_VISIBLE_DEVICES"},
	{ErrNoSuchGPU, "nqueens-gpu devices lists them"},
	{ErrDriver, "see nvidia-smi; reboot after an update"},
}

// OrdinalError is the error of Open for a GPU ordinal that does not exist.
// It matches ErrNoSuchGPU.
type OrdinalError struct {
	Ordinal int // the ordinal asked for
	Count   int // the GPUs the driver finds
}

// Error says which ordinal and which GPUs there are: "no GPU 3 (the
// driver sees GPU 0)".
func (e *OrdinalError) Error() string {
	switch e.Count {
	case 0:
		return fmt.Sprintf("no GPU %d (the driver sees none)", e.Ordinal)
	case 1:
		return fmt.Sprintf("no GPU %d (the driver sees GPU 0)", e.Ordinal)
	}
	return fmt.Sprintf("no GPU %d (the driver sees GPUs 0 to %d)", e.Ordinal, e.Count-1)
}

// Is makes errors.Is(err, ErrNoSuchGPU) hold.
func (e *OrdinalError) Is(target error) bool { return target == ErrNoSuchGPU }

// Cause says in a few words which of the causes above err is: the
// cause's own text, or an *OrdinalError's, without the details that
// err's text adds; it returns "" for any other error.
func Cause(err error) string {
	var oe *OrdinalError
	if errors.As(err, &oe) {
		return oe.Error()
	}
	for _, c := range causes {
		if errors.Is(err, c.err) {
			return c.err.Error()
		}
	}
	return ""
}

// Fix says, in one short clause, what the user can do about err, one of
// the causes above; it returns "" for any other error.
func Fix(err error) string {
	for _, c := range causes {
		if errors.Is(err, c.err) {
			return c.fix
		}
	}
	return ""
}

// procVersion is the file the NVIDIA kernel module says its version in.
var procVersion = "/proc/driver/nvidia/version"

// moduleVersion returns the kernel module's version from the text of
// /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel
// Module  535.183.01  ..." or "... Open Kernel Module for x86_64
// 550.54.15 ..."), or "".
func moduleVersion(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	_, rest, ok := strings.Cut(line, "Kernel Module")
	if !ok {
		return ""
	}
	for _, f := range strings.Fields(rest) {
		if f != "" && f[0] >= '0' && f[0] <= '9' && strings.Contains(f, ".") {
			return f
		}
	}
	return ""
}

// readModuleVersion is moduleVersion of procVersion; ok is false when the
// file does not exist (no kernel module loaded).
func readModuleVersion() (version string, ok bool) {
	b, err := os.ReadFile(procVersion)
	if err != nil {
		return "", false
	}
	return moduleVersion(string(b)), true
}

// SymWords is the number of 32-bit stack words a thread of the symmetry
// kernels uses for boards of n with depth rows placed: NQ_SYM_WORDS in
// kernels/nqsearch.h (each row's queen, and a word per row the search
// pushes).
func SymWords(n, depth int) int { return 2*n - 1 - depth }

// MaxSharedStack is the shared memory a block may have without the
// opt-in (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): 48 KiB on
// every GPU, static and dynamic together. Above it a launch needs the
// opt-in, up to the GPU's CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
// (96 KiB on a V100, 163 KiB on an A100, 227 KiB on an H100).
const MaxSharedStack = 48 << 10

// sharedShape is the shared memory of one kernel's launch on one GPU.
type sharedShape struct {
	// static is the kernel's static shared memory
	// (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).
	static int
	// limit is the most shared memory a block may have on the GPU with
	// the opt-in; 0 means MaxSharedStack.
	limit int
}

// fitShared chooses the block size of a kernel with stacks in dynamic
// shared memory (bytes: its kernelSpec.sharedBytes) for tasks of n split
// at depth, and returns it with the dynamic shared memory of a block. An
// explicit block size (threads > 0) is kept, or refused when the block's
// shared memory, static and dynamic, is over the limit; without one,
// DefaultThreads shrinks by warps until it fits.
func fitShared(bytes func(n, depth, threads int) int, n, depth, threads int, sh sharedShape) (int, int, error) {
	limit := sh.limit
	if limit <= 0 {
		limit = MaxSharedStack
	}
	explicit := threads > 0
	if !explicit {
		threads = DefaultThreads
	}
	if bytes == nil {
		return threads, 0, nil
	}
	for !explicit && threads > 32 && sh.static+bytes(n, depth, threads) > limit {
		threads -= 32
	}
	dyn := bytes(n, depth, threads)
	if sh.static+dyn > limit {
		return 0, 0, fmt.Errorf("shared memory of a block of %d threads at N=%d, depth %d: %d bytes of stacks and %d of the kernel's own, more than the %d a block may have on this GPU: use fewer threads per block",
			threads, n, depth, dyn, sh.static, limit)
	}
	return threads, dyn, nil
}

// needsOptIn reports whether a block with dynamic bytes of dynamic
// shared memory needs the opt-in attribute.
func (sh sharedShape) needsOptIn(dynamic int) bool { return sh.static+dynamic > MaxSharedStack }

// The defaults of the tuning knobs of Tuning.
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
