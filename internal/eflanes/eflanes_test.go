package eflanes_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/eflanes"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
	"github.com/nqueens-gpu/nqueens-gpu/kernels/host"
)

// needVector skips where the CPU cannot run the vector engine; a test that
// needs it says so, and the scalar path's tests (package cpu) still run.
func needVector(t *testing.T) {
	t.Helper()
	if !eflanes.Built {
		t.Skip("eflanes not built (needs cgo on amd64)")
	}
	if why := eflanes.Unavailable(); why != "" && why != eflanes.ScalarEnv+"=1" {
		t.Skip("vector engine: " + why)
	}
}

// scalar is what the test generator's independent search
// (taskstest.SearchEightfold, which counts the nodes as cpu's scalar search
// does) counts over the tasks of e: Σ weight × completions and the nodes.
// The comparison with cpu's own scalar search, task by task, is in package
// cpu (internal/* does not import the backends).
func scalar(e *tasks.Eightfold) (total, nodes uint64) {
	for i := 0; i < e.Len(); i++ {
		c, k := taskstest.SearchEightfold(e.Task(i))
		total += c * e.Weight(i)
		nodes += k
	}
	return total, nodes
}

// oneTask is task i of e as a batch of its own.
func oneTask(e *tasks.Eightfold, i int) *tasks.Eightfold {
	return &tasks.Eightfold{N: e.N, Split: e.Split, Cols: e.Task(i), Left: e.Left[i : i+1],
		Right: e.Right[i : i+1], Down: e.Down[i : i+1], Meta: e.Meta[i : i+1]}
}

// The vector engine counts, batch by batch, what the kernel's step itself
// counts on the host (kernels/host, nq_ef_step), over N=5..13 at split 0
// and the default, with 1, 7 and a full vector of lanes taking tasks, and
// the published Total.
func TestVectorMatchesKernel(t *testing.T) {
	needVector(t)
	if !host.Enabled {
		t.Skip("kernels/host needs cgo")
	}
	var st eflanes.State
	for _, active := range []int{1, 7, eflanes.Width} {
		for n := 5; n <= 13; n++ {
			for _, split := range []int{0, tasks.DefaultSplit(n)} {
				var sum uint64
				err := tasks.EnumerateEightfold(n, split, 300, func(e *tasks.Eightfold) error {
					got := eflanes.Vector(&st, e, active, 0, nil)
					if k := host.Eightfold(e); got != k.Total {
						t.Fatalf("N=%d split %d, %d lanes: vector %d, kernel %d", n, split, active, got, k.Total)
					}
					sum += got
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := known.Lookup(n); sum != want.Total {
					t.Errorf("N=%d split %d, %d lanes: %d, published %d", n, split, active, sum, want.Total)
				}
			}
		}
	}
}

// The vector engine with 1, 7, 16 and a full vector of lanes taking tasks
// (the others idle, or stealing), counts the published Total over N=5..14
// at split 0 and the default, batch by batch what the scalar search
// counts; a full vector over N=15 and 16 too.
func TestVectorTotal(t *testing.T) {
	needVector(t)
	var st eflanes.State
	for _, c := range []struct {
		active int
		steal  int
	}{{1, 0}, {7, 0}, {16, 0}, {eflanes.Width, 0}, {1, 1}, {7, 3}, {eflanes.Width, 1}, {eflanes.Width, eflanes.StealLevels}} {
		top := 14
		if c.active == eflanes.Width {
			top = 16
		}
		for n := 5; n <= top; n++ {
			for _, split := range []int{0, tasks.DefaultSplit(n)} {
				var sum uint64
				err := tasks.EnumerateEightfold(n, split, 300, func(e *tasks.Eightfold) error {
					got := eflanes.Vector(&st, e, c.active, c.steal, nil)
					if n <= 12 {
						if want, _ := scalar(e); got != want {
							t.Fatalf("N=%d split %d, %+v: batch %d, scalar %d", n, split, c, got, want)
						}
					}
					sum += got
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := known.Lookup(n); sum != want.Total {
					t.Errorf("N=%d split %d, %+v: %d, published %d", n, split, c, sum, want.Total)
				}
			}
		}
	}
}

// On sampled tasks of N=22..28 the vector engine counts what the scalar
// search counts, task by task (a batch of one task each, the other lanes
// stealing from it) and over the whole sample with 1, 7 and Width lanes,
// stealing and not.
func TestVectorLargeN(t *testing.T) {
	needVector(t)
	var st eflanes.State
	for n := 22; n <= 28; n++ {
		e, err := taskstest.RandomEightfold(n, n-17, 32, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		var want uint64
		for i := 0; i < e.Len(); i++ {
			one := oneTask(e, i)
			w, _ := scalar(one)
			if got := eflanes.Vector(&st, one, eflanes.Width, 1, nil); got != w {
				t.Errorf("N=%d task %v: vector %d, scalar %d", n, e.Task(i), got, w)
			}
			want += w
		}
		if want == 0 {
			t.Errorf("N=%d: the sample has no completion", n)
		}
		for _, active := range []int{1, 7, eflanes.Width} {
			for _, steal := range []int{0, 1, eflanes.StealLevels} {
				if got := eflanes.Vector(&st, e, active, steal, nil); got != want {
					t.Errorf("N=%d, %d lanes, steal %d: vector %d, scalar %d", n, active, steal, got, want)
				}
			}
		}
	}
}

// Once stop is set, Vector returns within its budget, even inside a task
// of N=28 that runs for minutes.
func TestVectorStop(t *testing.T) {
	needVector(t)
	e, err := taskstest.RandomEightfold(28, 0, 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	time.AfterFunc(50*time.Millisecond, func() { stop.Store(true) })
	t0 := time.Now()
	eflanes.Vector(new(eflanes.State), e, eflanes.Width, eflanes.StealLevels, &stop)
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Vector returned %v after the start, 50 ms after stop was set", d)
	}
}

// ScalarEnv=1 turns the vector engine off, and Unavailable says so where
// nothing else does.
func TestScalarEnv(t *testing.T) {
	t.Setenv(eflanes.ScalarEnv, "")
	base := eflanes.Unavailable()
	if eflanes.Available() != (base == "") {
		t.Errorf("Available %v, Unavailable %q", eflanes.Available(), base)
	}
	t.Setenv(eflanes.ScalarEnv, "1")
	if eflanes.Available() {
		t.Errorf("%s=1: Available", eflanes.ScalarEnv)
	}
	if want := eflanes.ScalarEnv + "=1"; base == "" && eflanes.Unavailable() != want {
		t.Errorf("%s=1: Unavailable says %q, want %q", eflanes.ScalarEnv, eflanes.Unavailable(), want)
	}
}
