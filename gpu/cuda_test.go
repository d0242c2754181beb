//go:build cuda

package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"

	"github.com/mumax/3/cuda/cu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/kernels"
)

func init() { embeddedPTX = kernels.PTX }

// With NQUEENS_REQUIRE_GPU=1 (bundle/run-gpu-checks.sh sets it) the tests
// fail instead of skipping when there is no usable GPU.
func requireGPU() bool { return os.Getenv("NQUEENS_REQUIRE_GPU") == "1" }

// openOrSkip opens GPU 0, or skips the test where there is none.
func openOrSkip(t *testing.T) *Backend {
	t.Helper()
	if _, err := Devices(); err != nil {
		if requireGPU() {
			t.Fatalf("no GPU: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	b, err := Open(0)
	if err != nil {
		t.Fatalf("Open(0): %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestDevices(t *testing.T) {
	devs, err := Devices()
	if err != nil {
		if requireGPU() {
			t.Fatalf("Devices: %v", err)
		}
		t.Logf("Devices: %v (as expected without a GPU)", err)
		if devs != nil {
			t.Errorf("Devices returned %v with its error", devs)
		}
		if _, err := Open(0); err == nil {
			t.Errorf("Open(0) succeeded where Devices failed")
		}
		return
	}
	v, path, err := DriverVersion()
	t.Logf("driver: CUDA %d.%d from %s (err %v)", v/1000, v%1000/10, path, err)
	for i, d := range devs {
		t.Logf("GPU %d: %s, %d SMs, compute %d.%d, %.1f GiB", d.Ordinal, d.Name, d.SMs, d.Major, d.Minor,
			float64(d.MemBytes)/(1<<30))
		if d.Ordinal != i || d.Name == "" || d.SMs <= 0 || d.Major <= 0 || d.MemBytes == 0 {
			t.Errorf("implausible %+v", d)
		}
	}
	_, err = Open(len(devs))
	var oe *OrdinalError
	if !errors.Is(err, ErrNoSuchGPU) || !errors.As(err, &oe) || oe.Ordinal != len(devs) || oe.Count != len(devs) {
		t.Errorf("Open(%d) of a GPU that does not exist: %v, want an *OrdinalError", len(devs), err)
	}
	d, err := Driver()
	t.Logf("driver: %+v (CUDA %s), err %v", d, d.CUDAVersion(), err)
	// The kernel module's version comes from /proc/driver/nvidia/version,
	// which gVisor (the H200 host) and a simulator do not have.
	_, loaded := readModuleVersion()
	if err != nil || d.CUDA <= 0 || d.Library == "" || (loaded && d.Version == "") {
		t.Errorf("Driver on a GPU host: %+v, %v", d, err)
	}
}

// TestMissingDriverLibrary runs this test binary again with the driver
// library pointed at a file that does not exist: the cuda build must then
// report the missing driver as ErrNoDriver, as on a machine without the
// NVIDIA driver.
func TestMissingDriverLibrary(t *testing.T) {
	if os.Getenv("NQUEENS_TEST_CHILD") == "1" {
		_, err := Devices()
		if !errors.Is(err, ErrNoDriver) || !strings.HasPrefix(err.Error(), "no NVIDIA driver (/nonexistent/libcuda.so.1: ") {
			t.Fatalf("Devices: error %v, want no NVIDIA driver (/nonexistent/libcuda.so.1: ...)", err)
		}
		if _, err := Open(0); !errors.Is(err, ErrNoDriver) {
			t.Fatalf("Open(0): %v, want ErrNoDriver", err)
		}
		if _, _, err := DriverVersion(); !errors.Is(err, ErrNoDriver) {
			t.Fatalf("DriverVersion: %v, want ErrNoDriver", err)
		}
		d, err := Driver()
		if !errors.Is(err, ErrNoDriver) || d.CUDA != 0 || d.Library != "" {
			t.Fatalf("Driver: %+v, %v; want no CUDA version, no library, ErrNoDriver", d, err)
		}
		t.Logf("Devices: %v; fix: %s", err, Fix(err))
		return
	}
	out, err := runChild(t, "TestMissingDriverLibrary", "NQUEENS_LIBCUDA=/nonexistent/libcuda.so.1")
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// runChild runs test name of this binary again in a child process with
// env added and NQUEENS_TEST_CHILD=1, and returns its output; err is not
// nil unless it passed.
func runChild(t *testing.T, name string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), "NQUEENS_TEST_CHILD=1"), env...)
	out, err := cmd.CombinedOutput()
	if err == nil && !strings.Contains(string(out), "--- PASS: "+name) {
		err = errors.New("no PASS line")
	}
	return string(out), err
}

// TestNoUsableGPU checks the cause on a machine whose driver library loads
// and that has no usable GPU: Debian's libcuda1 without the kernel module
// (this project's CI) must give ErrNoModule naming the library; a
// loaded module with no device, ErrNoDevice. A child process with
// CUDA_VISIBLE_DEVICES=-1 hides every GPU, so on a GPU host the child
// checks ErrNoDevice too.
func TestNoUsableGPU(t *testing.T) {
	if os.Getenv("NQUEENS_TEST_CHILD") != "1" {
		if driverError() != nil {
			t.Skip("no driver library here: TestMissingDriverLibrary covers it")
		}
		out, err := runChild(t, "TestNoUsableGPU", "CUDA_VISIBLE_DEVICES=-1")
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		t.Logf("child with CUDA_VISIBLE_DEVICES=-1:\n%s", out)
		if _, err := Devices(); err == nil {
			return // a GPU host: the child covered it
		}
	}
	_, err := Devices()
	if err == nil {
		t.Fatal("Devices found a GPU")
	}
	_, loaded := readModuleVersion()
	switch {
	case !loaded && !errors.Is(err, ErrNoModule):
		t.Errorf("no kernel module: %v, want ErrNoModule", err)
	case !loaded && !strings.Contains(err.Error(), "libcuda.so.1 is installed"):
		t.Errorf("no kernel module: %q does not name the library", err)
	case loaded && !errors.Is(err, ErrNoDevice):
		t.Errorf("kernel module %v, no device: %v, want ErrNoDevice", loaded, err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Op != "cuInit" {
		t.Errorf("%v does not carry the cuInit *Error", err)
	}
	if _, oerr := Open(0); !errors.Is(oerr, ErrNoModule) && !errors.Is(oerr, ErrNoDevice) {
		t.Errorf("Open(0): %v, want the same cause as Devices", oerr)
	}
	d, derr := Driver()
	if derr != nil || d.CUDA <= 0 || d.Library == "" {
		t.Errorf("Driver: %+v, %v; want the library's CUDA version and file", d, derr)
	}
	t.Logf("Devices: %v; fix: %s; driver: %+v", err, Fix(err), d)
}

func TestClassifyInit(t *testing.T) {
	const lib = "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
	tests := []struct {
		name    string
		code    cu.Result
		loaded  bool
		lib     string
		visible string
		cause   error
		text    string // the error's text begins with it
	}{
		{"library without module", cu.ERROR_NO_DEVICE, false, lib, "", ErrNoModule,
			"NVIDIA kernel module not loaded: " + lib + " is installed (cuInit: "},
		{"no module, unknown error", cu.ERROR_UNKNOWN, false, lib, "", ErrNoModule, "NVIDIA kernel module not loaded: "},
		{"module, no device", cu.ERROR_NO_DEVICE, true, lib, "", ErrNoDevice, "the NVIDIA driver sees no GPU (cuInit: "},
		{"module, devices hidden", cu.ERROR_NO_DEVICE, true, lib, "-1", ErrNoDevice,
			`the NVIDIA driver sees no GPU with CUDA_VISIBLE_DEVICES="-1" (cuInit: `},
		{"WSL has no /proc/driver/nvidia", cu.ERROR_NO_DEVICE, false, "/usr/lib/wsl/lib/libcuda.so.1", "", ErrNoDevice,
			"the NVIDIA driver sees no GPU (cuInit: "},
		{"driver too old (CUDA_ERROR_INSUFFICIENT_DRIVER)", cu.Result(35), true, lib, "", ErrDriver, "the NVIDIA driver failed to start: cuInit: "},
		{"version mismatch (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)", cu.Result(803), true, lib, "", ErrDriver, "the NVIDIA driver failed to start: cuInit: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classifyInit(&Error{Op: "cuInit", Code: tt.code}, tt.loaded, tt.lib, tt.visible)
			for _, c := range causes {
				if errors.Is(err, c.err) != (c.err == tt.cause) {
					t.Errorf("errors.Is(%v, %v) = %v", err, c.err, !(c.err == tt.cause))
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.code {
				t.Errorf("%v does not carry the driver's *Error", err)
			}
			if !strings.HasPrefix(err.Error(), tt.text) || strings.Contains(err.Error(), "\n") {
				t.Errorf("text %q, want one line beginning %q", err, tt.text)
			}
		})
	}
}

func TestGuard(t *testing.T) {
	err := guard("op", func() { panic(cu.ERROR_NO_DEVICE) })
	var e *Error
	if !errors.As(err, &e) || e.Code != cu.ERROR_NO_DEVICE || !strings.HasPrefix(err.Error(), "op: ") {
		t.Errorf("guard of a cu.Result panic: %v", err)
	}
	inner := &Error{Op: "load module m", Code: cu.ERROR_INVALID_IMAGE, Detail: "log"}
	err = guard("GPU 0", func() { panic(inner) })
	if !errors.As(err, &e) || e != inner || !strings.Contains(err.Error(), "GPU 0: load module m: ") {
		t.Errorf("guard of an *Error panic: %v", err)
	}
	if err := guard("op", func() {}); err != nil {
		t.Errorf("guard without a panic: %v", err)
	}
	defer func() {
		if r := recover(); r != "bug" {
			t.Errorf("guard swallowed or changed a non-driver panic: %v", r)
		}
	}()
	_ = guard("op", func() { panic("bug") })
}

// Open lists every embedded module and loads the self-test's (eightfold);
// the others load when one of their kernels is first looked up.
func TestOpenLoadsModules(t *testing.T) {
	b := openOrSkip(t)
	t.Logf("%+v; PTX: %s", b.Info(), strings.TrimSpace(kernels.Build()))
	if got, want := len(b.ctx.modules), len(kernels.PTX()); got != want {
		t.Errorf("%d modules listed, want %d", got, want)
	}
	loaded := func() (names []string) {
		if err := b.ctx.Do("list the loaded modules", func() {
			for _, m := range b.ctx.modules {
				if m.mod != 0 {
					names = append(names, m.name)
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := fmt.Sprint(loaded()); got != "[eightfold]" {
		t.Errorf("modules loaded after open: %s, want [eightfold]", got)
	}
	if err := b.ctx.Do("look up a symmetry kernel", func() { b.ctx.Function("nq_symmetry_boards") }); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(loaded()); got != "[boards eightfold]" {
		t.Errorf("modules loaded after a symmetry kernel's lookup: %s, want [boards eightfold]", got)
	}
	err := b.ctx.Do("look up a missing kernel", func() { b.ctx.Function("no_such_kernel") })
	var e *Error
	if !errors.As(err, &e) || e.Code != cu.ERROR_NOT_FOUND {
		t.Errorf("missing kernel: %v", err)
	}
	if err := b.Count(context.Background(), nq.Spec{N: 0, Algo: nq.Symmetry, Batch: 1}, nil, nil); err == nil {
		t.Errorf("Count(N=0) succeeded")
	}
}

func TestCloseTwice(t *testing.T) {
	b := openOrSkip(t)
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := b.ctx.Do("after close", func() {}); !errors.Is(err, errClosed) {
		t.Errorf("Do after Close: %v, want errClosed", err)
	}
	// The cleanup of openOrSkip closes it again.
}

// selftestPTX is nvcc 11.8 -ptx -arch=compute_70 of
//
//	extern "C" __global__ void nq_selftest(unsigned long long *out,
//		unsigned long long *sum, int n, long long base, unsigned int step)
//	{
//		int i = blockIdx.x * blockDim.x + threadIdx.x;
//		if (i >= n)
//			return;
//		out[i] = (unsigned long long)(base + (long long)i * step);
//		atomicAdd(sum, (unsigned long long)i + 0x100000000ull);
//	}
//
// with the add of the 64-bit immediate 2^32 as nvcc writes it, whose low
// 32 bits alone GPGPU-Sim's parser kept (ptx-imm64-rewrite.py).
const selftestPTX = `.version 7.8
.target sm_70
.address_size 64

.visible .entry nq_selftest(
	.param .u64 nq_selftest_param_0,
	.param .u64 nq_selftest_param_1,
	.param .u32 nq_selftest_param_2,
	.param .u64 nq_selftest_param_3,
	.param .u32 nq_selftest_param_4
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<7>;
	.reg .b64 	%rd<14>;

	ld.param.u64 	%rd1, [nq_selftest_param_0];
	ld.param.u64 	%rd2, [nq_selftest_param_1];
	ld.param.u32 	%r3, [nq_selftest_param_2];
	ld.param.u64 	%rd3, [nq_selftest_param_3];
	ld.param.u32 	%r2, [nq_selftest_param_4];
	mov.u32 	%r4, %ctaid.x;
	mov.u32 	%r5, %ntid.x;
	mov.u32 	%r6, %tid.x;
	mad.lo.s32 	%r1, %r4, %r5, %r6;
	setp.ge.s32 	%p1, %r1, %r3;
	@%p1 bra 	$L__BB0_2;

	cvta.to.global.u64 	%rd4, %rd1;
	cvt.u64.u32 	%rd5, %r2;
	cvt.s64.s32 	%rd6, %r1;
	mul.lo.s64 	%rd7, %rd5, %rd6;
	add.s64 	%rd8, %rd7, %rd3;
	mul.wide.s32 	%rd9, %r1, 8;
	add.s64 	%rd10, %rd4, %rd9;
	st.global.u64 	[%rd10], %rd8;
	cvta.to.global.u64 	%rd11, %rd2;
	add.s64 	%rd13, %rd6, 4294967296;
	atom.global.add.u64 	%rd12, [%rd11], %rd13;

$L__BB0_2:
	ret;
}
`

// selftestParams are the parameters of nq_selftest, as the generated
// glue declares a kernel's: one field per parameter of the parameter's
// size, 32-bit ones next to 64-bit ones.
type selftestParams struct {
	out, sum devPtr
	n        int32
	base     int64
	step     uint32
}

// TestLaunch JIT-compiles a small kernel into the context and launches it
// through streamLauncher with a wrapper-style argument block (pointers,
// 32- and 64-bit values).
func TestLaunch(t *testing.T) {
	b := openOrSkip(t)
	const n = 1000
	const base = -(int64(1) << 40)
	const step = 3
	out := make([]uint64, n)
	var sum uint64
	err := b.ctx.Do("self-test kernel", func() {
		mod := loadModule("selftest", selftestPTX)
		f, ok := moduleFunction(mod, "nq_selftest")
		if !ok {
			panic(&Error{Op: "find nq_selftest", Code: cu.ERROR_NOT_FOUND})
		}
		dOut := cu.MemAlloc(8 * n)
		defer cu.MemFree(dOut)
		dSum := cu.MemAlloc(8)
		defer cu.MemFree(dSum)
		cu.MemsetD32(dSum, 0, 2)
		var a argBlock[selftestParams]
		a.launch(streamLauncher(0), kernelFunc(f), launchShape{blocks: (n + 127) / 128, threads: 128},
			selftestParams{out: devPtr(dOut), sum: devPtr(dSum), n: n, base: base, step: step})
		b.ctx.Synchronize()
		cu.MemcpyDtoH(unsafe.Pointer(&out[0]), dOut, 8*n)
		cu.MemcpyDtoH(unsafe.Pointer(&sum), dSum, 8)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if want := uint64(base + int64(i)*step); v != want {
			t.Fatalf("out[%d] = %d, want %d", i, int64(v), int64(want))
		}
	}
	if want := uint64(n*(n-1)/2) + n<<32; sum != want {
		t.Errorf("sum = %d, want %d", sum, want)
	}
}

func TestErrorIsOneLine(t *testing.T) {
	e := &Error{Op: "load module boards", Code: cu.ERROR_INVALID_IMAGE,
		Detail: "ptxas application ptx input, line 9; error   : bad\nptxas fatal   : failed\n"}
	s := e.Error()
	if strings.Contains(s, "\n") || !strings.Contains(s, "line 9; error : bad | ptxas fatal : failed") {
		t.Errorf("Error() = %q", s)
	}
}
