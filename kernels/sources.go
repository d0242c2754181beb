package kernels

import (
	"embed"
	"strings"
)

// Sources holds the kernels' C and CUDA sources: every *.h, *.cuh and *.cu
// file of this folder (nqsearch.h, nqtotal.h, nqreduce.cuh, boards.cu,
// frames.cu, eightfold.cu, ...).
//
// Embedding them also makes this package's build depend on their content.
// The Go build cache does not track headers that a cgo package includes
// from outside its own directory, so kernels/host imports this package to
// be rebuilt whenever nqsearch.h or nqtotal.h changes.
//
//go:embed *.h *.cuh *.cu
var Sources embed.FS

// BuildSummary returns the lines of a kernels/ptx/BUILD.txt text that say
// how the PTX was made: nvcc's version ("nvcc: ...") and the flags
// ("flags: ..."), joined by a newline.
func BuildSummary(build string) string {
	var keep []string
	for _, line := range strings.Split(build, "\n") {
		if strings.HasPrefix(line, "nvcc: ") || strings.HasPrefix(line, "flags: ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// make ptx: kernels/ptx from the .cu files, with nvcc (kernels/internal/ptxgen).
//go:generate go run ./internal/ptxgen build
