package cpu

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// stopBound is how soon after its stop a search must return in these
// tests: the job gives the workers 2 s (job.DefaultStopWait) and the
// machine running the tests may be busy.
const stopBound = time.Second

// largeEightfold returns a few tasks of N=28 at the default split: each
// one's search runs for minutes.
func largeEightfold(t *testing.T) *tasks.Eightfold {
	t.Helper()
	e, err := taskstest.RandomEightfold(28, tasks.DefaultSplit(28), 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// runStopped runs fn with a stop flag that is set after d, and fails t
// unless fn returns within stopBound of the stop.
func runStopped(t *testing.T, name string, d time.Duration, fn func(stop *atomic.Bool)) {
	t.Helper()
	var stop atomic.Bool
	var stoppedAt atomic.Int64
	time.AfterFunc(d, func() {
		stoppedAt.Store(time.Now().UnixNano())
		stop.Store(true)
	})
	finished := make(chan struct{})
	go func() {
		fn(&stop)
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(d + 30*time.Second):
		t.Fatalf("%s: still searching 30 s after its stop", name)
	}
	at := stoppedAt.Load()
	if at == 0 {
		t.Fatalf("%s: returned before its stop: the tasks are too small for this test", name)
	}
	if late := time.Since(time.Unix(0, at)); late > stopBound {
		t.Errorf("%s: returned %v after its stop, want at most %v", name, late, stopBound)
	}
}

// A batch of large-N eightfold tasks stops within the bound once its stop
// is set: inside a task's search, in the assembly loop (where the CPU has
// it) and in the Go loop.
func TestEightfoldStopsInsideTask(t *testing.T) {
	e := largeEightfold(t)
	runStopped(t, "eightfoldBatch", 200*time.Millisecond, func(stop *atomic.Bool) {
		var tl tally
		eightfoldBatch(e, &tl, stop)
	})
	runStopped(t, "efSearchGo", 200*time.Millisecond, func(stop *atomic.Bool) {
		var sc efScratch
		levels, f := efTable(e.Left[0], e.Right[0], e.Down[0], e.Meta[0], &sc)
		d0 := uint64(e.Down[0])<<efCol | efLow | ^(uint64(1)<<(32+efCol) - 1)
		sc.tab[uint8(levels-3)] |= 1 << 63
		efSearchGo(&sc, f, d0, stop)
	})
}

// A set stop ends every algorithm's batch before its next task.
func TestBoardsStopBetweenTasks(t *testing.T) {
	var stop atomic.Bool
	stop.Store(true)
	b := taskstest.RandomSymmetryBoards(16, 4, 20, 3)
	for name, search := range map[string]func(*tasks.Boards, *tally, *atomic.Bool){
		"backtrack": backtrackBoards, "bitmap": bitmapBoards, "mirror": mirrorBoards, "symmetry": symmetryBoards,
	} {
		var tl tally
		search(b, &tl, &stop)
		if tl != (tally{}) {
			t.Errorf("%s: searched after its stop: %v", name, tl.orbit)
		}
	}
	var tl tally
	var frames *tasks.Frames
	if err := tasks.EnumerateFrames(14, 64, func(f *tasks.Frames) error { frames = cloneFrames(f); return errors.New("one batch") }); frames == nil {
		t.Fatal(err)
	}
	framesBoards(frames, &tl, &stop)
	if tl != (tally{}) {
		t.Errorf("carrychain: searched after its stop: %v", tl.orbit)
	}
}

// A CPU count of N=28 stops within the bound of its cancellation: in the
// task listing (the borders' orientation takes seconds) or inside a
// batch, whichever it is in.
func TestCountStopsAtLargeN(t *testing.T) {
	if testing.Short() {
		t.Skip("N=28 count: not in -short")
	}
	spec := plan.Normalize(nq.Spec{N: 28, Algo: nq.Eightfold})
	for _, d := range []time.Duration{50 * time.Millisecond, 1500 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		var err error
		runStopped(t, "Count after "+d.String(), d, func(stop *atomic.Bool) {
			go func() {
				for !stop.Load() {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			err = New(2).Count(ctx, spec, nil, nil)
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("after %v: Count returned %v, want context.Canceled", d, err)
		}
	}
}

// With every P in the eightfold search of large tasks, a goroutine that
// wakes up (the one a SIGINT wakes to cancel the count, the one that sets
// the stop flag) gets a P at once: the runtime cannot preempt the
// assembly loop, so efSearch yields its P between two calls. Without
// that, the stop came seconds late at N=26.
func TestEightfoldYieldsItsP(t *testing.T) {
	if !efAsm {
		t.Skip("no assembly search here")
	}
	procs := runtime.GOMAXPROCS(0)
	e := largeEightfold(t)
	var stop atomic.Bool
	finished := make(chan struct{}, procs)
	for w := 0; w < procs; w++ {
		go func() {
			var tl tally
			eightfoldBatch(e, &tl, &stop)
			finished <- struct{}{}
		}()
	}
	time.Sleep(100 * time.Millisecond) // every P searches
	var setAt atomic.Int64
	t0 := time.Now()
	time.AfterFunc(50*time.Millisecond, func() {
		setAt.Store(time.Now().UnixNano())
		stop.Store(true)
	})
	for w := 0; w < procs; w++ {
		select {
		case <-finished:
		case <-time.After(30 * time.Second):
			t.Fatal("the searches did not stop in 30 s")
		}
	}
	if late := time.Since(t0) - 50*time.Millisecond; late > 300*time.Millisecond {
		t.Errorf("the stop, due 50 ms after the searches were busy, ended them %v late (set %v late)",
			late, time.Duration(setAt.Load()-t0.UnixNano())-50*time.Millisecond)
	}
}
