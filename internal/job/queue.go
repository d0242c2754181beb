package job

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// claim hands batch i to the first backend that asks for it.
func (j *Job) claim(i int) bool {
	if !j.cfg.Shard.Has(i) || j.stopped.Load() {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.claimed.Has(i) {
		return false
	}
	j.claimed.Add(i)
	j.nClaimed++
	return true
}

// finish records batches as done by backend w (-1 for the job itself). A
// report that repeats a finished batch is a bug: adding it would count
// twice, and its partial cannot be split, so none of it is kept and the
// job fails (its missing batches stay to be counted by a later run).
func (j *Job) finish(w int, batches []int, p nq.Partial) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.abandoned {
		return
	}
	// One pass, so that a GPU launch of many small batches costs time
	// in proportion to its size: mark each batch done, and on a repeat
	// take back the marks of this report.
	for k, i := range batches {
		if j.done.Has(i) {
			for _, b := range batches[:k] {
				j.done.Remove(b)
			}
			if j.repeated == nil {
				who := "the job"
				if w >= 0 {
					who = j.cfg.Backends[w].Name()
				}
				j.repeated = fmt.Errorf("job: %s reported batch %d twice; its report was not counted", who, i)
			}
			return
		}
		j.done.Add(i)
	}
	j.nDone += len(batches)
	if w >= 0 {
		j.perWorker[w] += len(batches)
	}
	j.sum.Add(p)
	j.shareDone(w, batches)
}

// runBackends runs the backends in passes until every batch is done, ctx
// is cancelled or every backend has failed. A backend that fails leaves
// its claimed batches to the others, which take them in the next pass.
func (j *Job) runBackends(ctx context.Context) error {
	alive := make([]bool, len(j.cfg.Backends))
	for i := range alive {
		alive[i] = true
	}
	var firstErr error
	for {
		errs, ok := j.pass(ctx, alive)
		if !ok {
			return ctx.Err()
		}
		if err := ctx.Err(); err != nil {
			j.stopped.Store(true)
			return err
		}
		failed := j.retire(errs, alive, &firstErr)
		if failed == 0 {
			return nil
		}
		if !anyAlive(alive) {
			return firstErr
		}
		// Release the batches the failed backends had claimed. With
		// none of the others left, the beside backends count alone.
		j.mu.Lock()
		j.claimed, j.nClaimed = j.done.Clone(), j.nDone
		clear(j.share.claimed)
		if !anyAlive(alive[:len(alive)-j.cfg.Beside]) {
			j.share.alone = true
		}
		j.mu.Unlock()
	}
}

// pass runs every live backend once, side by side, and returns their
// errors; ok is false when ctx was cancelled and they did not stop in
// time (see wait).
func (j *Job) pass(ctx context.Context, alive []bool) (errs []error, ok bool) {
	errs = make([]error, len(j.cfg.Backends))
	var wg sync.WaitGroup
	for i, b := range j.cfg.Backends {
		if !alive[i] {
			continue
		}
		wg.Add(1)
		go func(i int, b Backend) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = fmt.Errorf("panic: %v", r)
				}
			}()
			errs[i] = b.Count(ctx, j.spec, j.claimFor(i), func(bs []int, p nq.Partial) { j.finish(i, bs, p) })
		}(i, b)
	}
	return errs, j.wait(ctx, &wg)
}

// retire marks the backends whose pass failed as dead, keeps the first
// error in firstErr, warns when others go on, and returns how many failed.
func (j *Job) retire(errs []error, alive []bool, firstErr *error) int {
	failed := 0
	for i, err := range errs {
		if !alive[i] || err == nil {
			continue
		}
		alive[i] = false
		failed++
		if len(j.cfg.Backends) > 1 {
			err = fmt.Errorf("%s: %w", j.cfg.Backends[i].Name(), err)
		}
		if *firstErr == nil {
			*firstErr = err
		}
		if j.cfg.Warn != nil && anyAlive(alive) {
			j.cfg.Warn(err.Error() + "; the other devices take over its batches")
		}
	}
	return failed
}

// wait waits for the backends of wg. Once ctx is cancelled it waits at
// most Config.StopWait more; then it drops the batches in hand, whose
// backends go on in the background with their reports ignored, and
// returns false.
func (j *Job) wait(ctx context.Context, wg *sync.WaitGroup) bool {
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
		return true
	case <-ctx.Done():
	}
	j.stopped.Store(true)
	t := time.NewTimer(j.cfg.StopWait)
	defer t.Stop()
	select {
	case <-finished:
		return true
	case <-t.C:
	}
	j.dropInHand()
	return false
}

// dropInHand gives up the batches in hand after a stop: their late
// reports are ignored, and the result counts them as dropped.
func (j *Job) dropInHand() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.abandoned = true
	j.dropped = j.claimed.Count() - j.done.Count()
}

func anyAlive(alive []bool) bool {
	for _, a := range alive {
		if a {
			return true
		}
	}
	return false
}
