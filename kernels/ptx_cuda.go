//go:build cuda

// The PTX of the kernels, in builds with the cuda tag only.
//
// `make ptx` compiles every kernels/NAME.cu into kernels/ptx/NAME.ptx (not
// committed; see the Makefile for the target architecture) and writes
// kernels/ptx/BUILD.txt, which says how. This file embeds that folder, so
// only the cuda build needs nvcc; building it without running `make ptx`
// first fails with "pattern ptx: no matching files found".

package kernels

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed ptx
var ptxFS embed.FS

// PTX returns the PTX of every kernel module, keyed by module name (the .cu
// file's name without the extension).
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

// Build says how the embedded PTX was made: the contents of
// kernels/ptx/BUILD.txt (nvcc's version and flags).
func Build() string {
	b, _ := ptxFS.ReadFile("ptx/BUILD.txt")
	return string(b)
}
