package kernels

import "embed"

// Sources holds the kernels' C and CUDA sources: nqsearch.h, nqtotal.h,
// nqreduce.cuh, boards.cu, frames.cu, eightfold.cu and nodes.cu.
//
// Embedding them also makes this package's build depend on their content.
// The Go build cache does not track headers that a cgo package includes
// from outside its own directory, so kernels/host imports this package to
// be rebuilt whenever nqsearch.h or nqtotal.h changes.
//
//go:embed nqsearch.h nqtotal.h nqreduce.cuh boards.cu frames.cu eightfold.cu nodes.cu
var Sources embed.FS
