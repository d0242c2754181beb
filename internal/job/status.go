package job

import (
	"errors"
	"fmt"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Status is a snapshot of a job's progress.
type Status struct {
	// DoneBatches is the number of finished batches of the shard,
	// including those of earlier runs (ResumedBatches of them).
	DoneBatches, ResumedBatches int
	// The totals are 0 while the plan is not known.
	TotalBatches int
	// DoneTasks, ResumedTasks and TotalTasks count tasks the same way;
	// they are exact once the plan is known.
	DoneTasks, ResumedTasks, TotalTasks int64
	// Elapsed is the time since Run started.
	Elapsed time.Duration
	// Workers lists each backend's name and the batches it finished in
	// this run.
	Workers []WorkerStatus
}

// WorkerStatus is one backend's share of a run.
type WorkerStatus struct {
	Name    string
	Batches int
}

// Status returns the job's progress. It is safe to call at any time.
func (j *Job) Status() Status {
	var s Status
	var p *plan.Plan
	select {
	case <-j.planReady:
		if j.planErr == nil {
			p = &j.plan
		}
	default:
	}
	batch := int64(j.spec.Batch)
	j.mu.Lock()
	s.DoneBatches = j.nDone
	if j.resumed != nil {
		s.ResumedBatches = j.resumed.Body.DoneBatches
	}
	for i, b := range j.cfg.Backends {
		s.Workers = append(s.Workers, WorkerStatus{b.Name(), j.perWorker[i]})
	}
	started := j.started
	s.DoneTasks, s.ResumedTasks = int64(s.DoneBatches)*batch, int64(s.ResumedBatches)*batch
	if p != nil {
		s.TotalBatches = j.cfg.Shard.Batches(p.Batches)
		s.TotalTasks = int64(s.TotalBatches) * batch
		// Only the last one or two batches hold fewer than batch tasks
		// (the backends' last, and a host batch).
		for i := max(0, p.Batches-2); i < p.Batches; i++ {
			short := batch - p.BatchTasks(i)
			if short == 0 || !j.cfg.Shard.Has(i) {
				continue
			}
			s.TotalTasks -= short
			if j.done.Has(i) {
				s.DoneTasks -= short
			}
			if j.resumed != nil && j.resumed.Done.Has(i) {
				s.ResumedTasks -= short
			}
		}
	}
	j.mu.Unlock()
	if !started.IsZero() {
		s.Elapsed = j.cfg.Now().Sub(started)
	}
	return s
}

// Result is the outcome of Run.
type Result struct {
	// Plan is the job's plan when it was made (HavePlan).
	Plan     plan.Plan
	HavePlan bool
	// Partial sums the partials of the finished batches of the shard,
	// Batches counts them.
	Partial nq.Partial
	Batches int
	// Counts are the exact counts of a whole job that is complete.
	Counts   nq.Counts
	Complete bool
	// Elapsed is the time of this run, Seconds that of every run of the
	// job (from the checkpoint) in seconds.
	Elapsed time.Duration
	Seconds float64
	// AlreadyComplete is set when the checkpoint held a complete job and
	// there was nothing left to do.
	AlreadyComplete bool
	// Saved is set when the checkpoint file was written as Run returned.
	Saved bool
	// Dropped is the number of batches that were in hand when ctx was
	// cancelled and did not finish within Config.StopWait: they are not
	// done, and the next run counts them.
	Dropped int
}

// ErrIncomplete is returned when the backends finished without covering
// every batch of the shard.
var ErrIncomplete = errors.New("job: batches are missing")

// check verifies, when the plan is known, that exactly the batches of the
// shard are done.
func (j *Job) check() error {
	j.mu.Lock()
	repeated := j.repeated
	j.mu.Unlock()
	if repeated != nil {
		return repeated
	}
	p, err := j.Plan()
	if err == errNoPlan {
		return nil
	}
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.repeated != nil {
		return j.repeated
	}
	want := j.cfg.Shard.Batches(p.Batches)
	if j.nDone != want || j.done.Max() >= p.Batches {
		return fmt.Errorf("%w: %d of %d batches counted (highest index %d of %d)", ErrIncomplete, j.nDone, want, j.done.Max(), p.Batches)
	}
	return nil
}

func (j *Job) result(complete bool) Result {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := Result{Partial: j.sum, Batches: j.nDone, Complete: complete, Dropped: j.dropped}
	select {
	case <-j.planReady:
		r.Plan, r.HavePlan = j.plan, j.planErr == nil
	default:
	}
	r.Elapsed = j.cfg.Now().Sub(j.started)
	r.Seconds = j.prevSec + r.Elapsed.Seconds()
	if j.resumed != nil && j.resumed.Body.Complete {
		r.AlreadyComplete, r.Complete = true, true
		r.Elapsed, r.Seconds = 0, j.prevSec
		if j.cfg.Shard.Whole() {
			r.Counts, _ = nq.Reduce(j.spec.Algo, j.sum)
		}
	}
	return r
}
