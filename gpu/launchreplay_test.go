package gpu

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

var replaySMs = flag.Int("replay.sms", 2, "TestLaunchPlanReplay: the SMs of the modelled GPU (132: a whole H100, minutes)")

// The replay model of the launch loop (consume and produce) on one GPU:
//
//   - The GPU has sms SMs, each holding blocksPerSM blocks of threads
//     threads of the kernel (its registers and shared memory decide, as the
//     driver's occupancy calculation does); resident = sms × blocksPerSM ×
//     threads.
//   - A launch of n tasks runs min(ceil(n/threads), sms × blocksPerSM)
//     blocks (a fetching kernel's grid). Each thread takes the launch's
//     next task from its counter when it has finished the one before, and
//     stops when none is left; a block leaves its SM when all its threads
//     have stopped, and its place goes to the next block waiting, of this
//     launch or, once all of this launch's blocks have started, of the
//     next launch queued (two streams: launches k and k+1 overlap).
//   - The host keeps two launches queued: it waits for launch k to end,
//     reports it to the sizing rule (observe: its tasks, the time since the
//     launch before it ended) and queues launch k+2 at once (the host's own
//     time, microseconds a launch, is left out).
//   - The producer packs groups ahead of the launches (a channel of two and
//     the group it builds): group k is sized when launch k-3 is queued, by
//     the rule's state at that time.
//   - Task costs are drawn independently from a task list's recorded
//     distribution (gpu/testdata/taskcosts.tsv), in seconds of one thread:
//     nodes × the seconds a thread takes per node, resident threads ÷ the
//     GPU's node rate by the speed model (modelRate). The real list's
//     order (tasks of one border together) is not kept.
//   - The first three groups take the rule's first size (the real
//     producer packs them to firstGroupTasks, which is that or more, up to
//     the slot, until consume knows the resident threads).
//
// To stay fast the model GPU is a slice of an H100: sms SMs (flag
// -replay.sms, default 2) of the H100's 132, with every count of tasks
// (the task list, the slot capacity, the old rule's constants) scaled by
// sms/132, so that tasks per thread, per launch and per run are the
// H100's; and where a run is long, only its first windowTasks tasks per
// resident thread are replayed (the tails of later launches are like those
// of the first).

// gpuSlice is the modelled GPU.
type gpuSlice struct {
	sms, blocksPerSM, threads int
}

func (g gpuSlice) resident() int { return g.sms * g.blocksPerSM * g.threads }

