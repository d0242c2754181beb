package gpu

import (
	"math"
	"time"
)

// slotBytes bounds one slot's task buffers (cuda_solve.go), which caps the
// tasks per launch: 256 MiB hold 11.2 million eightfold tasks (24 bytes),
// minTasksPerThread for each thread a large GPU keeps resident, or 6.7
// million symmetry boards of depth 7 (40 bytes). A solve pins inFlight
// slots on the host and allocates as many on the device.
const slotBytes = 256 << 20

// inFlight is the launches a solve keeps queued on the GPU, one a slot: it
// copies the next group while the GPU has the two after the one that
// ended, so that a host slower than a short launch (the first ones) does
// not idle it.
const inFlight = 3

// launchPlanner sizes the launches of a GPU solve: how many tasks the
// producer packs into the next launch group and, for eightfold tasks, how
// many levels it splits them to.
//
// A launch ends with a tail: a block leaves its SM only when its slowest
// thread is done, so each launch loses a few mean tasks per thread (the
// replay in launchreplay_test.go measures it). A launch so gives every
// resident thread at least minTasksPerThread tasks (or the slot's), and
// more where tasks are short: what the GPU runs in the target time. And
// a launch runs at most bound, so that finished work reaches the host,
// the progress and the checkpoint within seconds and a stop loses little:
// where the floor's tasks would take longer, eightfold tasks are split
// deeper (each level about 6 times the tasks, each that much shorter:
// the work of a batch stays), the shallowest split that fits. The GPU's
// time per batch, measured, does not depend on the split.
type launchPlanner struct {
	resident  int           // threads the GPU keeps resident for the kernel
	capTasks  int           // the most tasks of one launch (a slot's buffers)
	target    time.Duration // the launch time to aim at when tasks are short
	bound     time.Duration // the longest launch wanted
	levels    int           // eightfold: the default most levels; 0: no split
	minLevels int           // the fewest levels a split goes to
	batch     int           // tasks per batch before any split

	perBatch float64             // GPU seconds per batch, lately; 0 before
	busy     float64             // the launches' seconds, decayed (perBatch = busy / batches)
	batches  float64             // their batches, decayed
	seen     map[int]*levelTasks // tasks and batches packed, by levels
}

// levelTasks is the tasks and the batches of the parts packed at some
// levels.
type levelTasks struct{ tasks, batches int64 }

// minTasksPerThread is the fewest tasks a launch gives each resident
// thread (unless capTasks is smaller): enough that a launch's tail, its
// threads idle while the longest tasks finish, stays within a few percent
// of one launch of the same tasks (the launch replay's factors are in
// docs/performance.md).
const minTasksPerThread = 128

// DefaultMaxLaunch is the longest a launch should run (launchPlanner's
// bound) unless the target launch time is longer.
const DefaultMaxLaunch = time.Second

// levelGrowth is the tasks one more level of split makes of each, about.
const levelGrowth = 6

// newLaunchPlanner returns the planner of a solve whose kernel keeps
// residentThreads threads resident (at least 1 is assumed), whose launches
// hold at most capTasks tasks and aim at target.
func newLaunchPlanner(residentThreads, capTasks int, target time.Duration) *launchPlanner {
	return &launchPlanner{resident: max(1, residentThreads), capTasks: max(1, capTasks), target: target,
		bound: max(DefaultMaxLaunch, target), batch: 1, seen: map[int]*levelTasks{}}
}

// splits makes p split eightfold tasks of at most levels levels, to as
// few as minLevels (at least 2, or levels if fewer), packed in batches of
// batch tasks.
func (p *launchPlanner) splits(levels, minLevels, batch int) *launchPlanner {
	p.levels, p.minLevels, p.batch = levels, min(levels, max(2, minLevels)), max(1, batch)
	return p
}

// floor is the fewest tasks of a launch: minTasksPerThread per resident
// thread, or capTasks.
func (p *launchPlanner) floor() int {
	return int(min(int64(p.resident)*minTasksPerThread, int64(p.capTasks)))
}

// next returns the tasks of the next launch group and the levels to split
// its tasks to (p's default before a launch has been observed).
func (p *launchPlanner) next() (tasks, levels int) {
	floor := p.floor()
	if p.perBatch <= 0 {
		return floor, p.startLevels()
	}
	levels = p.levels
	for levels > p.minLevels && p.seconds(floor, levels) > p.bound.Seconds() {
		levels--
	}
	per := p.tasksPerBatch(levels)
	n := max(float64(floor), p.target.Seconds()/p.perBatch*per)
	if p.levels > 0 && levels == p.minLevels {
		n = min(n, max(1, p.bound.Seconds()/p.perBatch*per))
	}
	return int(min(n, float64(p.capTasks))), levels
}

// startLevels is the levels of the launches sized before the GPU's speed
// is known: at most maxStartLevels, whose tasks are short on any GPU, so
// that the first launches, sized blind, are short too.
func (p *launchPlanner) startLevels() int {
	if p.levels <= 0 {
		return p.levels
	}
	return max(p.minLevels, min(p.levels, maxStartLevels))
}

// maxStartLevels bounds the levels of the launches before the first one
// has ended (startLevels): eightfold tasks of 12 levels take about a
// millisecond of one thread, the largest a few tens of times that
// (docs/performance.md).
const maxStartLevels = 12

// maxBatches is the most batches of a launch: those the GPU runs within
// the bound, one at least; 0 (any) before a launch has been observed.
func (p *launchPlanner) maxBatches() int {
	if p.perBatch <= 0 || p.levels <= 0 {
		return 0
	}
	return max(1, int(p.bound.Seconds()/p.perBatch))
}

// seconds is the GPU time of a launch of n tasks split to levels.
func (p *launchPlanner) seconds(n, levels int) float64 {
	return float64(n) / p.tasksPerBatch(levels) * p.perBatch
}

// tasksPerBatch is the tasks a batch makes split to levels: as packed, or
// from the nearest levels packed (the deeper of two as near),
// levelGrowth per level between them.
func (p *launchPlanner) tasksPerBatch(levels int) float64 {
	for d := 0; d < 64; d++ {
		for _, l := range []int{levels - d, levels + d} {
			if t := p.seen[l]; t != nil && t.batches > 0 {
				return float64(t.tasks) / float64(t.batches) * math.Pow(levelGrowth, float64(l-levels))
			}
		}
	}
	return float64(p.batch)
}

// observe records a finished launch of group g that kept the GPU busy
// for busy: the time from the end of the launch before it (or from its
// own start, if later) to its end.
func (p *launchPlanner) observe(g *group, busy time.Duration) {
	batches := 0
	for _, pt := range g.parts {
		t := p.seen[pt.levels]
		if t == nil {
			t = &levelTasks{}
			p.seen[pt.levels] = t
		}
		t.tasks += int64(pt.count)
		t.batches += int64(len(pt.batches))
		batches += len(pt.batches)
	}
	if batches == 0 || busy <= 0 {
		return
	}
	// Sums, each launch weighing as long as it ran: the first, short
	// launches, whose times are mostly the host's delay in seeing them
	// end, count little once longer ones have run.
	p.busy = p.busy*busyDecay + busy.Seconds()
	p.batches = p.batches*busyDecay + float64(batches)
	p.perBatch = p.busy / p.batches
}

// busyDecay is the weight of the launches before one, each launch, in the
// planner's time per batch.
const busyDecay = 0.5
