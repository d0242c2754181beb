package job

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// pacedBackend goes through nb batches, claiming each it is granted, and
// reports each after per (several workers: up to workers at once); last
// is set to the time of its last report.
func pacedBackend(name string, nb, workers int, per time.Duration, last *time.Time) funcBackend {
	return funcBackend{name: name, run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		slots := make(chan struct{}, workers)
		finished := make(chan struct{}, nb)
		n := 0
		for i := 0; i < nb && ctx.Err() == nil; i++ {
			if !sel(i) {
				continue
			}
			slots <- struct{}{}
			n++
			go func() {
				time.Sleep(per)
				done([]int{i}, fakePartial(i))
				<-slots
				finished <- struct{}{}
			}()
		}
		for ; n > 0; n-- {
			<-finished
		}
		*last = time.Now()
		return ctx.Err()
	}}
}

// A backend beside a much faster one (the CPU next to a GPU) takes
// batches only while it finishes them before the fast one finishes the
// rest: it still does a share, and its last report comes no later than
// the fast one's (a batch's time of slack: the fast one's pace is an
// estimate), where without the rule the count waits up to a slow batch
// for it.
func TestBesideOnlyWhereItHelps(t *testing.T) {
	const nb = 400
	const slowBatch = 60 * time.Millisecond
	run := func(beside int) (wait time.Duration, workers []WorkerStatus) {
		var fastEnd, slowEnd time.Time
		fast := pacedBackend("gpu0", nb, 1, time.Millisecond, &fastEnd)
		slow := pacedBackend("cpu", nb, 2, slowBatch, &slowEnd)
		j, err := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: []Backend{fast, slow},
			Plan: fakePlan(nb), Beside: beside})
		if err != nil {
			t.Fatal(err)
		}
		res, err := j.Run(context.Background())
		if err != nil || res.Partial != fakeSum(nb, plan.Shard{}) || res.Batches != nb {
			t.Fatalf("beside %d: %v, %d batches, sum %v", beside, err, res.Batches, res.Partial)
		}
		return slowEnd.Sub(fastEnd), j.Status().Workers
	}
	waitFree, _ := run(0)
	wait, workers := run(1)
	t.Logf("the slow one ends %v after the fast one without the rule, %v with it (batches %+v)", waitFree, wait, workers)
	if workers[1].Batches == 0 {
		t.Errorf("the beside backend took no batch: %+v", workers)
	}
	if wait > slowBatch/4 {
		t.Errorf("with the rule the beside backend ends %v after the other, want at most %v", wait, slowBatch/4)
	}
}

// When every other backend has failed, a beside backend counts the rest
// alone: the job does not end with batches nobody took.
func TestBesideAloneAfterOthersFail(t *testing.T) {
	const nb = 400
	fast := funcBackend{name: "gpu0", run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		n := 0
		for i := 0; i < nb; i++ {
			if !sel(i) {
				continue
			}
			time.Sleep(time.Millisecond)
			done([]int{i}, fakePartial(i))
			if n++; n == 300 {
				return errors.New("device lost")
			}
		}
		return nil
	}}
	var slowEnd time.Time
	slow := pacedBackend("cpu", nb, 2, 60*time.Millisecond, &slowEnd)
	j, err := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: []Backend{fast, slow},
		Plan: fakePlan(nb), Beside: 1, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Run(context.Background())
	if err != nil || res.Partial != fakeSum(nb, plan.Shard{}) || res.Batches != nb {
		t.Fatalf("%v: %d of %d batches", err, res.Batches, nb)
	}
}
