//go:build cuda

package main

import (
	"fmt"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/kernels"
)

// cudaDetails reports the PTX build and the CUDA version of the driver;
// without a driver the version stays empty.
func cudaDetails() cudaInfo {
	d := cudaInfo{build: true, ptx: strings.TrimSpace(kernels.Build())}
	if v, _, err := gpu.DriverVersion(); err == nil && v > 0 {
		// cuDriverGetVersion: 1000*major + 10*minor.
		d.driver = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	}
	return d
}
