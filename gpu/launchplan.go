package gpu

import (
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// slotBytes bounds one slot's task buffers (cuda_solve.go), which caps the
// tasks per launch: 256 MiB hold 11.2 million eightfold tasks (24 bytes),
// minTasksPerThread for each of up to 87,000 resident threads (an H100
// keeps 84,480 at N=18 to 20, fewer above, 101,376 at N=17: 110 each),
// and 6.7 million symmetry boards of depth 7 (40 bytes), 40 for each of
// the -gpu-dynamic kernel's 168,960 threads (36 at depth 8). A solve pins
// two slots on the host and allocates two on the device.
const slotBytes = 256 << 20

// launchPlanner sizes the launches of a GPU solve (issue 23): how many
// tasks the producer packs into the next launch group.
//
// A launch ends with a tail: once its counter has no task left, each
// thread finishes the task it holds, and a block leaves its SM only when
// all its threads are done, so a block's threads wait for its slowest
// one, and the host queues the launch after next only when the whole
// launch is done. The next launch's blocks take the SM space as blocks
// leave, but the waits inside the blocks are lost, and they last about as
// long as the slowest tasks in hand: task costs vary a lot (the largest
// eightfold task of N=17 costs 20 times the mean, one in a hundred more
// than 4 times; gpu/testdata/taskcosts.tsv). A launch so loses a few mean
// tasks per thread, out of the tasks per thread it runs: only launches
// that give every resident thread many tasks keep the loss small, and
// that holds whatever a task costs, so the floor is in tasks, not time.
// The replay of the launch loop in launchreplay_test.go measures it
// (TestLaunchPlanReplay; docs/performance.md, "Launch sizing").
//
// The rule:
//
//   - at least minTasksPerThread tasks for every resident thread;
//   - more when the tasks are short: as many as the throughput so far runs
//     in the target launch time, so that launches (and the host's work
//     per launch) stay a few per second at small N;
//   - at most capTasks, what a slot's buffers hold.
//
// The work of a launch is so bounded by max(target, minTasksPerThread ×
// one thread's mean task time), plus the tail, and by capTasks tasks. A
// cancelled solve (Ctrl-C) abandons the launches in flight, two at most
// (one per slot), and so loses at most twice that; their batches stay
// undone for a checkpoint to resume. By the speed model a thread's mean
// eightfold task takes 0.13 s at N=22 on an H100: launches of 16.5 s. The
// bound grows with the tasks (N=24: 57 s; N=26: 40 min): a deeper split
// is the way to shorter launches there, not fewer tasks per thread, which
// would leave much of the GPU idle in every tail.
type launchPlanner struct {
	resident int           // threads the GPU keeps resident for the kernel
	capTasks int           // the most tasks of one launch (a slot's buffers)
	target   time.Duration // the launch time to aim at when tasks are short
	tasks    int64         // the tasks of the launches observed
	busy     time.Duration // the time they took
}

// minTasksPerThread is the fewest tasks a launch gives each resident
// thread (unless capTasks is smaller). In the replay with the costs of
// N=17's eightfold tasks, launches of 8, 16, 32, 64 and 128 tasks per
// thread take 1.61, 1.31, 1.15, 1.08 and 1.04 times as long as one launch
// of the same tasks (the symmetry boards' tails are shorter: 1.27, 1.13,
// 1.07, 1.03, 1.02); with the estimated costs of N=26 to 28, whose tails
// are longer, 64 gives 1.10 to 1.12 and 128 gives 1.03 to 1.05.
const minTasksPerThread = 128

// newLaunchPlanner returns the planner of a solve whose kernel keeps
// residentThreads threads resident (at least 1 is assumed), whose launches
// hold at most capTasks tasks and aim at target.
func newLaunchPlanner(residentThreads, capTasks int, target time.Duration) *launchPlanner {
	return &launchPlanner{resident: max(1, residentThreads), capTasks: max(1, capTasks), target: target}
}

// firstGroupTasks is the size of the launch groups the producer packs
// before consume knows the kernel's resident threads: the planner's floor
// for the most threads sms SMs can hold (plan.ResidentThreadsPerSM each),
// so at least the planner's first size whatever the kernel's occupancy,
// and at most capTasks.
func firstGroupTasks(sms, capTasks int) int {
	return newLaunchPlanner(max(1, sms)*plan.ResidentThreadsPerSM, capTasks, 0).floor()
}

// floor is the fewest tasks of a launch: minTasksPerThread per resident
// thread, or capTasks.
func (p *launchPlanner) floor() int {
	return int(min(int64(p.resident)*minTasksPerThread, int64(p.capTasks)))
}

// next returns the tasks of the next launch group.
func (p *launchPlanner) next() int {
	n := int64(p.floor())
	if p.busy > 0 && p.target > 0 {
		byTime := int64(float64(p.tasks) * p.target.Seconds() / p.busy.Seconds())
		n = max(n, byTime)
	}
	return int(min(n, int64(p.capTasks)))
}

// observe records a finished launch of tasks tasks that kept the GPU busy
// for busy: the time from the end of the launch before it (or from the
// start) to its end.
func (p *launchPlanner) observe(tasks int, busy time.Duration) {
	if tasks <= 0 || busy <= 0 {
		return
	}
	p.tasks += int64(tasks)
	p.busy += busy
}
