package gpu

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

var replaySMs = flag.Int("replay.sms", 2, "TestLaunchPlanReplay: the SMs of the modelled GPU (132: a whole H100, minutes)")

// The replay model of the launch loop (consume and produce) on one GPU, a
// slice of an H100 (docs/performance.md, "The replay", says it whole):
// sms SMs (-replay.sms, default 2) of resident blocks by the occupancy
// rules; a launch's grid of at most the resident blocks, whose threads
// take its tasks from a counter, a block leaving when its threads are
// done and its place going to the next block queued, of this launch or
// the next; the host queueing launch k+F when launch k ends (F:
// replayHost.inFlight) and reporting it to the sizing rule; the producer
// sizing group k when launch k-3 is queued, at replayHost's pace; task
// costs drawn from a list's recorded distribution (taskcosts.tsv) times
// one thread's seconds a node by the speed model, split tasks
// levelGrowth times shorter a level. Every count of tasks is scaled by
// sms/132, so that tasks per thread and per launch are the H100's; long
// runs are replayed in windows (windowLaunches, windowTasks).

// gpuSlice is the modelled GPU.
type gpuSlice struct {
	sms, blocksPerSM, threads int
}

func (g gpuSlice) resident() int { return g.sms * g.blocksPerSM * g.threads }

// sizer is a launch-sizing rule: the planner, or the rule it replaces. It
// sizes a launch in tasks and the levels they are split to (0: as
// listed), and observes the launches.
type sizer interface {
	next() (tasks, levels int)
	observe(tasks, levels int, busy time.Duration)
}

// plannerSizer is the launch planner as a sizer, on a task list whose
// batches hold batch tasks at its default levels and levelGrowth times
// more per level of split; with first, the producer's groups sized
// before a launch has ended (inFlight of them: the producer then waits for
// the end of one, which the replay leaves out).
type plannerSizer struct {
	p      *launchPlanner
	batch  int
	first  int
	groups int
}

func (a *plannerSizer) next() (int, int) {
	n, l := a.p.next()
	if a.first > 0 && a.groups < inFlight {
		n = min(n, a.first)
	}
	a.groups++
	return n, l
}

func (a *plannerSizer) observe(tasks, levels int, busy time.Duration) {
	per := float64(a.batch) * splitScale(a.p.levels, levels)
	a.p.observe(launchOf(tasks, max(1, int(float64(tasks)/per)), levels), busy)
}

// splitScale is the tasks a task of def levels makes split to levels,
// and how many times shorter each is: levelGrowth per level (1 where
// levels is 0 or not below def).
func splitScale(def, levels int) float64 {
	if levels <= 0 || levels >= def {
		return 1
	}
	return math.Pow(levelGrowth, float64(def-levels))
}

// oldRule is consume's rule before the planner: firstLaunch tasks until
// the throughput is known, then tasks done × target ÷ elapsed, at least
// floor and at most capTasks (floor and first scaled with the GPU).
type oldRule struct {
	first, floor, capTasks int
	target                 time.Duration
	tasks                  int64
	elapsed                time.Duration
}

func (o *oldRule) next() (int, int) {
	if o.elapsed <= 0 {
		return o.first, 0
	}
	t := int64(float64(o.tasks) * o.target.Seconds() / o.elapsed.Seconds())
	return int(min(max(t, int64(o.floor)), int64(o.capTasks))), 0
}

func (o *oldRule) observe(tasks, _ int, busy time.Duration) {
	o.tasks += int64(tasks)
	o.elapsed += busy
}

// oneLaunch sizes one launch of every task: no launch boundaries, the
// reference that shows what the task list's own end costs.
type oneLaunch struct{}

func (oneLaunch) next() (int, int)                { return math.MaxInt32, 0 }
func (oneLaunch) observe(int, int, time.Duration) {}

// replayStats is what a replay measured.
type replayStats struct {
	wall, work    float64 // seconds: the replay's end, and the sum of the task costs
	launches      int
	sizes         []int // tasks of each launch
	minPerThread  float64
	levels        int     // the levels of the launches at the middle of the run
	launchSeconds float64 // the median time from a launch's first block to its end
	cut           bool    // the run was cut at replayHost.maxTasks
}

// event heap: a thread's next finish.
type simEvent struct {
	t      float64
	thread int32
}

type eventHeap []simEvent

