//go:build cuda

// The PTX of the kernels, in builds with the cuda tag only.
//
// kernels/ptx/ is committed: `make ptx` compiles every kernels/NAME.cu into
// kernels/ptx/NAME.ptx and NAME_nodes.ptx (see the Makefile for the target
// architecture) and writes kernels/ptx/BUILD.txt, which says how. This file
// embeds that folder, so the cuda build needs cuda.h and a C compiler but
// no nvcc: `go build -tags cuda ./cmd/nqueens-gpu` works on a fresh clone.

package kernels

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed ptx
var ptxFS embed.FS

// PTX returns the PTX of every kernel module, keyed by module name (the .cu
// file's name without the extension, and NAME_nodes for its node-counting
// build).
func PTX() map[string]string {
	m := make(map[string]string)
	entries, _ := fs.ReadDir(ptxFS, "ptx") // the folder is embedded: no error
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".ptx")
		if !ok || e.IsDir() {
			continue
		}
		b, _ := ptxFS.ReadFile("ptx/" + e.Name())
		m[name] = string(b)
	}
	return m
}

// Build says how the embedded PTX was made: the nvcc and flags lines of
// kernels/ptx/BUILD.txt.
func Build() string {
	b, _ := ptxFS.ReadFile("ptx/BUILD.txt")
	return BuildSummary(string(b))
}
