package report

import (
	"context"
	"fmt"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/benchstat"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Measure times warmup and then runs counts of n, each a call of count,
// with since as the clock. Every run must give the same counts, and they
// must match the published ones where there are some (known.Check): an
// error otherwise. It returns the result with its statistics.
func Measure(ctx context.Context, n, warmup, runs int, count func(context.Context) (nq.Counts, error),
	since func(time.Time) time.Duration) (Result, error) {
	r := Result{N: n, WarmupSeconds: []float64{}, Seconds: []float64{}}
	var first nq.Counts
	for i := 0; i < warmup+runs; i++ {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		start := time.Now()
		c, err := count(ctx)
		elapsed := since(start).Seconds()
		if err != nil {
			return r, fmt.Errorf("N=%d: %w", n, err)
		}
		if i == 0 {
			first = c
		} else if c != first {
			return r, fmt.Errorf("N=%d: run %d counted %v, run 1 counted %v", n, i+1, c, first)
		}
		if i < warmup {
			r.WarmupSeconds = append(r.WarmupSeconds, elapsed)
		} else {
			r.Seconds = append(r.Seconds, elapsed)
		}
	}
	verified, err := known.Check(n, first)
	if err != nil {
		return r, fmt.Errorf("wrong counts: %w", err)
	}
	r.Verified = verified
	r.SetCounts(first)
	st, err := benchstat.Summarize(r.Seconds)
	if err != nil {
		return r, fmt.Errorf("N=%d: %w", n, err)
	}
	r.Stats = st
	return r, nil
}

// SeriesLabel names a series from its backend, device and algorithm:
// "cpu symmetry", "gpu0 carrychain", "gpus symmetry" for several GPUs,
// or for a GPU request that ran on the CPU "cpu symmetry (gpu0 fallback)"
// ("gpus fallback" for -device all).
func SeriesLabel(s Series) string {
	dev := "cpu"
	if s.Backend != "cpu" {
		dev = gpuWord(s.Device)
	}
	l := dev + " " + s.Algo
	if s.Fallback != "" {
		l += " (" + gpuWord(s.Requested) + " fallback)"
	}
	return l
}

// gpuWord is "gpuK" for GPU K, "gpus" for several or all.
func gpuWord(device string) string {
	for _, r := range device {
		if r < '0' || r > '9' {
			return "gpus"
		}
	}
	return "gpu" + device
}
