package nq

import "context"

// Backend counts the numbered task batches of a spec on one device: the
// CPU (all its cores) or one GPU. The job (internal/job) runs backends.
type Backend interface {
	// Name is "cpu" or "gpuK" for GPU ordinal K.
	Name() string
	// Count enumerates the task batches of spec (normalized, and split
	// into tasks: the job counts whole boards itself) in order, searches
	// those for which sel returns true, reports finished ones to done
	// (possibly from several goroutines at once) and returns when every
	// batch is through, or with ctx's error once ctx is cancelled.
	Count(ctx context.Context, spec Spec, sel func(batch int) bool, done func(batches []int, p Partial)) error
	// Close releases the device; the job never calls it.
	Close() error
}