// sizer is a launch-sizing rule: the planner, or the rule it replaces.
type sizer interface {
	next() int
	observe(tasks int, busy time.Duration)
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

func (o *oldRule) next() int {
	if o.elapsed <= 0 {
		return o.first
	}
	t := int64(float64(o.tasks) * o.target.Seconds() / o.elapsed.Seconds())
	return int(min(max(t, int64(o.floor)), int64(o.capTasks)))
}

func (o *oldRule) observe(tasks int, busy time.Duration) {
	o.tasks += int64(tasks)
	o.elapsed += busy
}

// oneLaunch sizes one launch of every task: no launch boundaries, the
// reference that shows what the task list's own end costs.
type oneLaunch struct{}

func (oneLaunch) next() int                  { return math.MaxInt32 }
func (oneLaunch) observe(int, time.Duration) {}

// replayStats is what a replay measured.
type replayStats struct {
	wall, work   float64 // seconds: the replay's end, and the sum of the task costs
	launches     int
	sizes        []int // tasks of each launch
	minPerThread float64
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
// and the ramp of the first launch groups. The zero value packs every
// group at once (the replay's original assumption) and has no ramp.
type replayHost struct {
	rate float64         // tasks a second; 0: no time at all
	ramp func(k int) int // the most tasks of group k (rampTasks), or nil
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
	type launch struct {
		size, taken     int
		ready           float64 // when the producer had packed it
		blocks, started int
		running         int // blocks started and not yet done
		queued, ended   bool
		endTime         float64
	}
	var st replayStats
	slots := g.sms * g.blocksPerSM
	var launches []*launch
	sizes := map[int]int{}
	ready := map[int]float64{}
	remaining := total
	now := 0.0
	packed := 0.0              // when the producer finishes the group it packs
	sizeGroup := func(k int) { // the producer packs group k
		n := min(s.next(), remaining)
		if prod.ramp != nil {
			n = min(n, prod.ramp(k))
		}
		remaining -= n
		sizes[k] = n
		if prod.rate > 0 {
			packed = max(packed, now) + float64(n)/prod.rate
		}
		ready[k] = packed
	}
	// blockOf[thread slot] is the launch of the block in that SM place.
	threadLaunch := make([]int32, slots*g.threads)
	blockLeft := make([]int, slots) // threads of the place's block still working
	freePlaces := make([]int, 0, slots)
	for i := slots - 1; i >= 0; i-- {
		freePlaces = append(freePlaces, i)
	}
	var h eventHeap
	nextStart := 0 // the first launch with blocks not yet started
	// take gives thread th of launch k its next task, or reports none.
	take := func(th int, k int) bool {
		l := launches[k]
		if l.taken == l.size {
			return false
		}
		l.taken++
		c := cost()
		st.work += c
		h.push(simEvent{now + c, int32(th)})
		return true
	}
	var endBlock func(place int)
	startBlocks := func() {
		for len(freePlaces) > 0 && nextStart < len(launches) {
			l := launches[nextStart]
			if !l.queued || l.ready > now {
				return
			}
			if l.started == l.blocks {
				nextStart++
				continue
			}
			place := freePlaces[len(freePlaces)-1]
			freePlaces = freePlaces[:len(freePlaces)-1]
			l.started++
			l.running++
			blockLeft[place] = 0
			for i := 0; i < g.threads; i++ {
				th := place*g.threads + i
				threadLaunch[th] = int32(nextStart)
				if take(th, nextStart) {
					blockLeft[place]++
				}
			}
			if blockLeft[place] == 0 {
				endBlock(place)
			}
		}
	}
	lastEnd := 0.0
	hostNext := 0 // the launch the host waits for
	queue := func(k int) {
		if _, ok := sizes[k]; !ok {
			sizeGroup(k)
		}
		if sizes[k] == 0 {
			return
		}
		n := sizes[k]
		for len(launches) <= k {
			launches = append(launches, nil)
		}
		launches[k] = &launch{size: n, ready: ready[k], blocks: min((n+g.threads-1)/g.threads, slots), queued: true}
		if ready[k] > now {
			h.push(simEvent{ready[k], -1}) // its blocks may start then
		}
		st.sizes = append(st.sizes, n)
		// The producer packs group k+3 now.
		if remaining > 0 {
			sizeGroup(k + 3)
		}
	}
	endBlock = func(place int) {
		k := int(threadLaunch[place*g.threads])
		l := launches[k]
		l.running--
		freePlaces = append(freePlaces, place)
		if l.running == 0 && l.started == l.blocks {
			l.ended, l.endTime = true, now
			// The host finishes launches in order and queues the next.
			for hostNext < len(launches) && launches[hostNext] != nil && launches[hostNext].ended {
				d := launches[hostNext]
				s.observe(d.size, time.Duration((d.endTime-lastEnd)*1e9))
				lastEnd = d.endTime
				hostNext++
				queue(hostNext + 1)
			}
		}
	}
	// Groups 0, 1 and 2 are packed before any launch ends.
	sizeGroup(0)
	sizeGroup(1)
	sizeGroup(2)
	queue(0)
	queue(1)
	startBlocks()
	for len(h) > 0 {
		e := h.pop()
		now = e.t
		if e.thread < 0 { // a group packed: its launch may start
			startBlocks()
			continue
		}
		th := int(e.thread)
		place := th / g.threads
		if !take(th, int(threadLaunch[th])) {
			blockLeft[place]--
			if blockLeft[place] == 0 {
				endBlock(place)
			}
		}
		startBlocks()
	}
	st.wall = now
	st.launches = len(st.sizes)
	st.minPerThread = math.Inf(1) // none but the last
	for _, n := range st.sizes[:len(st.sizes)-1] {
		st.minPerThread = min(st.minPerThread, float64(n)/float64(g.resident()))
	}
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
	} else {
		// nq_symmetry_boards_dyn: 48 registers, 768 bytes of static shared memory.
		rc.gpu = gpuSlice{132, h100BlocksPerSM(48, DefaultThreads, 768), DefaultThreads}
		rc.capTasks = slotBytes / (4 * (c.depth + 3))
	}
	nsPerNode := float64(rc.gpu.resident()) / modelRate(c.algo, c.n) // seconds of one thread per node
	rc.perTaskSeconds = c.mean * nsPerNode
	return rc
}

// The replay's windows: the new rule and the single launch run the first
// windowTasks tasks per resident thread of a run at most (several of the
// new rule's launches), the old rule, whose tails are long anyway, the
// first oldWindowTasks.
const (
	windowTasks    = 256
	oldWindowTasks = 64
)

type replayRow struct {
	c                     replayCase
	scaled                gpuSlice
	perLaunch             int     // the new rule's tasks per launch, on the H100
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
	st := replay(g, total, costDrawer(c, rc.perTaskSeconds, seed), newLaunchPlanner(res, capTasks, DefaultLaunchTime))
	one := replay(g, total, costDrawer(c, rc.perTaskSeconds, seed), oneLaunch{})
	r.newSlow, r.one, r.newTail = slow(st), slow(one), st.wall/one.wall
	r.perThread = st.minPerThread
	r.perLaunch = int(math.Round(float64(st.sizes[0]) / scale))
	r.launches = int64(len(st.sizes))
	if total < all { // a window of the run
		r.launches = int64(math.Ceil(float64(c.tasks) / float64(r.perLaunch)))
	}
	r.launchSeconds = float64(r.perLaunch) / float64(rc.gpu.resident()) * rc.perTaskSeconds

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

// producerRate is the pace of produce for eightfold tasks measured on the
// project's 2-core VM (BenchmarkProduceEightfold, N=20: 11.4 million
// tasks in 0.35 s): tasks a second, on the whole GPU's scale.
const producerRate = 32e6

// firstGroups sizes the first three groups as the real producer packs
// them, to firstGroupTasks, and the rest by the planner.
type firstGroups struct {
	plan   *launchPlanner
	first  int
	groups int
}

func (f *firstGroups) next() int {
	f.groups++
	if f.groups <= 3 {
		return f.first
	}
	return f.plan.next()
}

func (f *firstGroups) observe(n int, d time.Duration) { f.plan.observe(n, d) }

// TestLaunchReplayProducer replays the eightfold counts of N=18 to 23 with
// the host's enumeration taking its time (producerRate): the first group
// is firstGroupTasks, 11.2 million tasks on an H100 (all of N=18 to 20),
// and the GPU waits for it. The replay must show that wait (every run at
// least as long as packing its first group), and never a faster run than
// with the tasks packed at once. It records what two ramps would give:
// one small first launch (8 tasks per resident thread, then the planner),
// and groups doubling from 8 tasks per thread.
func TestLaunchReplayProducer(t *testing.T) {
	var tab strings.Builder
	fmt.Fprintf(&tab, "| N | tasks | replay s, packed at once | × packing at %.0f M tasks/s | × with one small first launch | × with doubling groups |\n|---|---|---|---|---|---|\n", producerRate/1e6)
	for _, c := range readTaskCosts(t) {
		if c.algo != nq.Eightfold || c.n < 18 || c.n > 23 {
			continue
		}
		rc := h100Case(c)
		sms := *replaySMs
		scale := float64(sms) / 132
		g := gpuSlice{sms, rc.gpu.blocksPerSM, rc.gpu.threads}
		capTasks := int(float64(rc.capTasks) * scale)
		total := min(int(math.Round(float64(c.tasks)*scale)), windowTasks*g.resident())
		perThread := sms * plan.ResidentThreadsPerSM // the producer's guess of the resident threads
		first := min(perThread*minTasksPerThread, capTasks)
		run := func(p replayHost) float64 {
			plan := newLaunchPlanner(g.resident(), capTasks, DefaultLaunchTime)
			seed := uint64(c.n)<<8 | uint64(len(c.algo))
			return replayProducing(g, total, costDrawer(c, rc.perTaskSeconds, seed), &firstGroups{plan: plan, first: first}, p).wall
		}
		rate := producerRate * scale
		ideal := run(replayHost{})
		packing := run(replayHost{rate: rate})
		single := run(replayHost{rate: rate, ramp: func(k int) int {
			if k == 0 {
				return 8 * perThread
			}
			return math.MaxInt32
		}})
		doubling := run(replayHost{rate: rate, ramp: func(k int) int { return 8 * perThread << min(k, 20) }})
		fmt.Fprintf(&tab, "| %d | %d | %.3g | %.3f | %.3f | %.3f |\n", c.n, c.tasks, ideal, packing/ideal, single/ideal, doubling/ideal)
		if wait := float64(min(first, total)) / rate; packing < wait {
			t.Errorf("N=%d: the replay with packing ends at %.3f s, before its first group is packed (%.3f s)", c.n, packing, wait)
		}
		for name, w := range map[string]float64{"packing": packing, "one small first launch": single, "doubling groups": doubling} {
			if w < ideal*0.999 {
				t.Errorf("N=%d: %s ends at %.4f s, before the replay with every group packed at once (%.4f s)", c.n, name, w, ideal)
			}
		}
	}
	t.Logf("modelled GPU: %d SMs of the H100's 132 (times are the slice's, which are the H100's)\n%s", *replaySMs, tab.String())
}
