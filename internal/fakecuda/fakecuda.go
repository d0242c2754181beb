// Package fakecuda builds a stand-in for the NVIDIA driver library
// (libcuda.so.1) for the tests of the CUDA build on machines without a
// GPU. The program loads it through NQUEENS_LIBCUDA and goes through its
// contexts, modules, streams, copies and launches as on a real driver;
// it runs no kernel, but its eightfold kernels can count (it searches the
// tasks itself) and its launches can take the time of their tasks, on
// several GPUs. The environment variables FAKECUDA_* choose: misbehaving
// as a real driver or a simulator's stub could (MODE, BUSY_S, FAIL), the
// GPUs (DEVICES, SMS), the time of a task (TASK_US, NODE_NS), counting
// (VALUES) and a log of the launches (LOG): src/libcuda.c says how.
package fakecuda

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed src/libcuda.c
var source []byte

// Build compiles the library into dir with the C compiler (CC, else cc)
// and returns its path. It needs cuda.h (the CUDA build's only header
// dependency), looked up as the gpu package's cgo flags do.
func Build(dir string) (string, error) {
	src := filepath.Join(dir, "fakecuda.c")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return "", fmt.Errorf("fakecuda: %w", err)
	}
	lib := filepath.Join(dir, "libcuda-fake.so")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	args := []string{"-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-I/usr/local/cuda/include",
		"-o", lib, src, "-lpthread"}
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("fakecuda: %s %s: %v: %s", cc, strings.Join(args, " "), err, out)
	}
	return lib, nil
}
