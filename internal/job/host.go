package job

import (
	"context"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/boards"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// countHost counts the batch the job counts itself rather than a backend,
// if its shard has it: batch 0 of a board too small to split, by the plain
// search of package boards, or the last batch of an eightfold plan, the
// solutions fixed by the half and the quarter turn (Config.Symmetric, a
// small search next to the backends' heavy one).
func (j *Job) countHost(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	i := 0
	if !j.spec.Whole() {
		// The plan may be in the making for a minute (a large N): a
		// cancelled run does not wait for it.
		select {
		case <-j.planReady:
		case <-ctx.Done():
			return ctx.Err()
		}
		p, err := j.Plan()
		if err != nil {
			return err
		}
		i = p.Batches - 1
	}
	if !j.claim(i) {
		return nil
	}
	var part nq.Partial
	if j.spec.Whole() {
		part = nq.PartialOf(j.spec.Algo, boards.Counts(j.spec.N))
	} else {
		s90, s180, err := j.cfg.Symmetric(ctx, j.spec.N)
		if err != nil {
			return err
		}
		part = nq.Partial{0, s90, s180, 0}
	}
	j.finish(-1, []int{i}, part)
	return nil
}

// countAll counts the job's batches: the host batch, the backends' or
// both side by side.
func (j *Job) countAll(ctx context.Context) error {
	switch {
	case j.spec.Whole():
		return j.countHost(ctx)
	case j.spec.HostBatch():
		host := make(chan error, 1)
		go func() { host <- j.countHost(ctx) }()
		err := j.runBackends(ctx)
		if herr := j.waitHost(ctx, host); err == nil {
			err = herr
		}
		return err
	}
	return j.runBackends(ctx)
}

// waitHost waits for the outcome of countHost on host. Once ctx is
// cancelled it waits at most Config.StopWait more, as wait does for the
// backends; then the host batch is dropped (its late report ignored) and
// ctx's error returned.
func (j *Job) waitHost(ctx context.Context, host <-chan error) error {
	select {
	case err := <-host:
		return err
	case <-ctx.Done():
	}
	t := time.NewTimer(j.cfg.StopWait)
	defer t.Stop()
	select {
	case err := <-host:
		return err
	case <-t.C:
	}
	j.dropInHand()
	return ctx.Err()
}
