package gpu

import (
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// launchOf is a launch group of tasks tasks in batches batches, split to
// levels.
func launchOf(tasks, batches, levels int) *group {
	return groupOf(&part{count: tasks, batches: make([]int, batches), levels: levels})
}

func TestLaunchPlannerRule(t *testing.T) {
	p := newLaunchPlanner(1000, 1<<30, 200*time.Millisecond)
	if got, _ := p.next(); got != 1000*minTasksPerThread {
		t.Errorf("first launch %d, want %d per resident thread", got, minTasksPerThread)
	}
	// Short tasks: the target time decides.
	p.observe(launchOf(64_000, 10, 0), 5*time.Millisecond)
	if got, _ := p.next(); got != 2_560_000 {
		t.Errorf("after 64,000 tasks in 5 ms: %d, want 2,560,000 (0.2 s)", got)
	}
	// Long tasks that no split shortens: the floor holds, however long.
	q := newLaunchPlanner(1000, 1<<30, 200*time.Millisecond)
	q.observe(launchOf(64_000, 250, 0), time.Hour)
	if got, _ := q.next(); got != 1000*minTasksPerThread {
		t.Errorf("after 64,000 tasks in an hour: %d, want %d per resident thread", got, minTasksPerThread)
	}
	// The slot caps both.
	c := newLaunchPlanner(1000, 50_000, 200*time.Millisecond)
	if got, _ := c.next(); got != 50_000 {
		t.Errorf("capped first launch %d, want 50,000", got)
	}
	c.observe(launchOf(50_000, 10, 0), time.Millisecond)
	if got, _ := c.next(); got != 50_000 {
		t.Errorf("capped launch %d, want 50,000", got)
	}
	// Nonsense observations change nothing.
	d := newLaunchPlanner(0, 0, 0)
	d.observe(launchOf(0, 0, 0), time.Second)
	d.observe(launchOf(5, 1, 0), 0)
	if got, _ := d.next(); got != 1 {
		t.Errorf("degenerate planner: %d, want 1", got)
	}
}

// Eightfold tasks too long for the floor's launch to end within the bound
// are split deeper: the shallowest split whose floor fits, as many
// batches as the floor's tasks make there; at the deepest split allowed,
// the bound wins over the floor.
func TestLaunchPlannerSplits(t *testing.T) {
	p := newLaunchPlanner(1000, 1<<30, 200*time.Millisecond).splits(15, 2, 256)
	if tasks, levels := p.next(); tasks != 128_000 || levels != maxStartLevels {
		t.Errorf("first launch %d tasks at %d levels, want the floor, 128,000, at %d (short tasks while the speed is unknown)", tasks, levels, maxStartLevels)
	}
	for _, l := range []int{1, 2, 9} {
		if _, levels := newLaunchPlanner(1000, 1<<30, 0).splits(l, 2, 256).next(); levels != l {
			t.Errorf("first launch of tasks of %d levels split to %d, want %d", l, levels, l)
		}
	}
	// 20 ms a batch: the floor's 500 batches take 10 s at 15 levels,
	// 1.7 s at 14 (6 times the tasks a batch), 0.28 s at 13.
	p.observe(launchOf(128_000, 500, 15), 10*time.Second)
	if tasks, levels := p.next(); tasks != 128_000 || levels != 13 {
		t.Errorf("after 10 s for 500 batches: %d tasks at %d levels, want 128,000 at 13", tasks, levels)
	}
	// A split packed counts as packed: 200 tasks a batch at 14 levels
	// (not 6 × 256) make the floor's launch 12.8 s there, 2.1 s at 13 and
	// 0.36 s at 12.
	p.observe(launchOf(200_000, 1000, 14), 20*time.Second)
	if tasks, levels := p.next(); tasks != 128_000 || levels != 12 {
		t.Errorf("after 1,000 batches of 200 tasks at 14 levels: %d tasks at %d levels, want 128,000 at 12", tasks, levels)
	}
	// At the deepest split allowed, a launch runs at most the bound.
	q := newLaunchPlanner(1000, 1<<30, 200*time.Millisecond).splits(15, 15, 256)
	q.observe(launchOf(128_000, 500, 15), 1000*time.Second)
	if tasks, levels := q.next(); tasks != 128 || levels != 15 {
		t.Errorf("2 s a batch, no split allowed: %d tasks at %d levels, want 128 (the bound, 1 s) at 15", tasks, levels)
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
