package gpu

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Backend runs the kernels on one GPU: the GPU device of the device layer
// (internal/device). Open makes one.
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
// launch's batches to done, and returns when every batch is through or
// ctx is cancelled (with ctx's error).
func (b *Backend) Count(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
	opt := Options{Depth: spec.Depth, Batch: spec.Batch, Select: sel, Done: done,
		Threads: b.tune.Threads, LaunchTime: b.tune.LaunchTime, MaxTasks: b.tune.MaxTasks, Variant: b.tune.Variant, Dynamic: b.tune.Dynamic,
		SharedStack: b.tune.SharedStack, Trace: b.tune.Trace}
	var nodes uint64
	if b.tune.Nodes {
		opt.Nodes = &nodes
	}
	_, err := b.SolvePartial(ctx, spec.N, spec.Algo, opt)
	b.nodes.Add(nodes)
	return err
}

// TakeNodes returns the search nodes counted since the last call (with
// Tuning.Nodes; else 0) and starts again from zero.
func (b *Backend) TakeNodes() uint64 { return b.nodes.Swap(0) }

// Solve counts the solutions of the n-queens problem with algo on the GPU:
// a job (internal/job) with this backend as its only worker, with boards
// as deep as this GPU needs (nq.Spec with its SM count).
func (b *Backend) Solve(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error) {
	spec := nq.Spec{N: n, Algo: algo, SMs: []int{b.info.SMs}}.Normalize()
	return job.Count(ctx, job.Config{Spec: spec, Workers: []job.Worker{{Name: b.Name(), Run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		return b.Count(ctx, spec, sel, done)
	}}}})
}
