package cpu

import (
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
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
