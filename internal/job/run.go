package job

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/boards"
	"github.com/nqueens-gpu/nqueens-gpu/internal/burnside"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Worker is one device that searches batches: the CPU (all its cores) or
// one GPU. Run enumerates the job's task batches in order and searches
// those for which sel returns true, calling done as batches finish (with
// their indexes and summed partials; done may be called from several
// goroutines at once). It returns when it has been through every batch, or
// ctx's error once ctx is cancelled. The device layer (internal/device)
// makes workers of the CPU and GPU backends. A job whose board is too
// small to split (nq.Spec.Whole) counts it itself and runs no worker.
type Worker struct {
	Name string // "cpu", "gpu0", ...
	Run  func(ctx context.Context, sel func(batch int) bool, done func(batches []int, p nq.Partial)) error
}

// Config sets up a job.
type Config struct {
	Spec    nq.Spec
	Shard   Shard
	Workers []Worker
	// Plan makes the plan of a spec; nil means the job's own: the
	// recorded plan (KnownPlan) at once where there is one, checked
	// against MakePlanContext while the workers count, else
	// MakePlanContext. Either stops when the run's context is cancelled.
	Plan func(nq.Spec) (Plan, error)
	// NeedPlan asks for the plan (batch count, fingerprint) even without a
	// checkpoint or a shard, for progress reports and the final check that
	// every batch was counted. It is then made while the workers start.
	NeedPlan bool
	// Checkpoint, if not "", is the checkpoint file: it is read by New,
	// and written every CheckpointInterval (default one minute) and when
	// Run returns.
	Checkpoint         string
	CheckpointInterval time.Duration
	// Args is the command line, kept in the checkpoint for reference.
	Args []string
	// Version is the program's version for the checkpoint; "" means
	// Version().
	Version string
	// Warn, if not nil, receives messages about trouble the job survives:
	// a worker that failed while others went on, a periodic checkpoint
	// that could not be written.
	Warn func(msg string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Symmetric counts the solutions of n fixed by the quarter and the
	// half turn, the host batch of an eightfold job; nil means
	// burnside.Symmetric.
	Symmetric func(ctx context.Context, n int) (s90, s180 uint64, err error)
	// StopWait is how long Run waits, once ctx is cancelled, for the
	// batches in hand to finish; then it drops them (they are counted
	// again by the next run) and returns. 0 means DefaultStopWait.
	StopWait time.Duration
}

// DefaultStopWait is the default of Config.StopWait: a signal ends a
// run within a few seconds at every N, although a batch at large N may
// take minutes.
const DefaultStopWait = 2 * time.Second

// Job is one count in progress.
type Job struct {
	cfg  Config
	spec nq.Spec

	planReady chan struct{} // closed when plan or planErr is set
	plan      Plan
	planErr   error
	// known is set when the plan is the recorded one (KnownPlan), to be
	// checked by Run; verified then receives the check's outcome.
	known    bool
	verified chan error

	// resumed is what the checkpoint held when the job started.
	resumed        *checkpoint
	resumedBatches int
	lock           *fsutil.Lock // of the checkpoint, until Run returns

	mu        sync.Mutex
	claimed   bitset // handed to a worker (includes done)
	done      bitset // finished
	nDone     int
	sum       nq.Partial
	perWorker []int
	stopped   atomic.Bool // no more claims
	// abandoned is set when Run stopped waiting for the batches in
	// hand: their reports are dropped from then on. dropped counts
	// them.
	abandoned bool
	dropped   int
	// repeated is set when a worker reports a batch that is already
	// done: its partial is not added and the job fails.
	repeated error

	started time.Time
	created time.Time
	runs    int
	prevSec float64
}

// New prepares a job. With a checkpoint file it makes the plan at once,
// reads the file and checks that it was made for the same job and shard:
// a *CheckpointError otherwise, and the file is not touched.
func New(cfg Config) (*Job, error) {
	return NewContext(context.Background(), cfg)
}

// NewContext is New, whose plan (made at once with a checkpoint file)
// stops when ctx is cancelled, with ctx's error.
func NewContext(ctx context.Context, cfg Config) (*Job, error) {
	spec := cfg.Spec.Normalize()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Workers) == 0 && !spec.Whole() {
		return nil, errors.New("job: no workers")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Symmetric == nil {
		cfg.Symmetric = burnside.Symmetric
	}
	if cfg.Version == "" {
		cfg.Version = Version()
	}
	if cfg.CheckpointInterval <= 0 {
		cfg.CheckpointInterval = time.Minute
	}
	if cfg.Shard.Whole() {
		cfg.Shard = Shard{Index: 0, Count: 1}
	}
	j := &Job{cfg: cfg, spec: spec, planReady: make(chan struct{}), perWorker: make([]int, len(cfg.Workers))}
	if cfg.Checkpoint == "" {
		return j, nil
	}
	// Lock and read the file first: a file in use by another run, one
	// that cannot be written and a damaged one are refused before any
	// work. The lock is held until Run returns or Close.
	if err := j.lockCheckpoint(); err != nil {
		return nil, err
	}
	opened := false
	defer func() {
		if !opened {
			j.Close()
		}
	}()
	ck, err := loadCheckpoint(cfg.Checkpoint)
	if err != nil {
		return nil, err
	}
	j.setPlan(j.makePlan(ctx))
	if j.planErr != nil {
		return nil, j.planErr
	}
	if j.plan.Batches > MaxBatches {
		return nil, fmt.Errorf("job: %d batches, more than the %d a checkpoint holds: use a smaller -depth", j.plan.Batches, MaxBatches)
	}
	if ck != nil {
		b := &ck.body
		if why := b.Job.mismatch(j.plan); why != "" {
			return nil, &CheckpointError{Path: cfg.Checkpoint, Reason: "was made for another job: " + why}
		}
		if b.Shard != cfg.Shard {
			return nil, &CheckpointError{Path: cfg.Checkpoint, Reason: fmt.Sprintf("was made for shard %v, not shard %v", b.Shard, cfg.Shard)}
		}
		if b.Version != cfg.Version && j.cfg.Warn != nil {
			j.cfg.Warn(fmt.Sprintf("checkpoint %s was written by version %s, this is %s; the task list is the same, resuming",
				cfg.Checkpoint, b.Version, cfg.Version))
		}
		j.resumed = ck
		j.done, j.claimed = ck.done.clone(), ck.done.clone()
		j.nDone, j.resumedBatches = b.DoneBatches, b.DoneBatches
		j.sum = b.Partial
		j.created, j.runs, j.prevSec = b.Created, b.Runs, b.Seconds
	}
	opened = true
	return j, nil
}

// makePlan makes the job's plan with Config.Plan, or else takes the
// recorded one (marking it to be checked) or makes it with
// MakePlanContext.
func (j *Job) makePlan(ctx context.Context) (Plan, error) {
	if j.cfg.Plan != nil {
		return j.cfg.Plan(j.spec)
	}
	if p, ok := KnownPlan(j.spec); ok {
		j.known = true
		return p, nil
	}
	return MakePlanContext(ctx, j.spec)
}

func (j *Job) setPlan(p Plan, err error) {
	j.plan, j.planErr = p, err
	close(j.planReady)
}

// Plan returns the job's plan, waiting for it if it is being made.
func (j *Job) Plan() (Plan, error) {
	<-j.planReady
	return j.plan, j.planErr
}

// claim hands batch i to the first worker that asks for it.
func (j *Job) claim(i int) bool {
	if !j.cfg.Shard.Has(i) || j.stopped.Load() {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.claimed.has(i) {
		return false
	}
	j.claimed.add(i)
	return true
}

// finish records batches as done by worker w (-1 for the job itself). A report that repeats a
// finished batch is a bug: adding it would count twice, and its partial
// cannot be split, so none of it is kept and the job fails (its missing
// batches stay to be counted by a later run).
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
		if j.done.has(i) {
			for _, b := range batches[:k] {
				j.done.remove(b)
			}
			if j.repeated == nil {
				who := "the job"
				if w >= 0 {
					who = j.cfg.Workers[w].Name
				}
				j.repeated = fmt.Errorf("job: %s reported batch %d twice; its report was not counted", who, i)
			}
			return
		}
		j.done.add(i)
	}
	j.nDone += len(batches)
	if w >= 0 { // -1: the job itself
		j.perWorker[w] += len(batches)
	}
	j.sum.Add(p)
}

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
	// Workers lists each worker's name and the batches it finished in
	// this run.
	Workers []WorkerStatus
}

