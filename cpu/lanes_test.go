package cpu

import (
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/eflanes"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// TestLanesVsScalarBatches is a measurement, not a check: with
// NQ_LANES_N=hi it times eightfoldBatch on the lanes and on the scalar
// search, alternately (fastest of two), over a random batch of the default
// split and batch size of each N from 18 to hi, where batches get short and
// tasks long. NQ_LANES_STEAL sets the lanes' stealLevels.
func TestLanesVsScalarBatches(t *testing.T) {
	hi, _ := strconv.Atoi(os.Getenv("NQ_LANES_N"))
	if hi == 0 {
		t.Skip("set NQ_LANES_N to measure")
	}
	if s := os.Getenv("NQ_LANES_STEAL"); s != "" {
		defer func(v int) { stealLevels = v }(stealLevels)
		stealLevels, _ = strconv.Atoi(s)
	}
	defer func(v bool) { efLanes = v }(efLanes)
	for n := 18; n <= hi; n++ {
		b := plan.DefaultBatch(n)
		e, err := taskstest.RandomEightfold(n, tasks.DefaultSplit(n), b, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		var d [2]time.Duration
		var sum [2]uint64
		for r := 0; r < 2; r++ {
			for i, lanes := range lanePaths() {
				efLanes = lanes
				var tl tally
				t0 := time.Now()
				eightfoldBatch(e, &tl, new(atomic.Bool))
				if el := time.Since(t0); r == 0 || el < d[i] {
					d[i] = el
				}
				sum[i] = tl.orbit[8]
			}
		}
		t.Logf("N=%d batch %d: scalar %v, lanes %v (%.3f), same sum %v", n, b, d[0], d[1], d[1].Seconds()/d[0].Seconds(), sum[0] == sum[1])
	}
}

// On sampled tasks of N=22..28 (two samples each, one of smaller and one
// of larger tasks) the vector lanes count what the scalar search counts,
// task by task (a batch of one task, which the lanes share by stealing),
// and eightfoldBatch counts the same sum over the sample on either path.
func TestLanesMatchScalarLargeN(t *testing.T) {
	if !eflanes.Available() {
		t.Skip("vector lanes: " + eflanes.Unavailable())
	}
	defer func(v bool) { efLanes = v }(efLanes)
	var st eflanes.State
	var sc efScratch
	for n := 22; n <= 28; n++ {
		for _, split := range []int{n - 17, n - 18} {
			e, err := taskstest.RandomEightfold(n, split, 12, uint64(3*n+split))
			if err != nil {
				t.Fatal(err)
			}
			var want uint64
			for i := 0; i < e.Len(); i++ {
				one := &tasks.Eightfold{N: e.N, Split: e.Split, Cols: e.Task(i), Left: e.Left[i : i+1],
					Right: e.Right[i : i+1], Down: e.Down[i : i+1], Meta: e.Meta[i : i+1]}
				w := e.Weight(i) * eightfoldTask(e.Left[i], e.Right[i], e.Down[i], e.Meta[i], &sc, new(atomic.Bool))
				for _, steal := range []int{0, 1, eflanes.StealLevels} {
					if got := eflanes.Vector(&st, one, eflanes.Width, steal, nil); got != w {
						t.Errorf("N=%d task %v, steal %d: lanes %d, scalar %d", n, e.Task(i), steal, got, w)
					}
				}
				want += w
			}
			if want == 0 {
				t.Errorf("N=%d split %d: the sample has no completion", n, split)
			}
			for _, lanes := range []bool{false, true} {
				efLanes = lanes
				var tl tally
				eightfoldBatch(e, &tl, new(atomic.Bool))
				if tl.orbit[8] != want {
					t.Errorf("N=%d split %d, lanes %v: batch %d, tasks %d", n, split, lanes, tl.orbit[8], want)
				}
			}
		}
	}
}
