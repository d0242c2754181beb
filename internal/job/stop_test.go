package job

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// A cancelled run does not wait for batches that take long (a batch of
// N=26 takes minutes): after StopWait it drops them, saves what is done
// and returns; their late reports are ignored, and the next run counts
// them, so the total is exact.
func TestStopDropsBatchesInHand(t *testing.T) {
	const nb, slow = 50, 3 // batches; workers stuck in a long batch
	path := filepath.Join(t.TempDir(), "ck")
	spec := norm(nq.Spec{N: 16, Algo: nq.Symmetry})
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	var stuck sync.WaitGroup
	stuck.Add(slow)
	var late sync.WaitGroup
	// Batches 0 to 19 end at once; 20, 21 and 22 run side by side and
	// do not end on their own (a search that does not look at ctx); the
	// worker then waits for ctx.
	w := funcBackend{name: "cpu", run: func(c context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		var g sync.WaitGroup
		for i := 0; i < nb; i++ {
			if i == 20+slow {
				<-c.Done()
				break
			}
			if !sel(i) {
				continue
			}
			if i < 20 {
				done([]int{i}, fakePartial(i))
				continue
			}
			g.Add(1)
			late.Add(1)
			go func() {
				defer g.Done()
				defer late.Done()
				stuck.Done()
				<-release
				done([]int{i}, fakePartial(i))
			}()
		}
		g.Wait()
		return c.Err()
	}}
	j, err := New(Config{Spec: spec, Backends: []Backend{w}, Plan: fakePlan(nb), Checkpoint: path, StopWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go func() { stuck.Wait(); cancel() }()
	start := time.Now()
	res, err := j.Run(ctx)
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) || took > 3*time.Second {
		t.Fatalf("run returned after %v: %v", took, err)
	}
	if res.Dropped != slow || !res.Saved || res.Batches != 20 {
		t.Errorf("result %+v: want %d dropped, 20 saved", res, slow)
	}
	// The stuck batches end now; their reports must change nothing.
	close(release)
	late.Wait()
	if st := j.Status(); st.DoneBatches != 20 {
		t.Errorf("late reports were counted: %+v", st)
	}
	ck, err := checkpoint.Load(path)
	if err != nil || ck.Body.DoneBatches != 20 {
		t.Fatalf("checkpoint %+v, %v", ck, err)
	}
	// The next run counts the dropped batches.
	j, err = New(Config{Spec: spec, Backends: workersOf(&fakeWorker{nb: nb, failAt: -1}), Plan: fakePlan(nb), Checkpoint: path})
	if err != nil {
		t.Fatal(err)
	}
	res, err = j.Run(context.Background())
	if err != nil || !res.Complete || res.Partial != fakeSum(nb, plan.Shard{}) || res.Dropped != 0 {
		t.Errorf("resumed: %+v, %v", res, err)
	}
}

// Batches that end within StopWait are counted, none is dropped.
func TestStopWaitsForShortBatches(t *testing.T) {
	const nb = 10
	ctx, cancel := context.WithCancel(context.Background())
	w := funcBackend{name: "w", run: func(c context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		for i := 0; i < nb; i++ {
			if !sel(i) {
				continue
			}
			if i == 4 {
				cancel()
				time.Sleep(20 * time.Millisecond) // the batch in hand ends
			}
			done([]int{i}, fakePartial(i))
		}
		return c.Err()
	}}
	j, _ := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: []Backend{w}, Plan: fakePlan(nb), StopWait: time.Second})
	res, err := j.Run(ctx)
	if !errors.Is(err, context.Canceled) || res.Dropped != 0 || res.Batches != 5 {
		t.Errorf("%+v, %v", res, err)
	}
}

// A report of millions of batches (a GPU launch of small batches) takes
// time in proportion to its size, and a report that repeats a batch is
// taken back whole.
func TestLargeReports(t *testing.T) {
	const nb = 2_000_000
	all := make([]int, nb)
	for i := range all {
		all[i] = i
	}
	for _, tt := range []struct {
		name   string
		report []int
		want   string
	}{
		{"every batch at once", all, ""},
		{"a repeat at the end", append(all[:1000:1000], 999), "reported batch 999 twice"},
	} {
		w := funcBackend{name: "gpu0", run: func(c context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
			for i := 0; i < nb; i++ {
				sel(i)
			}
			done(tt.report, nq.Partial{0, 0, 0, uint64(len(tt.report))})
			return nil
		}}
		j, _ := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: []Backend{w}, Plan: fakePlan(nb), NeedPlan: true})
		start := time.Now()
		res, err := j.Run(context.Background())
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: %v", tt.name, took)
		}
		if tt.want == "" {
			if err != nil || res.Batches != nb {
				t.Errorf("%s: %d batches, %v", tt.name, res.Batches, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || res.Batches != 0 || j.done.Count() != 0 || res.Partial != (nq.Partial{}) {
			t.Errorf("%s: %d batches (%d marked), %v", tt.name, res.Batches, j.done.Count(), err)
		}
	}
}
