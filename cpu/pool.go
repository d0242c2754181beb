package cpu

import (
	"context"
	"sync"
)

// tally is one worker's 64-bit counters. orbit[k] counts what the
// algorithm adds for orbit size k (1, 2, 4 or 8): canonical solutions,
// solutions, or weighted completions, depending on the algorithm.
type tally struct {
	orbit [9]uint64
}

func (t *tally) add(o *tally) {
	for i := range t.orbit {
		t.orbit[i] += o.orbit[i]
	}
}

// runPool runs produce in its own goroutine and hands each batch it sends to
// the first free of workers goroutines, which call work on it with their own
// tally. It returns the sum of the tallies. When ctx is cancelled,
// production stops, workers finish the batch in hand, and ctx's error is
// returned. An error from produce is returned as is.
func runPool[T any](ctx context.Context, workers int, produce func(send func(T) error) error, work func(T, *tally)) (tally, error) {
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan T, 2*workers)
	results := make([]tally, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(t *tally) {
			defer wg.Done()
			for job := range jobs {
				if ctx.Err() != nil {
					continue // drain without working
				}
				work(job, t)
			}
		}(&results[w])
	}
	perr := produce(func(job T) error {
		select {
		case jobs <- job:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(jobs)
	wg.Wait()
	var sum tally
	for i := range results {
		sum.add(&results[i])
	}
	if err := ctx.Err(); err != nil && perr == nil {
		perr = err
	}
	return sum, perr
}
