package job

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Run counts the job's batches with its backends and returns the result.
//
// Every backend runs at once and goes through the batches in order; the
// first to reach a batch that is not yet done claims and searches it: one
// queue shared by all. A backend that fails leaves its claimed batches to
// the others; the job fails only when every backend has failed. When ctx
// is cancelled, no further batch is handed out, the batches in hand get
// Config.StopWait to finish and are dropped if they do not
// (Result.Dropped), the checkpoint is written and ctx's error returned
// with the partial result.
func (j *Job) Run(ctx context.Context) (Result, error) {
	defer j.Close()
	if j.resumed != nil && j.resumed.Body.Complete {
		j.start()
		return j.result(true), nil
	}
	// Once ctx is cancelled no batch is handed out any more.
	stopClaims := context.AfterFunc(ctx, func() { j.stopped.Store(true) })
	defer stopClaims()
	j.startPlan(ctx)
	// Started after a recorded plan is set, so that a status with an
	// elapsed time has its total.
	j.start()
	stopSaver, err := j.startSaver(ctx)
	if err != nil {
		return j.result(false), err
	}
	err = j.countAll(ctx)
	stopSaver()
	if err == nil && j.verified != nil {
		if err = j.waitVerified(ctx); err != nil && ctx.Err() == nil {
			// The task list is not the recorded one: the batches
			// counted under its numbers mean nothing, and the
			// checkpoint is not written again.
			return j.result(false), err
		}
	}
	return j.end(err)
}

func (j *Job) start() {
	j.mu.Lock()
	j.started = j.cfg.Now()
	j.mu.Unlock()
}

var errNoPlan = errors.New("job: no plan was asked for")

// startPlan sets the plan, or starts making it beside the backends, where
// the job needs it (a checkpoint has made it already). A recorded plan is
// set at once, so that progress reports have their total from the start,
// and checked beside the backends.
func (j *Job) startPlan(ctx context.Context) {
	switch {
	case j.cfg.Checkpoint != "":
	case j.cfg.NeedPlan || !j.cfg.Shard.Whole() || j.spec.HostBatch():
		if _, ok := plan.Known(j.spec); ok && j.cfg.Plan == nil {
			j.setPlan(j.makePlan(ctx))
		} else {
			go func() { j.setPlan(j.makePlan(ctx)) }()
		}
	default:
		j.setPlan(plan.Plan{}, errNoPlan)
	}
	if !j.known {
		return
	}
	// A mismatch stops the claims and fails the run (Run).
	j.verified = make(chan error, 1)
	go func() {
		err := plan.Verify(ctx, j.spec, j.plan)
		if err != nil && ctx.Err() == nil {
			j.stopped.Store(true)
		}
		j.verified <- err
	}()
}

// waitVerified waits for the check of a recorded plan.
func (j *Job) waitVerified(ctx context.Context) error {
	select {
	case err := <-j.verified:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// end checks the counted batches (after err, the outcome of counting),
// reduces a complete whole job to its counts and writes the checkpoint.
func (j *Job) end(err error) (Result, error) {
	if err == nil {
		err = j.check()
	}
	complete := err == nil
	res := j.result(complete)
	if complete && j.cfg.Shard.Whole() {
		res.Counts, err = nq.Reduce(j.spec.Algo, res.Partial)
		if err != nil {
			// A bug, not a state to resume from: keep the last
			// checkpoint as it is.
			return res, err
		}
	}
	if j.cfg.Checkpoint == "" {
		return res, err
	}
	if serr := j.save(complete); serr != nil {
		if err == nil {
			err = fmt.Errorf("writing checkpoint %s: %w", j.cfg.Checkpoint, serr)
		}
		return res, err
	}
	res.Saved = true
	return res, err
}

// startSaver writes the checkpoint at once, which checks that it can be
// written, and then every Config.CheckpointInterval until the returned
// stop is called. Without a checkpoint it does nothing.
func (j *Job) startSaver(ctx context.Context) (stop func(), err error) {
	if j.cfg.Checkpoint == "" {
		return func() {}, nil
	}
	if err := j.save(false); err != nil {
		return nil, fmt.Errorf("writing checkpoint %s: %w", j.cfg.Checkpoint, err)
	}
	tick := time.NewTicker(j.cfg.CheckpointInterval)
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-tick.C:
				if ctx.Err() != nil {
					// Stopping: Run saves next, and must not
					// wait for a save before it.
					continue
				}
				if err := j.save(false); err != nil && j.cfg.Warn != nil {
					j.cfg.Warn(fmt.Sprintf("writing checkpoint %s: %v (will try again)", j.cfg.Checkpoint, err))
				}
			case <-quit:
				return
			}
		}
	}()
	return func() { tick.Stop(); close(quit); <-finished }, nil
}

// save writes the checkpoint with the batches done so far.
func (j *Job) save(complete bool) error {
	now := j.cfg.Now()
	j.mu.Lock()
	c := &checkpoint.State{Done: j.done.Clone(), Body: checkpoint.Body{
		Program:     "nqueens-gpu",
		Version:     j.cfg.Version,
		Job:         j.plan,
		Fingerprint: j.plan.Fingerprint(),
		Shard:       j.cfg.Shard,
		Complete:    complete,
		DoneBatches: j.nDone,
		Partial:     j.sum,
		Seconds:     j.prevSec + now.Sub(j.started).Seconds(),
		Runs:        j.runs + 1,
		Created:     j.created,
		Updated:     now.UTC(),
		Command:     j.cfg.Args,
	}}
	if c.Body.Created.IsZero() {
		c.Body.Created = now.UTC()
		j.created = c.Body.Created
	}
	j.mu.Unlock()
	return checkpoint.Write(j.cfg.Checkpoint, c)
}

// Count runs the job of cfg (Spec, Backends, and optionally Plan and
// Symmetric; no checkpoint, no shard) and returns its exact counts: the
// whole of a count for callers that need no long-run support.
func Count(ctx context.Context, cfg Config) (nq.Counts, error) {
	j, err := New(Config{Spec: cfg.Spec, Backends: cfg.Backends, Plan: cfg.Plan, Symmetric: cfg.Symmetric})
	if err != nil {
		return nq.Counts{}, err
	}
	res, err := j.Run(ctx)
	if err != nil {
		return nq.Counts{}, err
	}
	return res.Counts, nil
}
