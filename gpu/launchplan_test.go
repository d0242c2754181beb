package gpu

import (
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

func TestLaunchPlannerRule(t *testing.T) {
	p := newLaunchPlanner(1000, 1<<30, 200*time.Millisecond)
	if got := p.next(); got != 1000*minTasksPerThread {
		t.Errorf("first launch %d, want %d per resident thread", got, minTasksPerThread)
	}
	// Short tasks: the target time decides.
	p.observe(64_000, 5*time.Millisecond)
	if got := p.next(); got != 2_560_000 {
		t.Errorf("after 64,000 tasks in 5 ms: %d, want 2,560,000 (0.2 s)", got)
	}
	// Long tasks: the floor holds, however long.
	q := newLaunchPlanner(1000, 1<<30, 200*time.Millisecond)
	q.observe(64_000, time.Hour)
	if got := q.next(); got != 1000*minTasksPerThread {
		t.Errorf("after 64,000 tasks in an hour: %d, want %d per resident thread", got, minTasksPerThread)
	}
	// The slot caps both.
	c := newLaunchPlanner(1000, 50_000, 200*time.Millisecond)
	if got := c.next(); got != 50_000 {
		t.Errorf("capped first launch %d, want 50,000", got)
	}
	c.observe(50_000, time.Millisecond)
	if got := c.next(); got != 50_000 {
		t.Errorf("capped launch %d, want 50,000", got)
	}
	// Nonsense observations change nothing.
	d := newLaunchPlanner(0, 0, 0)
	d.observe(0, time.Second)
	d.observe(5, 0)
	if got := d.next(); got != 1 {
		t.Errorf("degenerate planner: %d, want 1", got)
	}
}

// A slot holds the largest batch (nq.MaxBatch) of every task layout up to
// N=28, so that produce, which packs whole batches, never makes a group
// larger than a slot: carry-chain frames, the largest tasks, take 4N+2
// bytes (SolvePartial's perTask).
func TestSlotHoldsLargestBatch(t *testing.T) {
	for _, perTask := range []int{4*28 + 2, 4 * (28 - 3 + 3), 8 + 8 + 4 + 4} {
		if capTasks := slotBytes / perTask; capTasks < nq.MaxBatch {
			t.Errorf("a slot holds %d tasks of %d bytes, fewer than a batch of %d", capTasks, perTask, nq.MaxBatch)
		}
	}
}
