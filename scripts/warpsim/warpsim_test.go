//go:build cgo

package main

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// unitCosts charges one instruction per warp step, whatever its lanes do.
func unitCosts(endIsStep bool) *Costs {
	c := &Costs{EndIsStep: endIsStep}
	for i := 1; i < len(c.Step); i++ {
		c.Step[i] = 1
	}
	return c
}

func classCount(s Sums, name string) uint64 {
	for i, c := range classNames {
		if c == name {
			return s.ByClass[i]
		}
	}
	panic(name)
}

func listFor(t *testing.T, kind string, n int) *TaskList {
	t.Helper()
	var tl *TaskList
	var err error
	switch kind {
	case "sym":
		tl, err = SymmetryTasks(n, min(SymDepth(n), n-3))
	case "peer":
		tl, err = PeerTasks(n, min(PeerRows, n-3))
	case "carry":
		tl, _, _, err = FrameTasks(n, nil)
	case "ef":
		var frames int
		tl, frames, err = EightfoldTasks(n, tasks.DefaultSplit(n))
		// The longest task has n-3-split levels.
		if want := EightfoldFrames(n - 3 - tasks.DefaultSplit(n)); err == nil && frames != want {
			t.Errorf("eightfold N=%d: %d frames, want NQ_EF_FRAMES(n-3-split) = %d", n, frames, want)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// TestTracesCountExactly runs every task of small N through each trace
// generator, in rounds and with refills, and checks the counts against
// the published table and the iterations against the searches' rules.
func TestTracesCountExactly(t *testing.T) {
	for _, kind := range []string{"sym", "peer", "carry", "ef"} {
		for n := 8; n <= 12; n++ {
			tl := listFor(t, kind, n)
			endIsStep := kind != "peer"
			c := unitCosts(endIsStep)
			var rounds Unit
			for g := int64(0); 32*g < tl.Count; g++ {
				u, err := Round(tl, 32*g, c)
				if err != nil {
					t.Fatal(err)
				}
				// The warp runs as long as its longest task.
				var longest int64
				for i := 32 * g; i < min(32*g+32, tl.Count); i++ {
					l, _, err := TraceLen(tl, i)
					if err != nil {
						t.Fatal(err)
					}
					longest = max(longest, l)
				}
				if int64(u.WarpSteps) != longest || u.Insts != u.WarpSteps {
					t.Fatalf("%s N=%d round %d: %v warp steps, %v instructions; want %d", kind, n, g, u.WarpSteps, u.Insts, longest)
				}
				rounds.add(u)
			}
			var refill Unit
			const warps = 3
			for w := int64(0); w < warps; w++ {
				u, err := Refill(tl, w, warps, c)
				if err != nil {
					t.Fatal(err)
				}
				refill.add(u)
			}
			for name, u := range map[string]Unit{"rounds": rounds, "refill": refill} {
				e, _ := known.Lookup(n)
				var total uint64
				switch kind {
				case "sym":
					total = 2*u.C2 + 4*u.C4 + 8*u.C8
					if u.C2+u.C4+u.C8 != e.Unique {
						t.Errorf("%s %s N=%d: unique %d, want %d", kind, name, n, u.C2+u.C4+u.C8, e.Unique)
					}
				case "carry":
					total = u.C2 + u.C4 + u.C8
				case "peer":
					total = 2 * u.C8
				case "ef":
					total = u.C8
				}
				if total != e.Total {
					t.Errorf("%s %s N=%d: total %d, want %d", kind, name, n, total, e.Total)
				}
				if int64(u.Tasks) != tl.Count {
					t.Errorf("%s %s N=%d: ran %v tasks of %d", kind, name, n, u.Tasks, tl.Count)
				}
				var iters uint64
				for _, v := range u.ByClass {
					iters += v
				}
				if u.LaneSteps != float64(iters) {
					t.Errorf("%s %s N=%d: %v lane steps, %d iterations", kind, name, n, u.LaneSteps, iters)
				}
				push, dead, leaf, sol := classCount(u.Sums, "push"), classCount(u.Sums, "dead"),
					classCount(u.Sums, "leaf"), classCount(u.Sums, "sol")
				pop, end, orbit, popc := classCount(u.Sums, "pop"), classCount(u.Sums, "end"),
					classCount(u.Sums, "orbit"), classCount(u.Sums, "popc")
				nodes := push + dead + leaf + sol + orbit
				if kind == "ef" {
					// Every iteration places a node but those of a task
					// settled by its start (one end entry each) and those
					// that place a last-level queen (one per completion).
					if u.Nodes != iters-u.C4-u.C2 {
						t.Errorf("ef %s N=%d: %d nodes counted by the search, %d iterations for %d settled tasks and %d completions",
							name, n, u.Nodes, iters, u.C4, u.C2)
					}
				} else if nodes != u.Nodes {
					t.Errorf("%s %s N=%d: %d node iterations, %d nodes counted by the search", kind, name, n, nodes, u.Nodes)
				}
				switch kind {
				case "peer": // pops are part of the node iterations; no end iteration
					if pop+end+popc+orbit+sol != 0 {
						t.Errorf("peer N=%d: classes it has no path for", n)
					}
				case "ef": // every frame is popped; a task's start saves frame 0 or none
					if pop < push || pop-push > uint64(tl.Count)-u.C4 || end != uint64(tl.Count) {
						t.Errorf("ef %s N=%d: push %d, pop %d, end %d for %d tasks", name, n, push, pop, end, tl.Count)
					}
				default: // every push is popped once; one end per task
					if push != pop+popc || end != uint64(tl.Count) {
						t.Errorf("%s %s N=%d: push %d, pop %d + popc %d, end %d for %d tasks", kind, name, n, push, pop,
							popc, end, tl.Count)
					}
				}
			}
			tl.Free()
		}
	}
}

// A refill kernel whose loop takes several steps an iteration: every
// task's iterations still run once (exact counts, lane steps), lanes idle
// to the end of the iteration in which their task ends, and an iteration
// costs its cost once (unit costs: instructions = warp steps / steps),
// the warp's last steps one at a time at the same rate.
func TestRefillSteps(t *testing.T) {
	for n := 10; n <= 12; n++ {
		tl := listFor(t, "ef", n)
		var iters int64
		for i := int64(0); i < tl.Count; i++ {
			l, _, err := TraceLen(tl, i)
			if err != nil {
				t.Fatal(err)
			}
			iters += l
		}
		var one float64
		for _, steps := range []int{1, 2, 3} {
			c := unitCosts(true)
			c.Steps = steps
			var sum Unit
			const warps = 5
			for w := int64(0); w < warps; w++ {
				u, err := Refill(tl, w, warps, c)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(u.Insts-u.WarpSteps/float64(steps)) > 1e-9 {
					t.Errorf("N=%d, %d steps: warp %d has %v instructions for %v warp steps", n, steps, w, u.Insts, u.WarpSteps)
				}
				sum.add(u)
			}
			e, _ := known.Lookup(n)
			if sum.C8 != e.Total || int64(sum.Tasks) != tl.Count || int64(sum.LaneSteps) != iters {
				t.Errorf("N=%d, %d steps: total %d (want %d), %v tasks of %d, %v lane steps of %d iterations", n, steps,
					sum.C8, e.Total, sum.Tasks, tl.Count, sum.LaneSteps, iters)
			}
			if steps == 1 {
				one = sum.WarpSteps
			} else if sum.WarpSteps < one {
				t.Errorf("N=%d, %d steps: %v warp steps, fewer than one step an iteration (%v)", n, steps, sum.WarpSteps, one)
			}
		}
		tl.Free()
	}
}

func TestCostsFor(t *testing.T) {
	k := &KernelInfo{Name: "k", Blocks: map[int]BlockInfo{1: {10, 4, 3}, 2: {5, 2, 1}, 3: {7, 6, 0}, 4: {2, 0, 0}}, Paths: map[string]PathInfo{
		"push": {Blocks: []int{1, 2}}, "dead": {Blocks: []int{1}}, "pop": {Blocks: []int{1, 3}},
		"end": {Blocks: []int{1, 4}}, "orbit": {Absent: true},
	}}
	c, err := CostsFor(k)
	if err != nil {
		t.Fatal(err)
	}
	bit := func(names ...string) int {
		m := 0
		for _, nm := range names {
			for i, c := range classNames {
				if c == nm {
					m |= 1 << i
				}
			}
		}
		return m
	}
	for _, tc := range []struct {
		classes []string
		want    float64
	}{
		{[]string{"push"}, 15},
		{[]string{"push", "pop"}, 22},
		{[]string{"push", "dead", "pop", "end"}, 24},
		{[]string{"orbit"}, 10},        // stands in as dead
		{[]string{"leaf", "sol"}, 10},  // sol -> leaf -> dead
		{[]string{"popc", "push"}, 22}, // popc -> pop
	} {
		if got := c.Step[bit(tc.classes...)]; got != tc.want {
			t.Errorf("%v: cost %v, want %v", tc.classes, got, tc.want)
		}
	}
	if m := bit("push", "pop"); c.ALU[m] != 12 || c.IMAD[m] != 4 {
		t.Errorf("push+pop: ALU %v, IMAD %v; want 12, 4", c.ALU[m], c.IMAD[m])
	}
	if !c.EndIsStep || c.StandIns["orbit"] != "dead" || c.StandIns["sol"] != "dead" {
		t.Errorf("end %v, stand-ins %v", c.EndIsStep, c.StandIns)
	}
	k.Paths["push"] = PathInfo{Blocks: []int{9}}
	if _, err := CostsFor(k); err == nil {
		t.Error("a path block without a size: no error")
	}
}

func TestResidentWarps(t *testing.T) {
	for _, tc := range []struct{ regs, threads, smem, want int }{
		{56, 128, 768, 36},   // 1792 registers a warp: 9 blocks of 4 warps
		{48, 128, 768, 40},   // 1536: 10 blocks
		{32, 128, 768, 64},   // the whole SM
		{24, 160, 48640, 20}, // the peer: 4 blocks of 48 KiB shared memory
		{56, 128, 17152, 36}, // -gpu-smem at N=20, depth 7: registers bind first
		{40, 128, 60000, 12}, // shared memory binds: 3 blocks
	} {
		if got := ResidentWarps(tc.regs, tc.threads, tc.smem); got != tc.want {
			t.Errorf("ResidentWarps(%d, %d, %d) = %d, want %d", tc.regs, tc.threads, tc.smem, got, tc.want)
		}
	}
}

func TestEstimate(t *testing.T) {
	us := []Unit{
		{WarpSteps: 10, LaneSteps: 160, Insts: 300, Sums: Sums{Nodes: 100}},
		{WarpSteps: 20, LaneSteps: 320, Insts: 500, Sums: Sums{Nodes: 300}},
	}
	e := estimate(2, us)
	if !e.Exact() || e.Nodes != 400 || e.IPN != 2 || e.SIMT != 0.5 || e.IPNSE != 0 {
		t.Errorf("exact: %+v", e)
	}
	e = estimate(10, us)
	if e.Exact() || e.Nodes != 2000 || e.Insts != 4000 || e.IPN != 2 || e.NodesSE <= 0 || e.IPNSE <= 0 {
		t.Errorf("sampled: %+v", e)
	}
	// Var(nodes) = 20000 over 2 of 10 units: SE = 10 × sqrt(20000/2 × 0.8).
	if want := 10 * math.Sqrt(20000.0/2*0.8); math.Abs(e.NodesSE-want) > 1e-9 {
		t.Errorf("nodes SE %v, want %v", e.NodesSE, want)
	}
	got := pick(100, 10, 7)
	if len(got) != 10 {
		t.Fatalf("pick: %v", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] || got[i] >= 100 {
			t.Fatalf("pick: not sorted distinct in range: %v", got)
		}
	}
	again := pick(100, 10, 7)
	for i := range got {
		if got[i] != again[i] {
			t.Fatal("pick: not reproducible from its seed")
		}
	}
}

func TestCalibrate(t *testing.T) {
	// A peer whose issue-bound times are exactly half the published ones
	// at N=20 and 21, and a quarter at 22: factor 2^(4/3).
	var results []*Result
	for n, p := range PeerPublished {
		div := 2.0
		if n == 22 {
			div = 4
		}
		results = append(results, &Result{N: n, Kernel: "pm_peer", Units: 1, Sampled: 1, Nodes: IssueRate * p / div, IPN: 1, SIMT: 1})
	}
	c, err := Calibrate(results, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Pow(2, 4.0/3); math.Abs(c.Factor-want) > 1e-9 {
		t.Errorf("factor %v, want %v", c.Factor, want)
	}
	// Residuals: ln(2 / 2^(4/3)) twice and ln(4 / 2^(4/3)) once.
	r1, r2 := math.Log(2/math.Pow(2, 4.0/3)), math.Log(4/math.Pow(2, 4.0/3))
	if want := math.Sqrt((2*r1*r1 + r2*r2) / 3); math.Abs(c.RMSLog-want) > 1e-9 {
		t.Errorf("RMS %v, want %v", c.RMSLog, want)
	}
	// Pipe-aware: with no pipe instructions the issue slot binds, the same fit.
	pc, err := Calibrate(results, true)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pc.Factor-c.Factor) > 1e-9 || pc.Peer[0].Bound() != "issue" {
		t.Errorf("pipe-aware factor %v, want %v", pc.Factor, c.Factor)
	}
	// An ALU-bound kernel: 3 ALU instructions of 4 per node take 6 cycles.
	if in := (Inputs{Nodes: 1, IPN: 4, ALUPN: 3, IMADPN: 1}); in.PipeCPN() != 6 || in.Bound() != "ALU pipe" {
		t.Errorf("pipe cycles %v (%s), want 6 (ALU pipe)", in.PipeCPN(), in.Bound())
	}
	// Extrapolation: nodes per solution on a line in N.
	e16, _ := known.Lookup(16)
	e17, _ := known.Lookup(17)
	e19, _ := known.Lookup(19)
	// Per warp step: 64 instructions, 32 of them ALU; one lane iteration
	// per node; idle lanes 1/2 at N=16, 1/4 at N=17, so 1/16 at N=19.
	res := func(n int, e known.Entry, rho, idle float64) *Result {
		nodes := rho * float64(e.Total)
		steps := nodes / (32 * (1 - idle))
		return &Result{N: n, Kernel: "x", Units: 1, Sampled: 1, Nodes: nodes, WarpSteps: steps, LaneSteps: nodes,
			Insts: 64 * steps, ALU: 32 * steps, IPN: 64 * steps / nodes, SIMT: 1 - idle}
	}
	rs := []*Result{res(16, e16, 10, 0.5), res(17, e17, 11, 0.25)}
	ins, err := ModelInputs(rs, "x", []int{17, 19})
	if err != nil {
		t.Fatal(err)
	}
	want := 64.0 / (32 * (1 - 1.0/16))
	if ins[0].Source != "exact" || ins[1].Source != "extrapolated" ||
		math.Abs(ins[1].Nodes-13*float64(e19.Total)) > 1 || math.Abs(ins[1].SIMT-15.0/16) > 1e-9 ||
		math.Abs(ins[1].IPN-want) > 1e-9 || math.Abs(ins[1].ALUPN-want/2) > 1e-9 {
		t.Errorf("inputs %+v, want IPN %v", ins, want)
	}
}

func TestReadKernels(t *testing.T) {
	f, err := os.Open("testdata/kernels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ks, err := ReadKernels(f)
	if err != nil {
		t.Fatal(err)
	}
	k := ks["toy_kernel"]
	if k == nil || k.Regs != 56 || k.Stack != 336 || k.Mode != "rounds" || k.Prologue != 1 || k.Epilogue != 1 ||
		k.Blocks[2] != (BlockInfo{3, 2, 0}) || len(k.Paths) != 2 || k.Paths["push"].Insts != 9 || !k.Paths["never"].Absent ||
		k.Steps != 1 {
		t.Errorf("parsed %+v", k)
	}
	// The 15th field: steps per loop iteration.
	if k := ks["toy_loop3"]; k == nil || k.Steps != 3 || k.Mode != "refill" || k.LoopInsts != 66 {
		t.Errorf("parsed %+v", k)
	}
	for _, bad := range []string{
		"kernel\tk\ts\t1\t0\t0\t0\t0\trefill\t1\t0\t0\t0\t0\t0\n", // no steps
		"kernel\tk\ts\t1\t0\t0\t0\t0\trefill\t1\t0\t0\t0\t0\t1\t9\n",
	} {
		if _, err := ReadKernels(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
