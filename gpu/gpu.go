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

// DriverInfo describes the NVIDIA driver, for devices and bench.
type DriverInfo struct {
	// Version is the kernel module's version, e.g. "535.183.01", from
	// /proc/driver/nvidia/version; "" when no module is loaded.
	Version string
	// CUDA is the newest CUDA version the driver supports, 1000*major +
	// 10*minor (cuDriverGetVersion; 12020 for 12.2); 0 when unknown.
	CUDA int
	// Library is the file the driver library libcuda.so.1 was loaded
	// from; "" when it was not.
	Library string
}

// CUDAVersion is CUDA as "major.minor", or "" when unknown.
func (d DriverInfo) CUDAVersion() string {
	if d.CUDA <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", d.CUDA/1000, d.CUDA%1000/10)
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

// DeviceInfo describes one GPU.
type DeviceInfo struct {
	Ordinal  int
	Name     string
	SMs      int    // streaming multiprocessors
	Major    int    // compute capability
	Minor    int    //
	MemBytes uint64 // global memory
}

// Tuning chooses the kernel variant and the launch shape of a GPU
// backend's counts (the -gpu-* flags): the one set of options of a GPU
// count besides its spec. The zero value is the default.
type Tuning struct {
	// Threads is the kernels' block size, a multiple of 32 from 32 to
	// 1024; 0 means DefaultThreads.
	Threads int
	// LaunchTime is the kernel time each launch aims at where the tasks
	// are short; 0 means DefaultLaunchTime. The launch size adapts to the
	// measured throughput, and never falls below many tasks per resident
	// thread (launchPlanner).
	LaunchTime time.Duration
	// MaxTasks, if positive, caps the tasks of a launch below what a
	// slot holds (a launch still takes at least one whole batch): for
	// tests that need several launches per N, such as the simulator's.
	MaxTasks int
	// Variant selects the kernel of the algorithm by its variant (see
	// Variants); an algorithm without that variant is an error. Empty
	// means the shortcuts below, or Static.
	Variant Variant
	// Dynamic selects the symmetry kernel whose threads take boards from a
	// shared counter until none is left (a few blocks per SM), instead of
	// one board per thread: Variant Dynamic. The carry-chain kernel
	// ignores it.
	Dynamic bool
	// SharedStack selects the dynamic symmetry kernel that keeps the
	// threads' search stacks in shared memory (nq_symmetry_boards_smem),
	// NQ_SYM_WORDS(N, Depth) 32-bit words per thread: Variant
	// SharedStacks; it implies Dynamic. The carry-chain kernel ignores it.
	SharedStack bool
	// Nodes makes the counts use the kernels' twins that also count their
	// search nodes (NAME_nodes, built with NQ_NODES=1; slower, for
	// measurement); Backend.TakeNodes returns their sum. A node is a
	// queen placed by a search loop, so a count depends on N, the
	// algorithm and the depth only.
	Nodes bool
	// Trace, if not nil, receives every launch once it has ended (see
	// LaunchTrace), from the goroutine that drives the GPU: with several
	// GPUs it is called concurrently.
	Trace func(LaunchTrace)
	// OpenTrace, if not nil, receives the steps of opening each GPU
	// (see OpenTrace), possibly concurrently.
	OpenTrace func(OpenTrace)
}

// OpenTrace is how long opening one GPU took, step by step: what the
// program does on a GPU host before it can count.
type OpenTrace struct {
	Device   int
	Driver   time.Duration // loading the driver library and cuInit: the process's first GPU pays it
	Context  time.Duration // creating the context
	Module   time.Duration // loading the eightfold kernels' module: the driver's JIT of its PTX
	SelfTest time.Duration // the self-test launch and its read-back
}

// LaunchTrace is the timeline of one launch of a GPU solve: when the host
// had its tasks packed, when it queued them and the kernel, and when it
// saw the launch end. The times are since the solve began, so that a GPU
// idle while the host enumerates shows as a launch queued late, and a
// tail as a launch that ends long after the one before it.
type LaunchTrace struct {
	Device  int // the GPU's ordinal
	N       int
	Launch  int // 0, 1, ... in the solve
	Tasks   int
	Batches int
	Levels  int           // eightfold: the most levels its tasks were split to
	Packed  time.Duration // the producer had the group ready
	Queued  time.Duration // the host queued its copies and kernel
	Done    time.Duration // the host saw it end (and read its sums)
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
