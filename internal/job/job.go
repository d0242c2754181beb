// Package job runs one count (one spec) as numbered batches of tasks
// (package plan) spread over one or more backends (the CPU, GPUs) that
// share one queue, and keeps what long runs need: the set of finished
// batches and their summed partials, checkpoints that a later run resumes
// from (package checkpoint), the shard of the job to count, and progress
// snapshots.
package job

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/batchset"
	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/burnside"
	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Backend counts the numbered task batches of a spec on one device
// (nq.Backend, the contract the cpu and gpu packages meet).
type Backend = nq.Backend

// Config sets up a job.
type Config struct {
	// Spec is the count, normalized (plan.Normalize): New only checks it.
	Spec     nq.Spec
	Shard    plan.Shard
	Backends []Backend
	// Plan makes the plan of a spec; nil means the job's own: the
	// recorded plan (plan.Known) at once where there is one, checked
	// against plan.MakeContext while the backends count, else
	// plan.MakeContext. Either stops when the run's context is cancelled.
	Plan func(nq.Spec) (plan.Plan, error)
	// NeedPlan asks for the plan even without a checkpoint or a shard,
	// for progress reports and the final check that every batch was
	// counted. It is then made while the backends start.
	NeedPlan bool
	// Checkpoint, if not "", is the checkpoint file: read by New, written
	// every CheckpointInterval (0: DefaultCheckpointInterval) and when
	// Run returns.
	Checkpoint         string
	CheckpointInterval time.Duration
	// Args is the command line, kept in the checkpoint for reference.
	Args []string
	// Version is the program's version for the checkpoint; "" means
	// Version().
	Version string
	// Warn, if not nil, receives messages about trouble the job survives:
	// a backend that failed while others went on, a periodic checkpoint
	// that could not be written.
	Warn func(msg string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Symmetric counts the solutions of n fixed by the quarter and the
	// half turn, the host batch of an eightfold job; nil means
	// burnside.Symmetric.
	Symmetric func(ctx context.Context, n int) (s90, s180 uint64, err error)
	// StopWait is how long Run waits, once ctx is cancelled, for the
	// batches in hand; then it drops them (the next run counts them) and
	// returns. 0 means DefaultStopWait.
	StopWait time.Duration
	// Beside is the number of backends, at the end of Backends, that
	// count beside the others only where that makes the count shorter
	// (the CPU next to GPUs: share.go). The job then makes its plan.
	Beside int
}

// DefaultStopWait is the default of Config.StopWait: a signal ends a run
// within seconds at every N, although a batch at large N may take minutes.
const DefaultStopWait = 2 * time.Second

// DefaultCheckpointInterval is the default of Config.CheckpointInterval.
const DefaultCheckpointInterval = time.Minute

// Job is one count in progress.
type Job struct {
	cfg  Config
	spec nq.Spec

	planReady chan struct{} // closed when plan or planErr is set
	plan      plan.Plan
	planErr   error
	// known is set when the plan is the recorded one, to be checked by
	// Run; verified then receives the check's outcome.
	known    bool
	verified chan error

	resumed *checkpoint.State // what the checkpoint held at the start
	lock    *fsutil.Lock      // of the checkpoint, until Run returns

	mu        sync.Mutex
	claimed   batchset.Set // handed to a backend (includes done)
	nClaimed  int          // members of claimed
	done      batchset.Set // finished
	nDone     int
	sum       nq.Partial
	perWorker []int
	stopped   atomic.Bool // no more claims
	// abandoned is set when Run stopped waiting for the batches in
	// hand: their reports are dropped from then on; dropped counts them.
	abandoned bool
	dropped   int
	// repeated is set when a backend reports a batch that is already
	// done: its partial is not added and the job fails.
	repeated error

	started time.Time
	created time.Time
	runs    int
	prevSec float64
	share   share // the beside backends' claims (share.go)
}

// New prepares a job. With a checkpoint file it makes the plan at once,
// reads the file and checks that it was made for the same job and shard:
// a *checkpoint.Error otherwise, and the file is not touched.
func New(cfg Config) (*Job, error) {
	return NewContext(context.Background(), cfg)
}

// NewContext is New, whose plan (made at once with a checkpoint file)
// stops when ctx is cancelled, with ctx's error.
func NewContext(ctx context.Context, cfg Config) (*Job, error) {
	if err := cfg.Spec.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Backends) == 0 && !cfg.Spec.Whole() {
		return nil, errors.New("job: no backends")
	}
	if cfg.Beside < 0 || cfg.Beside > 0 && cfg.Beside >= len(cfg.Backends) {
		return nil, fmt.Errorf("job: %d of %d backends beside the others", cfg.Beside, len(cfg.Backends))
	}
	cfg = cfg.withDefaults()
	j := &Job{cfg: cfg, spec: cfg.Spec, planReady: make(chan struct{}), perWorker: make([]int, len(cfg.Backends))}
	if cfg.Checkpoint == "" {
		return j, nil
	}
	// Lock and read the file first: a file in use by another run, one
	// that cannot be written and a damaged one are refused before any
	// work. The lock is held until Run returns or Close.
	l, err := checkpoint.Lock(cfg.Checkpoint, cfg.Warn)
	if err != nil {
		return nil, err
	}
	j.lock = l
	if err := j.resume(ctx); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// withDefaults fills in the defaults of the fields cfg left unset.
func (cfg Config) withDefaults() Config {
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
		cfg.CheckpointInterval = DefaultCheckpointInterval
	}
	if cfg.StopWait <= 0 {
		cfg.StopWait = DefaultStopWait
	}
	if cfg.Shard.Whole() {
		cfg.Shard = plan.Shard{Index: 0, Count: 1}
	}
	if cfg.Beside > 0 {
		cfg.NeedPlan = true // the batches left, for share.go
	}
	return cfg
}

