package main

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/../../kernels
#include <stdlib.h>
#include "warpsim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"

	// The Go build cache does not see kernels/nqsearch.h, which the C
	// files include from outside this directory; package kernels embeds
	// it, so importing kernels rebuilds this package when it changes.
	_ "github.com/nqueens-gpu/nqueens-gpu/kernels"
)

// Class names, in the order of the WS_ constants of warpsim.h; they are
// the path names of the kernel-report TSV.
var classNames = [C.WS_CLASSES]string{"push", "dead", "leaf", "sol", "pop", "end", "orbit", "popc"}

// fallback names the path whose cost stands in for a class the kernel's
// step loop has no path of its own for.
var fallback = map[string]string{"orbit": "dead", "popc": "pop", "sol": "leaf", "leaf": "dead"}

// Sums are the search's own results over the traced tasks: counts by
// orbit (carry chain: weighted; peer: its half-board count in C8), nodes,
// and iterations by class.
type Sums struct {
	C2, C4, C8, Nodes uint64
	ByClass           [C.WS_CLASSES]uint64
}

// Unit is what one simulated unit (a round of 32 tasks, or a warp's whole
// run) cost.
type Unit struct {
	WarpSteps, LaneSteps, Insts, Tasks float64
	// ALU and IMAD: the step loop's instructions on the ALU pipe and on
	// the FMA pipe (the fixed costs are not split by pipe).
	ALU, IMAD float64
	Sums
}

func (u *Unit) add(o Unit) {
	u.WarpSteps += o.WarpSteps
	u.LaneSteps += o.LaneSteps
	u.Insts += o.Insts
	u.ALU += o.ALU
	u.IMAD += o.IMAD
	u.Tasks += o.Tasks
	u.C2 += o.C2
	u.C4 += o.C4
	u.C8 += o.C8
	u.Nodes += o.Nodes
	for i := range u.ByClass {
		u.ByClass[i] += o.ByClass[i]
	}
}

func unitOf(c *C.ws_unit) Unit {
	u := Unit{WarpSteps: float64(c.warp_steps), LaneSteps: float64(c.lane_steps), Insts: float64(c.insts),
		ALU: float64(c.alu), IMAD: float64(c.imad), Tasks: float64(c.tasks)}
	u.C2, u.C4, u.C8, u.Nodes = uint64(c.sums.c2), uint64(c.sums.c4), uint64(c.sums.c8), uint64(c.sums.nodes)
	for i := range u.ByClass {
		u.ByClass[i] = uint64(c.sums.by_class[i])
	}
	return u
}

// Costs are the warp instructions of one warp step by the set of classes
// its lanes took, and the fixed costs of a kernel.
type Costs struct {
	Step      [1 << C.WS_CLASSES]float64
	ALU, IMAD [1 << C.WS_CLASSES]float64 // the Step instructions on the ALU and FMA pipes
	PerRound  float64                    // rounds: each round of 32 tasks
	PerWarp   float64                    // refill: once per warp
	EndIsStep bool                       // the task's last iteration (class end) is a step of its own
	Steps     int                        // refill: steps per loop iteration (Step costs an iteration)
	// Stand-ins: class -> the path whose cost it takes (no path of its own).
	StandIns map[string]string
}

// CostsFor builds the step costs of kernel k from its paths: a warp step
// whose lanes took the classes of mask runs the union of their paths'
// blocks once each (divergent paths run one after the other, shared
// blocks once).
func CostsFor(k *KernelInfo) (*Costs, error) {
	c := &Costs{StandIns: map[string]string{}}
	var blocks [C.WS_CLASSES][]int
	for i, name := range classNames {
		p, ok := k.Paths[name]
		from := name
		for (!ok || p.Absent) && fallback[from] != "" {
			from = fallback[from]
			p, ok = k.Paths[from]
		}
		if !ok || p.Absent {
			continue // the kernel's search never takes it
		}
		if from != name {
			c.StandIns[name] = from
		}
		blocks[i] = p.Blocks
	}
	for mask := 1; mask < len(c.Step); mask++ {
		seen := map[int]bool{}
		var total BlockInfo
		for i := range classNames {
			if mask&(1<<i) == 0 {
				continue
			}
			for _, b := range blocks[i] {
				if !seen[b] {
					seen[b] = true
					bi, ok := k.Blocks[b]
					if !ok {
						return nil, fmt.Errorf("%s: path block %d has no size", k.Name, b)
					}
					total.Insts += bi.Insts
					total.ALU += bi.ALU
					total.IMAD += bi.IMAD
				}
			}
		}
		c.Step[mask] = float64(total.Insts)
		c.ALU[mask] = float64(total.ALU)
		c.IMAD[mask] = float64(total.IMAD)
	}
	_, c.EndIsStep = k.Paths["end"]
	c.Steps = max(1, k.Steps)
	if c.Steps > 1 && k.Mode != "refill" {
		return nil, fmt.Errorf("%s: %d steps per loop iteration in mode %s (only refill kernels may unroll)", k.Name, c.Steps, k.Mode)
	}
	return c, nil
}

