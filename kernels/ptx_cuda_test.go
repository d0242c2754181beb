//go:build cuda

package kernels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildInfo(t *testing.T) {
	b := Build()
	if !strings.Contains(b, "nvcc:") || !strings.Contains(b, "-arch=compute_") {
		t.Errorf("BUILD.txt = %q", b)
	}
	t.Logf("%s", strings.TrimSpace(b))
}

func TestPTX(t *testing.T) {
	ptx := PTX()
	for name, text := range ptx {
		if !strings.Contains(text, ".version ") || !strings.Contains(text, ".entry ") {
			t.Errorf("%s.ptx has no .version or no .entry", name)
		}
	}
	// Where the sources are at hand (go test in this folder, not a test
	// binary copied elsewhere), the embedded modules must be exactly the
	// kernels/*.cu files.
	if _, err := os.Stat("ptx_cuda.go"); err != nil {
		t.Skip("not run in the kernels folder")
	}
	cus, _ := filepath.Glob("*.cu")
	for _, cu := range cus {
		if _, ok := ptx[strings.TrimSuffix(cu, ".cu")]; !ok {
			t.Errorf("%s has no embedded PTX: run make ptx", cu)
		}
	}
	if len(ptx) != len(cus) {
		t.Errorf("%d modules embedded for %d .cu files", len(ptx), len(cus))
	}
}