// resume makes the plan and takes up the checkpoint's state, if it holds
// one of the same job and shard.
func (j *Job) resume(ctx context.Context) error {
	ck, err := checkpoint.Load(j.cfg.Checkpoint)
	if err != nil {
		return err
	}
	j.setPlan(j.makePlan(ctx))
	if j.planErr != nil {
		return j.planErr
	}
	if j.plan.Batches > checkpoint.MaxBatches {
		return fmt.Errorf("job: %d batches, more than the %d a checkpoint holds: use a smaller -depth", j.plan.Batches, checkpoint.MaxBatches)
	}
	if ck == nil {
		return nil
	}
	b, path := &ck.Body, j.cfg.Checkpoint
	if why := b.Job.Mismatch(j.plan); why != "" {
		return &checkpoint.Error{Path: path, Reason: "was made for another job: " + why}
	}
	if b.Shard != j.cfg.Shard {
		return &checkpoint.Error{Path: path, Reason: fmt.Sprintf("was made for shard %v, not shard %v", b.Shard, j.cfg.Shard)}
	}
	if b.Version != j.cfg.Version && j.cfg.Warn != nil {
		j.cfg.Warn(fmt.Sprintf("checkpoint %s was written by version %s, this is %s; the task list is the same, resuming",
			path, b.Version, j.cfg.Version))
	}
	j.resumed = ck
	j.done, j.claimed = ck.Done.Clone(), ck.Done.Clone()
	j.nClaimed = b.DoneBatches
	j.nDone, j.sum = b.DoneBatches, b.Partial
	j.created, j.runs, j.prevSec = b.Created, b.Runs, b.Seconds
	return nil
}

// makePlan makes the job's plan with Config.Plan, or else takes the
// recorded one (marking it to be checked) or makes it.
func (j *Job) makePlan(ctx context.Context) (plan.Plan, error) {
	if j.cfg.Plan != nil {
		return j.cfg.Plan(j.spec)
	}
	if p, ok := plan.Known(j.spec); ok {
		j.known = true
		return p, nil
	}
	return plan.MakeContext(ctx, j.spec)
}

func (j *Job) setPlan(p plan.Plan, err error) {
	j.plan, j.planErr = p, err
	close(j.planReady)
}

// Plan returns the job's plan, waiting for it if it is being made.
func (j *Job) Plan() (plan.Plan, error) {
	<-j.planReady
	return j.plan, j.planErr
}

// Close releases the lock on the checkpoint file, if the job holds it.
// Run releases it as it returns; Close is for a job that is not run. It
// may be called more than once.
func (j *Job) Close() error {
	j.mu.Lock()
	l := j.lock
	j.lock = nil
	j.mu.Unlock()
	return l.Release()
}

// Version is the program's version as checkpoints and shard results
// record it: the commit the binary was built from (with "+dirty" when the
// tree had changes), else the module version, or "devel"
// (buildinfo.Info.Short).
func Version() string { return buildinfo.Read("").Short() }
