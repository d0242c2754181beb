//go:build cuda

package gpu

import (
	"unsafe"

	"github.com/mumax/3/cuda/cu"
)

// streamLauncher queues the wrappers' launches on a stream of the current
// context (0 is the default stream); inside Context.Do. A failed launch
// panics with an *Error naming cuLaunchKernel, and Do returns it.
type streamLauncher cu.Stream

// launch is cu.LaunchKernel with a one-dimensional grid; it copies the
// argument values before it returns, so the wrapper may reuse its block.
func (s streamLauncher) launch(f kernelFunc, shape launchShape, args []unsafe.Pointer) {
	named("cuLaunchKernel", func() {
		cu.LaunchKernel(cu.Function(f), shape.blocks, 1, 1, shape.threads, 1, 1, shape.sharedBytes, cu.Stream(s), args)
	})
}
