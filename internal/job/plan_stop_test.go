package job

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// idleWorker claims nothing and returns when ctx is cancelled: a worker
// whose first batch has not come yet.
var idleWorker = funcBackend{name: "cpu", run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
	<-ctx.Done()
	return ctx.Err()
}}

// quickSymmetric is a host batch that takes no time.
func quickSymmetric(ctx context.Context, n int) (uint64, uint64, error) { return 0, 0, ctx.Err() }

// runCancelled runs j, cancels it after d and fails t unless Run returns
// ctx's error within a second of the cancellation.
func runCancelled(t *testing.T, j *Job, d time.Duration) Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(d, cancel)
	type out struct {
		res Result
		err error
		at  time.Time
	}
	ch := make(chan out, 1)
	go func() {
		res, err := j.Run(ctx)
		ch <- out{res, err, time.Now()}
	}()
	select {
	case o := <-ch:
		if !errors.Is(o.err, context.Canceled) {
			t.Fatalf("Run: %v, want context.Canceled", o.err)
		}
		<-ctx.Done()
		return o.res
	case <-time.After(d + 10*time.Second):
		t.Fatalf("Run still running 10 s after its cancellation")
	}
	return Result{}
}

// A cancelled eightfold run does not wait for its plan: the host batch
// needs the plan's batch count, and listing the tasks of a large N takes
// a minute.
func TestStopDoesNotWaitForPlan(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	slowPlan := func(s nq.Spec) (plan.Plan, error) {
		<-block // a listing that does not look at ctx
		return fakePlan(10)(s)
	}
	j, err := New(Config{Spec: norm(nq.Spec{N: 26, Algo: nq.Eightfold}), Backends: []Backend{idleWorker}, Plan: slowPlan,
		NeedPlan: true, Symmetric: quickSymmetric})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	runCancelled(t, j, 50*time.Millisecond)
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Run took %v, cancelled at 50 ms", d)
	}
}

// The job's own plan (Config.Plan nil) of a task list without a record
// stops listing when the run is cancelled.
func TestOwnPlanStops(t *testing.T) {
	spec := norm(nq.Spec{N: 26, Algo: nq.Eightfold, Batch: 1000}) // no recorded plan
	if _, ok := plan.Known(spec); ok {
		t.Fatal("the test needs a spec without a recorded plan")
	}
	j, err := New(Config{Spec: spec, Backends: []Backend{idleWorker}, NeedPlan: true, Symmetric: quickSymmetric})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	runCancelled(t, j, 100*time.Millisecond)
	if d := time.Since(t0); d > 1100*time.Millisecond {
		t.Errorf("Run took %v, cancelled at 100 ms", d)
	}
	if _, err := j.Plan(); !errors.Is(err, context.Canceled) {
		t.Errorf("plan: %v, want context.Canceled", err)
	}
}

// At N=24 and up the job's own plan is the recorded one, known at once:
// the status has its totals from the start, and a job with a checkpoint
// starts (and writes its file) without listing the tasks; a run stopped
// at once leaves a checkpoint that the next run takes.
func TestKnownPlanAtOnce(t *testing.T) {
	for _, n := range []int{24, 26, 28} {
		spec := norm(nq.Spec{N: n, Algo: nq.Eightfold})
		want, ok := plan.Known(spec)
		if !ok {
			t.Fatalf("N=%d: no recorded plan", n)
		}
		path := filepath.Join(t.TempDir(), "ck")
		t0 := time.Now()
		j, err := New(Config{Spec: spec, Backends: []Backend{idleWorker}, Checkpoint: path, Symmetric: quickSymmetric})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("N=%d: New took %v", n, d)
		}
		st := j.Status()
		if st.TotalBatches != want.Batches || st.TotalTasks != want.TaskCount {
			t.Errorf("N=%d: status totals %d batches, %d tasks; want %d, %d", n, st.TotalBatches, st.TotalTasks, want.Batches, want.TaskCount)
		}
		res := runCancelled(t, j, 50*time.Millisecond)
		if !res.Saved {
			t.Errorf("N=%d: checkpoint not saved", n)
		}
		again, err := New(Config{Spec: spec, Backends: []Backend{idleWorker}, Checkpoint: path, Symmetric: quickSymmetric})
		if err != nil {
			t.Fatalf("N=%d: the checkpoint of the stopped run: %v", n, err)
		}
		again.Close()

		// Without a checkpoint, the status of a run that has just
		// started.
		j, _ = New(Config{Spec: spec, Backends: []Backend{idleWorker}, NeedPlan: true, Symmetric: quickSymmetric})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for j.Status().Elapsed == 0 {
				time.Sleep(time.Millisecond)
			}
			st = j.Status()
			cancel()
		}()
		j.Run(ctx)
		if st.TotalTasks != want.TaskCount {
			t.Errorf("N=%d: a started run's status has %d tasks, want %d", n, st.TotalTasks, want.TaskCount)
		}
	}
}

// A host batch that does not stop in time (the half-turn count of a large
// N) is dropped like a worker's batch in hand: the run ends within
// StopWait of its cancellation.
func TestStopDropsHostBatch(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	stuck := func(ctx context.Context, n int) (uint64, uint64, error) {
		<-block // a search that does not look at ctx
		return 0, 0, nil
	}
	j, err := New(Config{Spec: norm(nq.Spec{N: 26, Algo: nq.Eightfold}), Backends: []Backend{idleWorker}, Plan: fakePlan(10),
		NeedPlan: true, Symmetric: stuck, StopWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	res := runCancelled(t, j, 50*time.Millisecond)
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Run took %v, cancelled at 50 ms with a stop wait of 200 ms", d)
	}
	if res.Dropped != 1 {
		t.Errorf("%d batches dropped, want the host batch", res.Dropped)
	}
}