// WorkerStatus is one worker's share of a run.
type WorkerStatus struct {
	Name    string
	Batches int
}

// Status returns the job's progress. It is safe to call at any time.
func (j *Job) Status() Status {
	var s Status
	var p *Plan
	select {
	case <-j.planReady:
		if j.planErr == nil {
			p = &j.plan
		}
	default:
	}
	batch := int64(j.spec.Batch)
	j.mu.Lock()
	s.DoneBatches, s.ResumedBatches = j.nDone, j.resumedBatches
	for i, w := range j.cfg.Workers {
		s.Workers = append(s.Workers, WorkerStatus{w.Name, j.perWorker[i]})
	}
	started := j.started
	s.DoneTasks, s.ResumedTasks = int64(s.DoneBatches)*batch, int64(s.ResumedBatches)*batch
	if p != nil {
		s.TotalBatches = j.cfg.Shard.Batches(p.Batches)
		s.TotalTasks = int64(s.TotalBatches) * batch
		// Only the last one or two batches hold fewer than batch tasks
		// (the workers' last, and a host batch).
		for i := max(0, p.Batches-2); i < p.Batches; i++ {
			short := batch - p.BatchTasks(i)
			if short == 0 || !j.cfg.Shard.Has(i) {
				continue
			}
			s.TotalTasks -= short
			if j.done.has(i) {
				s.DoneTasks -= short
			}
			if j.resumed != nil && j.resumed.done.has(i) {
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
	Plan     Plan
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

// ErrIncomplete is returned when the workers finished without covering
// every batch of the shard.
var ErrIncomplete = errors.New("job: batches are missing")

// Run counts the job's batches with its workers and returns the result.
//
// Every worker runs at once and goes through the batches in order; the
// first to reach a batch that is not yet done claims and searches it: one
// queue shared by all. A worker that fails leaves its claimed batches to
// the others, which take them in a further pass; the job fails only when
// every worker has failed. When ctx is cancelled, no further batch is
// handed out, the batches in hand are given Config.StopWait to finish and
// are dropped if they do not (Result.Dropped counts them), the checkpoint
// is written and ctx's error returned with the partial result.
func (j *Job) Run(ctx context.Context) (Result, error) {
	defer j.Close()
	start := func() {
		j.mu.Lock()
		j.started = j.cfg.Now()
		j.mu.Unlock()
	}
	if j.resumed != nil && j.resumed.body.Complete {
		start()
		return j.result(true), nil
	}
	// Once ctx is cancelled no batch is handed out any more.
	stopClaims := context.AfterFunc(ctx, func() { j.stopped.Store(true) })
	defer stopClaims()
	if j.cfg.Checkpoint == "" && (j.cfg.NeedPlan || !j.cfg.Shard.Whole() || j.spec.HostBatch()) {
		if _, ok := KnownPlan(j.spec); ok && j.cfg.Plan == nil {
			// The recorded plan, at once, so that progress reports
			// have their total from the start.
			j.setPlan(j.makePlan(ctx))
		} else {
			go func() { j.setPlan(j.makePlan(ctx)) }()
		}
	} else if j.cfg.Checkpoint == "" {
		j.setPlan(Plan{}, errNoPlan)
	}
	// Started after a recorded plan is set, so that a status with an
	// elapsed time has its total.
	start()
	if j.known {
		// The recorded plan is checked while the workers count; a
		// mismatch stops the claims and fails the run (below).
		j.verified = make(chan error, 1)
		go func() {
			err := verifyPlan(ctx, j.spec, j.plan)
			if err != nil && ctx.Err() == nil {
				j.stopped.Store(true)
			}
			j.verified <- err
		}()
	}

	var saveErr error
	stopSaver := func() {}
	if j.cfg.Checkpoint != "" {
		// The first write checks at once that the file can be written.
		if err := j.save(false); err != nil {
			return j.result(false), fmt.Errorf("writing checkpoint %s: %w", j.cfg.Checkpoint, err)
		}
		tick := time.NewTicker(j.cfg.CheckpointInterval)
		quit, finished := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(finished)
			for {
				select {
				case <-tick.C:
					if ctx.Err() != nil {
						// Stopping: Run saves next, and must
						// not wait for a save before it.
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
		stopSaver = func() { tick.Stop(); close(quit); <-finished }
	}

	var err error
	switch {
	case j.spec.Whole():
		err = j.countHost(ctx)
	case j.spec.HostBatch():
		host := make(chan error, 1)
		go func() { host <- j.countHost(ctx) }()
		err = j.runWorkers(ctx)
		if herr := j.waitHost(ctx, host); err == nil {
			err = herr
		}
	default:
		err = j.runWorkers(ctx)
	}
	stopSaver()
	if err == nil && j.verified != nil {
		select {
		case err = <-j.verified:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil && ctx.Err() == nil {
			// The task list is not the recorded one: the batches
			// counted under its numbers mean nothing, and the
			// checkpoint is not written again.
			return j.result(false), err
		}
	}
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
	if j.cfg.Checkpoint != "" {
		if serr := j.save(complete); serr != nil {
			saveErr = fmt.Errorf("writing checkpoint %s: %w", j.cfg.Checkpoint, serr)
		} else {
			res.Saved = true
		}
	}
	if err == nil {
		err = saveErr
	}
	return res, err
}

var errNoPlan = errors.New("job: no plan was asked for")

// countHost counts the batch the job counts itself rather than a worker,
// if its shard has it (batch 0 of a whole board, the last of an eightfold
// plan): a board too small to split, by
// the plain search of package boards; the solutions of an eightfold count
// fixed by the half and the quarter turn, by package burnside (a small
// search next to the workers' heavy one).
func (j *Job) countHost(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	i := 0
	if !j.spec.Whole() {
		// The plan may be in the making for a minute (a large N):
		// a cancelled run does not wait for it.
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

// runWorkers runs the workers in passes until every batch is done, ctx is
// cancelled or every worker has failed.
func (j *Job) runWorkers(ctx context.Context) error {
	alive := make([]bool, len(j.cfg.Workers))
	for i := range alive {
		alive[i] = true
	}
	var firstErr error
	for {
		errs := make([]error, len(j.cfg.Workers))
		var wg sync.WaitGroup
		for i, w := range j.cfg.Workers {
			if !alive[i] {
				continue
			}
			wg.Add(1)
			go func(i int, w Worker) {
				defer wg.Done()
				defer func() {
					if r := recover(); r != nil {
						errs[i] = fmt.Errorf("panic: %v", r)
					}
				}()
				errs[i] = w.Run(ctx, j.claim, func(b []int, p nq.Partial) { j.finish(i, b, p) })
			}(i, w)
		}
		if !j.wait(ctx, &wg) {
			return ctx.Err()
		}
		if err := ctx.Err(); err != nil {
			j.stopped.Store(true)
			return err
		}
		failed := 0
		for i, err := range errs {
			if alive[i] && err != nil {
				alive[i] = false
				failed++
				if len(j.cfg.Workers) > 1 {
					err = fmt.Errorf("%s: %w", j.cfg.Workers[i].Name, err)
				}
				if firstErr == nil {
					firstErr = err
				}
				if j.cfg.Warn != nil && j.anyAlive(alive) {
					j.cfg.Warn(err.Error() + "; the other devices take over its batches")
				}
			}
		}
		if failed == 0 {
			return nil
		}
		if !j.anyAlive(alive) {
			return firstErr
		}
		// Release the batches the failed workers had claimed.
		j.mu.Lock()
		j.claimed = j.done.clone()
		j.mu.Unlock()
	}
}

// wait waits for the workers of wg. Once ctx is cancelled it waits at
// most Config.StopWait more; then it drops the batches in hand, whose
// workers go on in the background with their reports ignored, and
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
	t := time.NewTimer(j.stopWait())
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
	j.dropped = j.claimed.count() - j.done.count()
}

// stopWait is how long a stopped job waits for a batch in hand:
// Config.StopWait, or DefaultStopWait.
func (j *Job) stopWait() time.Duration {
	if j.cfg.StopWait > 0 {
		return j.cfg.StopWait
	}
	return DefaultStopWait
}

// waitHost waits for the outcome of countHost on host. Once ctx is
// cancelled it waits at most Config.StopWait more, as wait does for the
// workers; then the host batch is dropped (its late report ignored) and
// ctx's error returned.
func (j *Job) waitHost(ctx context.Context, host <-chan error) error {
	select {
	case err := <-host:
		return err
	case <-ctx.Done():
	}
	t := time.NewTimer(j.stopWait())
	defer t.Stop()
	select {
	case err := <-host:
		return err
	case <-t.C:
	}
	j.dropInHand()
	return ctx.Err()
}

func (j *Job) anyAlive(alive []bool) bool {
	for _, a := range alive {
		if a {
			return true
		}
	}
	return false
}

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
	if j.nDone != want || j.done.max() >= p.Batches {
		return fmt.Errorf("%w: %d of %d batches counted (highest index %d of %d)", ErrIncomplete, j.nDone, want, j.done.max(), p.Batches)
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
	if j.resumed != nil && j.resumed.body.Complete {
		r.AlreadyComplete, r.Complete = true, true
		r.Elapsed, r.Seconds = 0, j.prevSec
		if j.cfg.Shard.Whole() {
			r.Counts, _ = nq.Reduce(j.spec.Algo, j.sum)
		}
	}
	return r
}

// save writes the checkpoint with the batches done so far.
func (j *Job) save(complete bool) error {
	now := j.cfg.Now()
	j.mu.Lock()
	c := &checkpoint{done: j.done.clone()}
	c.body = checkpointBody{
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
	}
	if c.body.Created.IsZero() {
		c.body.Created = now.UTC()
		j.created = c.body.Created
	}
	j.mu.Unlock()
	data, err := encodeCheckpoint(c)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(j.cfg.Checkpoint, data, 0o666)
}

// Count runs the job of cfg (Spec, Workers, and optionally Plan and
// Symmetric; no checkpoint, no shard) and returns its exact counts. It is
// the whole of a count for callers that need no long-run support: tests,
// bench and check.
func Count(ctx context.Context, cfg Config) (nq.Counts, error) {
	j, err := New(Config{Spec: cfg.Spec, Workers: cfg.Workers, Plan: cfg.Plan, Symmetric: cfg.Symmetric})
	if err != nil {
		return nq.Counts{}, err
	}
	res, err := j.Run(ctx)
	if err != nil {
		return nq.Counts{}, err
	}
	return res.Counts, nil
}