func (h *eventHeap) push(e simEvent) {
	*h = append(*h, e)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].t <= a[i].t {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *eventHeap) pop() simEvent {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(a) {
			break
		}
		m := l
		if r := l + 1; r < len(a) && a[r].t < a[l].t {
			m = r
		}
		if a[i].t <= a[m].t {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// replayHost is the host's side of a replay: how fast it enumerates tasks,
// the ramp of the first launch groups, and the split. The zero value packs
// every group at once (the replay's original assumption), has no ramp and
// no split.
type replayHost struct {
	rate float64         // tasks a second; 0: no time at all
	ramp func(k int) int // the most tasks of group k (rampTasks), or nil
	// levels is the default levels of the tasks, which a sizer may ask
	// to split (splitScale); 0: none.
	levels int
	// maxLaunches, if positive, ends the replay after that many launches
	// (a window of a run whose tasks are split).
	maxLaunches int
	// inFlight is the launches the host keeps queued; 0 means 2 (the
	// consumer before it kept inFlight).
	inFlight int
	// prepacked is the tasks packed before the count started (the head
	// packed while the GPU opened: PrepareEightfold): the first groups'
	// up to these take no time.
	prepacked float64
}

// replay runs total tasks, whose costs cost draws, through the launch loop
// on g with the sizing rule s, and the producer of the zero value.
func replay(g gpuSlice, total int, cost func() float64, s sizer) replayStats {
	return replayProducing(g, total, cost, s, replayHost{})
}

// replayProducing is replay with the producer's pace: group k is packed
// when launch k-3 is queued (0 to 2 at the start), after the group before
// it, and takes its tasks ÷ rate seconds; its launch starts no block
// before that.
func replayProducing(g gpuSlice, total int, cost func() float64, s sizer, prod replayHost) replayStats {
	r := newReplayRun(g, total, cost, s, prod)
	// Groups 0, 1 and 2 are packed before any launch ends.
	r.sizeGroup(0)
	r.sizeGroup(1)
	r.sizeGroup(2)
	for k := 0; k < r.depth; k++ {
		r.queue(k)
	}
	r.startBlocks()
	for len(r.h) > 0 {
		e := r.h.pop()
		r.now = e.t
		if e.thread < 0 { // a group packed: its launch may start
			r.startBlocks()
			continue
		}
		th := int(e.thread)
		place := th / g.threads
		if !r.take(th, int(r.threadLaunch[th])) {
			r.blockLeft[place]--
			if r.blockLeft[place] == 0 {
				r.endBlock(place)
			}
		}
		r.startBlocks()
	}
	return r.stats()
}

// replayLaunch is one launch of a replay.
type replayLaunch struct {
	size, taken     int
	levels          int
	scale           float64 // the split's: each task is 1/scale of a listed one
	ready           float64 // when the producer had packed it
	blocks, started int
	running         int // blocks started and not yet done
	queued, ended   bool
	startTime       float64
	endTime         float64
}

// replayRun is the state of one replay (replayProducing).
type replayRun struct {
	g             gpuSlice
	cost          func() float64
	s             sizer
	prod          replayHost
	st            replayStats
	depth, slots  int
	launches      []*replayLaunch
	sizes, levels map[int]int
	ready         map[int]float64
	remaining     float64 // listed tasks not yet in a group
	prepacked     float64 // tasks packed before the start not yet in a group
	now, packed   float64 // the clock; when the producer finishes the group it packs
	threadLaunch  []int32 // the launch of each thread place's block
	blockLeft     []int   // threads of each place's block still working
	freePlaces    []int
	h             eventHeap
	nextStart     int // the first launch with blocks not yet started
	hostNext      int // the launch the host waits for
	lastEnd       float64
}

func newReplayRun(g gpuSlice, total int, cost func() float64, s sizer, prod replayHost) *replayRun {
	r := &replayRun{g: g, cost: cost, s: s, prod: prod, depth: prod.inFlight, slots: g.sms * g.blocksPerSM, prepacked: prod.prepacked,
		sizes: map[int]int{}, levels: map[int]int{}, ready: map[int]float64{}, remaining: float64(total)}
	if r.depth <= 0 {
		r.depth = 2
	}
	r.threadLaunch = make([]int32, r.slots*g.threads)
	r.blockLeft = make([]int, r.slots)
	for i := r.slots - 1; i >= 0; i-- {
		r.freePlaces = append(r.freePlaces, i)
	}
	return r
}

// sizeGroup is the producer packing group k.
func (r *replayRun) sizeGroup(k int) {
	n, l := r.s.next()
	if r.prod.ramp != nil {
		n = min(n, r.prod.ramp(k))
	}
	scale := splitScale(r.prod.levels, l)
	n = int(min(float64(n), math.Ceil(r.remaining*scale)))
	if r.remaining -= float64(n) / scale; r.remaining < 0.5 {
		r.remaining = 0
	} else if r.prod.maxLaunches > 0 && k+1 >= r.prod.maxLaunches {
		r.remaining, r.st.cut = 0, true
	}
	r.sizes[k], r.levels[k] = n, l
	if r.prod.rate > 0 {
		ahead := min(float64(n), r.prepacked)
		r.prepacked -= ahead
		r.packed = max(r.packed, r.now) + (float64(n)-ahead)/r.prod.rate
	}
	r.ready[k] = r.packed
}

// take gives thread th of launch k its next task, or reports none.
func (r *replayRun) take(th, k int) bool {
	l := r.launches[k]
	if l.taken == l.size {
		return false
	}
	l.taken++
	c := r.cost() / l.scale
	r.st.work += c
	r.h.push(simEvent{r.now + c, int32(th)})
	return true
}

// startBlocks starts the blocks of the launches queued and packed in the
// free places, in order.
func (r *replayRun) startBlocks() {
	for len(r.freePlaces) > 0 && r.nextStart < len(r.launches) {
		l := r.launches[r.nextStart]
		if !l.queued || l.ready > r.now {
			return
		}
		if l.started == l.blocks {
			r.nextStart++
			continue
		}
		place := r.freePlaces[len(r.freePlaces)-1]
		r.freePlaces = r.freePlaces[:len(r.freePlaces)-1]
		if l.started == 0 {
			l.startTime = r.now
		}
		l.started++
		l.running++
		r.blockLeft[place] = 0
		for i := 0; i < r.g.threads; i++ {
			th := place*r.g.threads + i
			r.threadLaunch[th] = int32(r.nextStart)
			if r.take(th, r.nextStart) {
				r.blockLeft[place]++
			}
		}
		if r.blockLeft[place] == 0 {
			r.endBlock(place)
		}
	}
}

// queue is the host queueing launch k (and the producer sizing group
// k+3).
func (r *replayRun) queue(k int) {
	if _, ok := r.sizes[k]; !ok {
		r.sizeGroup(k)
	}
	n := r.sizes[k]
	if n == 0 {
		return
	}
	for len(r.launches) <= k {
		r.launches = append(r.launches, nil)
	}
	r.launches[k] = &replayLaunch{size: n, levels: r.levels[k], scale: splitScale(r.prod.levels, r.levels[k]), ready: r.ready[k],
		blocks: min((n+r.g.threads-1)/r.g.threads, r.slots), queued: true}
	if r.ready[k] > r.now {
		r.h.push(simEvent{r.ready[k], -1}) // its blocks may start then
	}
	r.st.sizes = append(r.st.sizes, n)
	if r.remaining > 0 {
		r.sizeGroup(k + 3)
	}
}

// endBlock frees the block in place; at its launch's last, the host
// reports the launches that have ended, in order, and queues the next.
func (r *replayRun) endBlock(place int) {
	l := r.launches[int(r.threadLaunch[place*r.g.threads])]
	l.running--
	r.freePlaces = append(r.freePlaces, place)
	if l.running > 0 || l.started < l.blocks {
		return
	}
	l.ended, l.endTime = true, r.now
	for r.hostNext < len(r.launches) && r.launches[r.hostNext] != nil && r.launches[r.hostNext].ended {
		d := r.launches[r.hostNext]
		r.s.observe(d.size, d.levels, time.Duration((d.endTime-max(r.lastEnd, d.ready))*1e9))
		r.lastEnd = d.endTime
		r.hostNext++
		r.queue(r.hostNext + r.depth - 1)
	}
}

// stats is what the replay measured.
func (r *replayRun) stats() replayStats {
	st := r.st
	st.wall = r.now
	st.launches = len(st.sizes)
	st.minPerThread = math.Inf(1) // none but the last
	for _, n := range st.sizes[:len(st.sizes)-1] {
		st.minPerThread = min(st.minPerThread, float64(n)/float64(r.g.resident()))
	}
	var times []float64
	for _, l := range r.launches[:max(1, len(r.launches)-1)] {
		times = append(times, l.endTime-l.startTime)
	}
	slices.Sort(times)
	st.launchSeconds = times[len(times)/2]
	st.levels = r.launches[len(r.launches)/2].levels
	return st
}

// costDrawer returns a function that draws task costs in seconds of one
// thread from a recorded distribution (its quantiles, linear in between,
// rescaled to the mean exactly), secondsPerTask the mean.
func costDrawer(c taskCosts, secondsPerTask float64, seed uint64) func() float64 {
	q := c.q
	p := costQuantiles
	m := 0.0
	for i := 1; i < len(q); i++ {
		m += (p[i] - p[i-1]) * (q[i] + q[i-1]) / 2
	}
	scale := secondsPerTask / m
	rng := rand.New(rand.NewPCG(seed, 23))
	return func() float64 {
		u := rng.Float64()
		lo, hi := 0, len(p)-1
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if p[mid] <= u {
				lo = mid
			} else {
				hi = mid
			}
		}
		f := (u - p[lo]) / (p[hi] - p[lo])
		return (q[lo] + f*(q[hi]-q[lo])) * scale
	}
}

// The H100's occupancy (sm_90): 2048 threads, 64K registers (a warp's in
// units of 256), 233,472 bytes of shared memory (1 KiB of it reserved per
// block) and 32 blocks per SM.
func h100BlocksPerSM(regs, threads, sharedBytes int) int {
	warps := threads / 32
	perWarp := (regs*32 + 255) / 256 * 256
	return min(32, 2048/threads, 65536/(perWarp*warps), 233472/(sharedBytes+1024))
}

// modelRate is the GPU's node rate (nodes/s) of the kernels on an H100 by
// the speed model of docs/performance.md (MODEL, issue-bound: "ours,
// eightfold (dynamic)" and "ours, -gpu-dynamic", nodes ÷ seconds), at N=20
// to 23; other N take the nearest.
func modelRate(algo nq.Algo, n int) float64 {
	type point struct{ nodes, seconds float64 }
	eightfold := []point{{6.52e11, 0.741}, {5.52e12, 6.1}, {4.92e13, 52.9}, {4.61e14, 486}}
	symmetry := []point{{7.69e11, 5.21}, {6.49e12, 43.8}, {5.79e13, 391}, {5.42e14, 3650}}
	pts := symmetry
	if algo == nq.Eightfold {
		pts = eightfold
	}
	pt := pts[min(max(n, 20), 23)-20]
	return pt.nodes / pt.seconds
}

// replayCase is one task list on the H100.
type replayCase struct {
	costs          taskCosts
	gpu            gpuSlice // the whole H100 (132 SMs)
	perTaskSeconds float64  // mean seconds of one thread per task
	capTasks       int      // the slot's capacity in tasks (consume's)
	levels         int      // eightfold: the most levels of the tasks sent (efLevels); 0: no split
}

// newSizer is the planner of a GPU solve of case rc as a sizer: on res
// resident threads, capTasks a launch, eightfold tasks split as a solve
// splits them; with first, the producer's first groups too.
func newSizer(rc replayCase, res, capTasks, first int) sizer {
	p := newLaunchPlanner(res, capTasks, DefaultLaunchTime)
	if rc.levels > 0 {
		p.splits(rc.levels, 2, 256)
	}
	return &plannerSizer{p: p, batch: 256, first: first}
}

func h100Case(c taskCosts) replayCase {
	rc := replayCase{costs: c}
	if c.algo == nq.Eightfold {
		threads := DefaultThreads
		for threads > 32 && efStackBytes(c.n, c.depth, threads) > MaxSharedStack {
			threads -= 32
		}
		// nq_eightfold: 32 registers, 256 bytes of static shared memory.
		rc.gpu = gpuSlice{132, h100BlocksPerSM(32, threads, efStackBytes(c.n, c.depth, threads)+256), threads}
		rc.capTasks = slotBytes / (8 + 8 + 4 + 4)
		rc.levels = efLevels(c.n, c.depth)
	} else {
		// nq_symmetry_boards_dyn: 48 registers, 768 bytes of static shared memory.
		rc.gpu = gpuSlice{132, h100BlocksPerSM(48, DefaultThreads, 768), DefaultThreads}
		rc.capTasks = slotBytes / (4 * (c.depth + 3))
	}
	nsPerNode := float64(rc.gpu.resident()) / modelRate(c.algo, c.n) // seconds of one thread per node
	rc.perTaskSeconds = c.mean * nsPerNode
	return rc
}

// The replay's windows: the new rule runs the first windowLaunches
// launches of a run at most, the single launch the first windowTasks
// tasks per resident thread, the old rule, whose tails are long anyway,
// the first oldWindowTasks.
const (
	windowLaunches = 16
	windowTasks    = 256
	oldWindowTasks = 64
)

type replayRow struct {
	c                     replayCase
	scaled                gpuSlice
	perLaunch             int     // the new rule's tasks per launch, on the H100
	levels                int     // the levels its launches split the tasks to
	perThread             float64 // the fewest tasks per resident thread of a launch but the run's last
	launches              int64   // launches of the whole run, on the H100
	launchSeconds         float64 // the new rule's launch time, on the H100
	oldSlow, newSlow, one float64 // wall ÷ (work ÷ resident threads)
	newTail, oldTail      float64 // wall ÷ the single launch's wall
}

func replayH100(c taskCosts, sms int) replayRow {
	rc := h100Case(c)
	r := replayRow{c: rc}
	scale := float64(sms) / 132
	g := gpuSlice{sms, rc.gpu.blocksPerSM, rc.gpu.threads}
	r.scaled = g
	res := g.resident()
	all := int(math.Round(float64(c.tasks) * scale))
	capTasks := int(float64(rc.capTasks) * scale)
	seed := uint64(c.n)<<8 | uint64(len(c.algo))
	slow := func(st replayStats) float64 { return st.wall / (st.work / float64(res)) }

	total := min(all, windowTasks*res)
	st := replayProducing(g, all, costDrawer(c, rc.perTaskSeconds, seed), newSizer(rc, res, capTasks, 0),
		replayHost{levels: rc.levels, maxLaunches: windowLaunches, inFlight: inFlight})
	one := replay(g, total, costDrawer(c, rc.perTaskSeconds, seed), oneLaunch{})
	r.newSlow, r.one = slow(st), slow(one)
	r.newTail = r.newSlow / r.one
	r.perThread = st.minPerThread
	r.perLaunch = int(math.Round(float64(st.sizes[0]) / scale))
	r.launches = int64(len(st.sizes))
	r.levels, r.launchSeconds = st.levels, st.launchSeconds
	if st.cut { // a window of the run: its launches' share of the list
		perLaunch := st.work / rc.perTaskSeconds / float64(len(st.sizes)) / scale
		r.launches = int64(math.Ceil(float64(c.tasks) / perLaunch))
	}

	total = min(all, oldWindowTasks*res)
	o := &oldRule{first: max(1, int(firstLaunchOld*scale)), floor: max(1, int(4096*scale)), capTasks: capTasks, target: DefaultLaunchTime}
	so := replay(g, total, costDrawer(c, rc.perTaskSeconds, seed), o)
	oneOld := replay(g, total, costDrawer(c, rc.perTaskSeconds, seed), oneLaunch{})
	r.oldSlow, r.oldTail = slow(so), so.wall/oneOld.wall
	return r
}

// firstLaunchOld is the first launch of the rule the planner replaced.
const firstLaunchOld = 1 << 14

// TestLaunchPlanReplay replays the launch loop with the recorded task
// costs of N=17 to 28, eightfold and symmetry, on an H100 (a slice of it,
// see above), with the planner and with the rule it replaced, and checks
// that every launch gives each resident thread many tasks and that the
// launch tails cost the planner under a tenth of the time: its replay
// takes less than 1.1 times as long as one launch of the same tasks (the
// task list's own end, which no launch sizing avoids, left out). The old
// rule fails it at every N, by 2 times and more from N=20 on.
func TestLaunchPlanReplay(t *testing.T) {
	rows := readTaskCosts(t)
	var tab strings.Builder
	fmt.Fprintf(&tab, "| N | algo | tasks | resident threads | tasks per launch | tasks per thread | launches | launch s | mean task s | slowdown old rule | slowdown new rule | one launch | new ÷ one launch | old ÷ one launch |\n")
	fmt.Fprintf(&tab, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	seen := map[string]bool{}
	for _, c := range rows {
		seen[fmt.Sprint(c.algo, c.n)] = true
		r := replayH100(c, *replaySMs)
		perThread := fmt.Sprintf("%.1f", r.perThread)
		if math.IsInf(r.perThread, 1) {
			perThread = "(one launch)"
		}
		fmt.Fprintf(&tab, "| %d | %s | %d | %d | %d | %s | %d | %.3g | %.3g | %.2f | %.3f | %.3f | %.3f | %.2f |\n",
			c.n, c.algo, c.tasks, r.c.gpu.resident(), r.perLaunch, perThread, r.launches, r.launchSeconds, r.c.perTaskSeconds,
			r.oldSlow, r.newSlow, r.one, r.newTail, r.oldTail)
		if r.perThread < minReplayPerThread {
			t.Errorf("%s N=%d: a launch gives %.1f tasks per resident thread, want %d or more", c.algo, c.n, r.perThread, minReplayPerThread)
		}
		if r.newTail >= 1.1 {
			t.Errorf("%s N=%d: the launch tails slow the planner's replay by %.3f, want under 1.1", c.algo, c.n, r.newTail)
		}
		if r.oldTail < 1.1 || c.n >= 20 && r.oldTail < 2 {
			t.Errorf("%s N=%d: the old rule's launch tails slow it by only %.2f: the replay no longer shows the problem", c.algo, c.n, r.oldTail)
		}
	}
	for _, algo := range []nq.Algo{nq.Eightfold, nq.Symmetry} {
		for n := 17; n <= 28; n++ {
			if !seen[fmt.Sprint(algo, n)] {
				t.Errorf("%s: no costs of %s N=%d", taskCostsFile, algo, n)
			}
		}
	}
	t.Logf("modelled GPU: %d SMs of the H100's 132\n%s", *replaySMs, tab.String())
}

// minReplayPerThread is the fewest tasks per resident thread the replay
// accepts in a launch (the run's last launch, which holds what is left,
// aside).
const minReplayPerThread = 32

// The host's pace, eightfold tasks packed a second (BenchmarkProduceEightfold,
// docs/performance.md, where the hosts are described): oldProducerRate,
// the producer before it ran on every core (N=20); producerRateVM, now,
// on the development host's cores (N=20); producerRate16, now, projected
// to the 16 cores of the H100 host at 5/8 of a perfect speed-up.
const (
	oldProducerRate = 32e6
	producerRateVM  = 45e6
	producerRate16  = 400e6
)

// oldHost sizes the groups as the producer did before the ramp and the
// bound: the first three groups of firstGroupTasks, then the planner with
// no bound and no split.
type oldHost struct {
	p      *launchPlanner
	first  int
	groups int
}

func (o *oldHost) next() (int, int) {
	o.groups++
	if o.groups <= 3 {
		return o.first, 0
	}
	n, _ := o.p.next()
	return n, 0
}

func (o *oldHost) observe(n, _ int, d time.Duration) { o.p.observe(launchOf(n, max(1, n/256), 0), d) }

// TestLaunchReplayProducer replays the eightfold counts of N=18 to 22 with
// the host's packing taking its time, as the producer runs now (its
// groups sized before a launch has ended firstTasksPerThread tasks a
// resident thread, then the planner's, bound and split; from N=21 the
// first windowLaunches launches) at the VM's pace and at the H100 host's
// (producerRate16), without and with the head of the list packed while
// the GPU opened (PrepareEightfold), and as it ran before (one group of
// up to a slot first, at oldProducerRate), each against the same host
// with every group packed at once. With the head, packing at the H100
// host's pace must cost at most 5% at every N, and the head must take
// less time to pack at that pace than the H100 took to open; no run may
// end before its first group is packed or before the one packed at once.
func TestLaunchReplayProducer(t *testing.T) {
	if head := float64(slotBytes/taskBytes(eightfoldLayout, nq.Spec{})) / producerRate16; head > h100OpenSeconds {
		t.Errorf("a slot's head takes %.3f s to pack on 16 cores, longer than the H100's %.2f s to open", head, h100OpenSeconds)
	}
	var tab strings.Builder
	fmt.Fprintf(&tab, "| N | tasks | replay s, packed at once | × packing on the VM (%.0f M tasks/s) | × packing on 16 cores (%.0f M/s) | × on 16 cores, the head packed while the GPU opens | before: replay s, packed at once | before: × packing at %.0f M/s | now (head) ÷ before |\n|---|---|---|---|---|---|---|---|---|\n",
		producerRateVM/1e6, producerRate16/1e6, oldProducerRate/1e6)
	for _, c := range readTaskCosts(t) {
		if c.algo != nq.Eightfold || c.n < 18 || c.n > 22 {
			continue
		}
		r := replayHosts(c)
		fmt.Fprintf(&tab, "| %d | %d | %.3g | %.3f | %.3f | %.3f | %.3g | %.3f | %.3f |\n", c.n, c.tasks, r.ideal.wall, r.vm/r.idealSlow, r.h16/r.idealSlow,
			r.h16Head/r.idealSlow, r.old.wall, r.oldPaced/r.oldSlow, r.h16Head/r.oldPaced)
		if r.h16Head > 1.05*r.idealSlow {
			t.Errorf("N=%d: packing at the H100 host's pace, the head packed ahead, makes the replay %.3f times as long as with the groups packed at once, want at most 1.05", c.n, r.h16Head/r.idealSlow)
		}
		if r.vmWall < r.firstPacked {
			t.Errorf("N=%d: the replay ends at %.3f s, before its first group is packed (%.3f s)", c.n, r.vmWall, r.firstPacked)
		}
		for name, w := range map[string]float64{"the VM's pace": r.vm, "16 cores' pace": r.h16, "16 cores' pace and the head": r.h16Head} {
			if w < r.idealSlow*0.999 {
				t.Errorf("N=%d: %s: slowdown %.4f, below the replay with every group packed at once (%.4f)", c.n, name, w, r.idealSlow)
			}
		}
	}
	t.Logf("modelled GPU: %d SMs of the H100's 132 (times are the slice's, which are the H100's)\n%s", *replaySMs, tab.String())
}

// h100OpenSeconds is about how long the H100 took to open before a count
// (its context, self-test and module: docs/performance.md), the time
// the head has to be packed in.
const h100OpenSeconds = 0.35

// hostReplays is what TestLaunchReplayProducer measured of one N:
// slowdowns (wall ÷ (work ÷ resident threads)) of the producer now,
// packed at once (ideal), at the VM's pace and at the H100 host's, the
// latter also with the head packed ahead (h16Head), and of the producer
// before, packed at once and at its pace.
type hostReplays struct {
	ideal, old                  replayStats
	idealSlow, vm, h16, h16Head float64
	oldSlow, oldPaced           float64
	vmWall, firstPacked         float64
}

// replayHosts replays the eightfold list c on the H100 with the hosts of
// TestLaunchReplayProducer.
func replayHosts(c taskCosts) hostReplays {
	rc := h100Case(c)
	sms := *replaySMs
	scale := float64(sms) / 132
	g := gpuSlice{sms, rc.gpu.blocksPerSM, rc.gpu.threads}
	capTasks := int(float64(rc.capTasks) * scale)
	all := int(math.Round(float64(c.tasks) * scale))
	seed := uint64(c.n)<<8 | uint64(len(c.algo))
	res := g.resident()
	slow := func(st replayStats) float64 { return st.wall / (st.work / float64(res)) }
	first := min(res*firstTasksPerThread, res*minTasksPerThread, capTasks)
	if all <= min(res*minTasksPerThread, capTasks) {
		first = 0 // the whole list is one launch (runEightfold)
	}
	window := 0
	if c.n >= 21 {
		window = windowLaunches
	}
	now := func(rate, prepacked float64) replayStats {
		h := replayHost{rate: rate * scale, levels: rc.levels, maxLaunches: window, inFlight: inFlight, prepacked: prepacked}
		return replayProducing(g, all, costDrawer(c, rc.perTaskSeconds, seed), newSizer(rc, res, capTasks, first), h)
	}
	before := func(rate float64) replayStats {
		p := newLaunchPlanner(res, capTasks, DefaultLaunchTime)
		p.bound = time.Duration(math.MaxInt64)
		o := &oldHost{p: p, first: min(sms*plan.ResidentThreadsPerSM*minTasksPerThread, capTasks)}
		return replayProducing(g, all, costDrawer(c, rc.perTaskSeconds, seed), o, replayHost{rate: rate * scale})
	}
	var r hostReplays
	r.ideal, r.old = now(0, 0), before(0)
	vm := now(producerRateVM, 0)
	r.idealSlow, r.vm, r.h16 = slow(r.ideal), slow(vm), slow(now(producerRate16, 0))
	r.h16Head = slow(now(producerRate16, float64(capTasks))) // the head: a slot's tasks
	r.oldSlow, r.oldPaced = slow(r.old), slow(before(oldProducerRate))
	r.vmWall, r.firstPacked = vm.wall, float64(max(first, 1))/(producerRateVM*scale)
	return r
}
