package gpu

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Backend runs the kernels on one GPU: a GPU device of a job
// (nq.Backend). Open makes one.
type Backend struct {
	ctx   *Context // nil in a build without CUDA
	info  DeviceInfo
	tune  Tuning
	nodes atomic.Uint64 // with Tuning.Nodes: counted since TakeNodes
}

// Open opens GPU ordinal with the default tuning.
func Open(ordinal int) (*Backend, error) { return OpenWith(ordinal, Tuning{}) }

// Info describes the backend's GPU.
func (b *Backend) Info() DeviceInfo { return b.info }

// Name is "gpuK" for GPU ordinal K.
func (b *Backend) Name() string { return "gpu" + strconv.Itoa(b.info.Ordinal) }

// Count searches the task batches of spec (normalized, and split into
// tasks: the job counts whole boards) that sel selects, reports each
// launch's batches and their summed partials to done, and returns when
// every batch is through, or with ctx's error once ctx is cancelled.
func (b *Backend) Count(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	nodes, err := b.solve(ctx, spec, sel, done)
	b.nodes.Add(nodes)
	return err
}

// TakeNodes returns the search nodes counted since the last call (with
// Tuning.Nodes; else 0) and starts again from zero.
func (b *Backend) TakeNodes() uint64 { return b.nodes.Swap(0) }
