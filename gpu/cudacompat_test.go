package gpu

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"testing"
)

// TestCudaCompatPinsShim checks that cudacompat/cuda.h pins every driver
// function that cudashim.c defines a trampoline for: a name left to the
// installed cuda.h could be mapped by a newer toolkit to a symbol with
// another signature (as CUDA 13.x does with cuCtxCreate), and the build
// would then depend on the toolkit's version again. It reads the two files
// as text, so it runs in the CPU-only build too; a test binary run away
// from the sources (bundle/gpu.test on a GPU host) skips it.
func TestCudaCompatPinsShim(t *testing.T) {
	shim, err := os.ReadFile("cudashim.c")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("not run in the gpu folder")
	}
	if err != nil {
		t.Fatal(err)
	}
	pin, err := os.ReadFile("cudacompat/cuda.h")
	if err != nil {
		t.Fatal(err)
	}
	// NQ(name, ...) and NQSHIM(nolib, name, ...) at the start of a line.
	trampolines := regexp.MustCompile(`(?m)^NQ(?:SHIM)?\((?:[A-Z_]+, )?(cu[A-Za-z0-9_]+),`).FindAllSubmatch(shim, -1)
	if len(trampolines) < 40 {
		t.Fatalf("found %d trampolines in cudashim.c; has the NQ(...) form changed?", len(trampolines))
	}
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^CUresult CUDAAPI (cu[A-Za-z0-9_]+)\(`).FindAllSubmatch(pin, -1) {
		declared[string(m[1])] = true
	}
	undefined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#undef (cu[A-Za-z0-9_]+)$`).FindAllSubmatch(pin, -1) {
		undefined[string(m[1])] = true
	}
	var missing []string
	for _, m := range trampolines {
		name := string(m[1])
		if !declared[name] || !undefined[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("cudashim.c defines %s, but cudacompat/cuda.h does not pin it: add '#undef %s', a #define to CUDA 11.8's symbol where 11.8's cuda.h has one, and the declaration with 11.8's prototype", name, name)
	}
	for name := range declared {
		if !undefined[name] {
			t.Errorf("cudacompat/cuda.h declares %s without '#undef %s' before it", name, name)
		}
	}
}