func (c *Costs) cost() C.ws_costs {
	var cc C.ws_costs
	for i, v := range c.Step {
		cc.step[i] = C.double(v)
		cc.alu[i] = C.double(c.ALU[i])
		cc.imad[i] = C.double(c.IMAD[i])
	}
	cc.per_round = C.double(c.PerRound)
	cc.per_warp = C.double(c.PerWarp)
	if c.EndIsStep {
		cc.end_is_step = 1
	}
	cc.steps = C.int(c.Steps)
	return cc
}

// TaskList is a task list in launch order, in C memory.
type TaskList struct {
	Kind  string // "sym", "carry", "peer" or "ef"
	N     int
	Depth int // pre-placed rows (sym: the boards' depth; peer: rows; ef: the split)
	// Frames is the stack frames per thread the eightfold kernels need.
	Frames int
	Count  int64
	t      C.ws_tasks
	mem    []unsafe.Pointer
}

// Free releases the C memory of the list.
func (tl *TaskList) Free() {
	for _, p := range tl.mem {
		C.free(p)
	}
	tl.mem = nil
}

func (tl *TaskList) alloc32(words int) (*C.uint32_t, []uint32) {
	if words == 0 {
		words = 1
	}
	p := C.malloc(C.size_t(words) * 4)
	if p == nil {
		panic("warpsim: out of memory")
	}
	tl.mem = append(tl.mem, p)
	return (*C.uint32_t)(p), unsafe.Slice((*uint32)(p), words)
}

