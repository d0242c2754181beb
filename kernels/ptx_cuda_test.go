//go:build cuda

package kernels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() { embeddedPTX = PTX }

func TestBuildInfo(t *testing.T) {
	b := Build()
	if !strings.HasPrefix(b, "nvcc: ") || !strings.Contains(b, "\nflags: -ptx -arch=compute_") {
		t.Errorf("Build() = %q", b)
	}
	t.Logf("%s", b)
}

// The embedded modules are PTX, and where the sources are at hand (go test
// in this folder, not a test binary copied elsewhere) exactly the files of
// kernels/ptx.
func TestPTX(t *testing.T) {
	ptx := PTX()
	if len(ptx) == 0 {
		t.Fatal("no PTX embedded")
	}
	for name, text := range ptx {
		if !strings.Contains(text, ".version ") || !strings.Contains(text, ".entry ") {
			t.Errorf("%s.ptx has no .version or no .entry", name)
		}
	}
	if _, err := os.Stat("ptx_cuda.go"); err != nil {
		t.Skip("not run in the kernels folder")
	}
	files, _ := filepath.Glob("ptx/*.ptx")
	if len(ptx) != len(files) {
		t.Errorf("%d modules embedded, %d in kernels/ptx", len(ptx), len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if name := strings.TrimSuffix(filepath.Base(f), ".ptx"); ptx[name] != string(b) {
			t.Errorf("embedded %s differs from %s", name, f)
		}
	}
}
