package cpu

import (
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// TestLanesVsScalarBatches is a measurement, not a check: with
// NQ_LANES_N=1 it times eightfoldBatch on the lanes and on the scalar
// search, alternately, over random batches of the default split and batch
// size of N=18 to 24, where batches get short and tasks long.
func TestLanesVsScalarBatches(t *testing.T) {
	if os.Getenv("NQ_LANES_N") == "" {
		t.Skip("set NQ_LANES_N=1 to measure")
	}
	defer func(v bool) { efLanes = v }(efLanes)
	for n := 18; n <= 24; n++ {
		b := nq.DefaultBatch(n)
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