// SymmetryTasks lists the symmetry boards of n at depth, as the GPU
// kernels get them (tasks.EnumerateBoards order).
func SymmetryTasks(n, depth int) (*TaskList, error) {
	var rows, left, down, right []uint32
	err := tasks.EnumerateBoards(n, tasks.Symmetry, depth, 1<<16, func(b *tasks.Boards) error {
		rows = append(rows, b.Rows...)
		left = append(left, b.Left...)
		down = append(down, b.Down...)
		right = append(right, b.Right...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("symmetry boards N=%d depth %d: %w", n, depth, err)
	}
	tl := &TaskList{Kind: "sym", N: n, Depth: depth, Count: int64(len(left))}
	put := func(src []uint32) *C.uint32_t {
		p, s := tl.alloc32(len(src))
		copy(s, src)
		return p
	}
	tl.t.kind = C.WS_SYM
	tl.t.n, tl.t.depth, tl.t.count = C.int(n), C.int(depth), C.longlong(tl.Count)
	tl.t.rows, tl.t.left, tl.t.down, tl.t.right = put(rows), put(left), put(down), put(right)
	return tl, nil
}

// PeerTasks lists the peer model's tasks of n with rows pre-placed rows.
func PeerTasks(n, rows int) (*TaskList, error) {
	if n < 4 || n > 28 || rows < 2 || rows > n-2 {
		return nil, fmt.Errorf("peer tasks: N=%d rows %d out of range", n, rows)
	}
	count := int64(C.ws_peer_tasks(C.int(n), C.int(rows), nil))
	tl := &TaskList{Kind: "peer", N: n, Depth: rows, Count: count}
	p, _ := tl.alloc32(int(3 * count))
	C.ws_peer_tasks(C.int(n), C.int(rows), p)
	tl.t.kind = C.WS_PEER
	tl.t.n, tl.t.depth, tl.t.count = C.int(n), C.int(rows), C.longlong(count)
	tl.t.peer = p
	return tl, nil
}

// EightfoldFrames is NQ_EF_FRAMES(levels) of kernels/nqtotal.h: the
// frames (and table words) a task of that many levels needs.
func EightfoldFrames(levels int) int { return int(C.ws_ef_frames(C.int(levels))) }

// EightfoldTasks lists the eightfold tasks of n with split prefix rows
// (tasks.EnumerateEightfold order), and the frames per thread the kernels
// need for them (NQ_EF_FRAMES of the largest levels).
func EightfoldTasks(n, split int) (*TaskList, int, error) {
	return EightfoldTasksLevels(n, split, 0)
}

// EightfoldTasksLevels is EightfoldTasks with every task of more than
// levels levels split into shorter ones (tasks.Eightfold.SplitLevels, as
// the GPU backend does); levels 0 splits none.
func EightfoldTasksLevels(n, split, levels int) (*TaskList, int, error) {
	var left, right []uint64
	var down, meta []uint32
	frames := 1
	err := tasks.EnumerateEightfold(n, split, 1<<16, func(e *tasks.Eightfold) error {
		if levels > 0 {
			e = e.SplitLevels(levels, &tasks.Eightfold{})
		}
		left = append(left, e.Left...)
		right = append(right, e.Right...)
		down = append(down, e.Down...)
		meta = append(meta, e.Meta...)
		for i := 0; i < e.Len(); i++ {
			frames = max(frames, EightfoldFrames(e.Levels(i)))
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("eightfold tasks N=%d split %d: %w", n, split, err)
	}
	tl := &TaskList{Kind: "ef", N: n, Depth: split, Count: int64(len(meta))}
	put64 := func(src []uint64) *C.uint64_t {
		p := C.malloc(C.size_t(len(src)+1) * 8)
		if p == nil {
			panic("warpsim: out of memory")
		}
		tl.mem = append(tl.mem, p)
		copy(unsafe.Slice((*uint64)(p), len(src)), src)
		return (*C.uint64_t)(p)
	}
	put32 := func(src []uint32) *C.uint32_t {
		p, s := tl.alloc32(len(src))
		copy(s, src)
		return p
	}
	tl.t.kind = C.WS_EF
	tl.t.n, tl.t.depth, tl.t.count = C.int(n), C.int(split), C.longlong(tl.Count)
	tl.t.ef_left, tl.t.ef_right = put64(left), put64(right)
	tl.t.ef_down, tl.t.ef_meta = put32(down), put32(meta)
	return tl, frames, nil
}

// FrameTasks lists the carry-chain frames of n whose index keep accepts
// (nil: all), in launch order; index maps a kept frame to its position
// in the whole list.
func FrameTasks(n int, keep func(int64) bool) (tl *TaskList, index []int64, total int64, err error) {
	var rows []uint32
	var weight, sym []uint8
	err = tasks.EnumerateFrames(n, 1<<16, func(f *tasks.Frames) error {
		for i := 0; i < f.Len(); i++ {
			if keep == nil || keep(total) {
				rows = append(rows, f.Frame(i)...)
				weight = append(weight, f.Weight[i])
				sym = append(sym, f.Sym180[i])
				index = append(index, total)
			}
			total++
		}
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("carry-chain frames N=%d: %w", n, err)
	}
	tl = &TaskList{Kind: "carry", N: n, Count: int64(len(weight))}
	p, s := tl.alloc32(len(rows))
	copy(s, rows)
	w := C.malloc(C.size_t(len(weight) + 1))
	y := C.malloc(C.size_t(len(sym) + 1))
	if w == nil || y == nil {
		panic("warpsim: out of memory")
	}
	tl.mem = append(tl.mem, w, y)
	copy(unsafe.Slice((*uint8)(w), len(weight)), weight)
	copy(unsafe.Slice((*uint8)(y), len(sym)), sym)
	tl.t.kind = C.WS_CARRY
	tl.t.n, tl.t.count = C.int(n), C.longlong(tl.Count)
	tl.t.frows, tl.t.weight, tl.t.sym180 = p, (*C.uint8_t)(w), (*C.uint8_t)(y)
	return tl, index, total, nil
}

var errSim = errors.New("warpsim: out of memory in the C simulator")

// Round runs the round of tasks first..first+31 of tl.
func Round(tl *TaskList, first int64, c *Costs) (Unit, error) {
	var u C.ws_unit
	cc := c.cost()
	if C.ws_round(&tl.t, C.longlong(first), &cc, &u) < 0 {
		return Unit{}, errSim
	}
	return unitOf(&u), nil
}

// Refill runs warp w of warps resident warps of a dynamic-fetch kernel.
func Refill(tl *TaskList, w, warps int64, c *Costs) (Unit, error) {
	var u C.ws_unit
	cc := c.cost()
	if C.ws_refill(&tl.t, C.longlong(w), C.longlong(warps), &cc, &u) < 0 {
		return Unit{}, errSim
	}
	return unitOf(&u), nil
}

// Estimate is a simulated kernel run over a whole task list, from all or
// a random sample of its units.
type Estimate struct {
	Units, Sampled int64
	Sum            Unit // over the sampled units
	// Totals over the whole list (sampled: units × mean) and their
	// standard errors.
	Nodes, WarpSteps, LaneSteps, Insts float64
	ALU, IMAD                          float64
	NodesSE                            float64
	// Ratios and their standard errors.
	IPN, IPNSE   float64 // warp instructions per node
	SIMT, SIMTSE float64 // active lane-steps / (32 × warp steps)
}

// Exact reports whether every unit ran.
func (e *Estimate) Exact() bool { return e.Sampled == e.Units }

// estimate sums the units and, for a sample, estimates totals and ratios
// with their standard errors (simple random sampling without
// replacement; ratios by linearisation).
func estimate(units int64, us []Unit) *Estimate {
	e := &Estimate{Units: units, Sampled: int64(len(us))}
	for _, u := range us {
		e.Sum.add(u)
	}
	s := float64(len(us))
	scale := float64(units) / s
	e.Nodes = float64(e.Sum.Nodes) * scale
	e.WarpSteps = e.Sum.WarpSteps * scale
	e.LaneSteps = e.Sum.LaneSteps * scale
	e.Insts = e.Sum.Insts * scale
	e.ALU = e.Sum.ALU * scale
	e.IMAD = e.Sum.IMAD * scale
	if e.Sum.Nodes > 0 {
		e.IPN = e.Sum.Insts / float64(e.Sum.Nodes)
	}
	if e.Sum.WarpSteps > 0 {
		e.SIMT = e.Sum.LaneSteps / (32 * e.Sum.WarpSteps)
	}
	if len(us) < 2 || e.Exact() {
		return e
	}
	fpc := 1 - s/float64(units)
	meanNodes := float64(e.Sum.Nodes) / s
	meanSteps := e.Sum.WarpSteps / s
	var vn, vi, vs float64
	for _, u := range us {
		dn := float64(u.Nodes) - meanNodes
		di := u.Insts - e.IPN*float64(u.Nodes)
		ds := u.LaneSteps - 32*e.SIMT*u.WarpSteps
		vn += dn * dn
		vi += di * di
		vs += ds * ds
	}
	vn /= s - 1
	vi /= s - 1
	vs /= s - 1
	e.NodesSE = float64(units) * math.Sqrt(vn/s*fpc)
	if meanNodes > 0 {
		e.IPNSE = math.Sqrt(vi/s*fpc) / meanNodes
	}
	if meanSteps > 0 {
		e.SIMTSE = math.Sqrt(vs/s*fpc) / (32 * meanSteps)
	}
	return e
}

// pick returns all of 0..units-1, or samples of them drawn without
// replacement (sorted), from a generator seeded by seed.
func pick(units, samples int64, seed uint64) []int64 {
	if samples <= 0 || samples >= units {
		out := make([]int64, units)
		for i := range out {
			out[i] = int64(i)
		}
		return out
	}
	r := rand.New(rand.NewPCG(seed, 0x6e717565656e73))
	seen := map[int64]bool{}
	out := make([]int64, 0, samples)
	for int64(len(out)) < samples {
		x := r.Int64N(units)
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// runUnits runs f over the unit indexes with jobs workers.
func runUnits(idx []int64, jobs int, f func(int64) (Unit, error)) ([]Unit, error) {
	if jobs < 1 {
		jobs = runtime.GOMAXPROCS(0)
	}
	out := make([]Unit, len(idx))
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = f(idx[i])
			}
		}()
	}
	for i := range idx {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// levels returns the levels of eightfold task i of tl.
func (tl *TaskList) levels(i int64) int {
	return int(unsafe.Slice(tl.t.ef_meta, tl.Count)[i] & 0xff)
}

// TraceLen returns the number of iterations of task i's trace (with its
// end iteration) and the task's nodes.
func TraceLen(tl *TaskList, i int64) (int64, uint64, error) {
	var tr C.ws_trace
	var s C.ws_sums
	defer C.free(unsafe.Pointer(tr.b))
	if C.ws_make_trace(&tl.t, C.longlong(i), &tr, &s) < 0 {
		return 0, 0, errSim
	}
	return int64(tr.len), uint64(s.nodes), nil
}
