package job

import (
	"time"
)

// A backend that counts beside faster ones (Config.Beside: the CPU next to
// GPUs) takes a batch only where that helps: when it would finish the
// batch before the others have finished every batch still unclaimed, by
// the others' pace so far and its own time from claiming a batch to
// reporting it. Otherwise the others would wait for its last batches at
// the end of the count (a CPU's batch can take as long as a thousand of
// the GPU's), and the count would be slower with it than without.

// share is the state of that rule: under Job.mu.
type share struct {
	mainDone int               // batches the other backends finished in this run
	claimed  map[int]time.Time // the beside backends' batches in hand, and when they claimed them
	latency  time.Duration     // their time from claim to report, lately; 0 before one
	alone    bool              // every other backend has failed: they take every batch
}

// besideMargin is how much sooner than the others the beside backends
// must expect to finish a batch to take it.
const besideMargin = 1.5

// beside reports whether backend w counts beside the others.
func (j *Job) beside(w int) bool {
	return w >= 0 && j.cfg.Beside > 0 && w >= len(j.cfg.Backends)-j.cfg.Beside
}

// claimFor is backend w's claim: claim, or for a beside backend
// claimBeside.
func (j *Job) claimFor(w int) func(int) bool {
	if !j.beside(w) {
		return j.claim
	}
	return j.claimBeside
}

// claimBeside claims batch i for a beside backend if that helps.
func (j *Job) claimBeside(i int) bool {
	if !j.cfg.Shard.Has(i) || j.stopped.Load() {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.claimed.Has(i) || !j.besideHelps() {
		return false
	}
	j.claimed.Add(i)
	j.nClaimed++
	if j.share.claimed == nil {
		j.share.claimed = map[int]time.Time{}
	}
	j.share.claimed[i] = j.cfg.Now()
	return true
}

// besideHelps reports whether a beside backend taking one more batch now
// would finish it before the others finish the rest. It helps as long as
// nothing says otherwise: before the others have reported a batch, and
// while the plan (the batches left) is not known.
func (j *Job) besideHelps() bool {
	if j.share.alone || j.share.mainDone == 0 || j.share.latency == 0 {
		return true
	}
	select {
	case <-j.planReady:
	default:
		return true
	}
	if j.planErr != nil {
		return true
	}
	left := j.cfg.Shard.Batches(j.plan.Batches) - j.nClaimed
	elapsed := j.cfg.Now().Sub(j.started).Seconds()
	mainLeft := float64(left) * elapsed / float64(j.share.mainDone)
	return besideMargin*j.share.latency.Seconds() < mainLeft
}

// shareDone records batches finished by backend w (under Job.mu).
func (j *Job) shareDone(w int, batches []int) {
	if w < 0 {
		return // the job's own host batch says nothing of the backends' pace
	}
	if !j.beside(w) {
		j.share.mainDone += len(batches)
		return
	}
	now := j.cfg.Now()
	for _, i := range batches {
		if t, ok := j.share.claimed[i]; ok {
			d := now.Sub(t)
			if j.share.latency > 0 {
				d = (d + j.share.latency) / 2
			}
			j.share.latency = d
			delete(j.share.claimed, i)
		}
	}
}
