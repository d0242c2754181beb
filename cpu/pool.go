package cpu

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// tally is a batch's 64-bit counters. orbit[k] counts what the algorithm
// adds for orbit size k (1, 2, 4 or 8): canonical solutions, solutions, or
// weighted completions, depending on the algorithm (see nq.Reduce).
type tally struct {
	orbit [9]uint64
}

func (t *tally) partial() nq.Partial {
	return nq.Partial{t.orbit[1], t.orbit[2], t.orbit[4], t.orbit[8]}
}

// batchJob is one batch and its index in the enumeration order.
type batchJob[T any] struct {
	index int
	batch T
}

// runPool runs produce in its own goroutine and hands each batch it sends to
// the first free of workers goroutines, which call work on it with a fresh
// tally. Batches are numbered in the order produce sends them; a batch whose
// index sel rejects is not searched. done, if not nil, receives each
// finished batch's index and partial sums (from several goroutines at once).
// runPool returns the sum of the finished batches. When ctx is cancelled,
// production stops, the workers' searches see stop set and return within
// milliseconds (work checks it between tasks, the eightfold search inside
// a task too), the batches in hand are dropped without a report (the next
// run counts them again), and ctx's error is returned. An error from
// produce is returned as is.
func runPool[T any](ctx context.Context, workers int, sel func(int) bool, done func([]int, nq.Partial),
	produce func(send func(T) error) error, work func(T, *tally, *atomic.Bool)) (nq.Partial, error) {
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// stop is ctx's cancellation as one atomic load, cheap enough for
	// the searches to look at it after every task.
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	jobs := make(chan batchJob[T], 2*workers)
	results := make([]nq.Partial, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(sum *nq.Partial) {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain without working
				}
				var t tally
				work(j.batch, &t, &stop)
				if stop.Load() {
					// Cut short, or finished as the stop came:
					// not reported either way.
					continue
				}
				p := t.partial()
				sum.Add(p)
				if done != nil {
					done([]int{j.index}, p)
				}
			}
		}(&results[w])
	}
	next := 0
	perr := produce(func(b T) error {
		i := next
		next++
		if sel != nil && !sel(i) {
			return ctx.Err()
		}
		select {
		case jobs <- batchJob[T]{i, b}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(jobs)
	wg.Wait()
	var sum nq.Partial
	for i := range results {
		sum.Add(results[i])
	}
	if err := ctx.Err(); err != nil && perr == nil {
		perr = err
	}
	return sum, perr
}
