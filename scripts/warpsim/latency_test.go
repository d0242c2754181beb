//go:build cgo

package main

import (
	"math"
	"os"
	"testing"
)

func TestParsePTXBlocksScopes(t *testing.T) {
	text := `.visible .entry k(
)
{
	mov.u32 	%r1, 0;
$L__BB0_1:
	{
	.reg .pred p;
	setp.eq.u32 p, %r1, 0;
	@p ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r1];
	}
	{
	.reg .pred p;
	setp.ne.u32 p, %r2, 0;
	@p st.shared.v4.u32 [%r1], {%r2, %r3, %r4, %r5};
	}
	@%p9 bra 	$L__BB0_1;
}
`
	blocks, order, err := parsePTXBlocks(text, "k")
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[1] != "$L__BB0_1" {
		t.Fatalf("blocks %q", order)
	}
	b := blocks["$L__BB0_1"]
	if len(b) != 5 {
		t.Fatalf("%d instructions, want 5", len(b))
	}
	ld, st := b[1], b[3]
	if ld.Class != opLDS || st.Class != opSTS || b[4].Class != opBRA {
		t.Errorf("classes %v %v %v", ld.Class, st.Class, b[4].Class)
	}
	// The load writes four registers and, predicated, reads them too.
	if len(ld.Dst) != 4 || ld.Dst[0] != "%r2" || len(ld.Src) != 6 {
		t.Errorf("load: dst %q src %q", ld.Dst, ld.Src)
	}
	// The two asm blocks' p are different predicates.
	if b[0].Dst[0] == b[2].Dst[0] {
		t.Errorf("both blocks' p are %q", b[0].Dst[0])
	}
	if st.Src[0] != b[2].Dst[0] || len(st.Dst) != 0 {
		t.Errorf("store: src %q dst %q", st.Src, st.Dst)
	}
}

func TestChainTime(t *testing.T) {
	m := &SimQV100
	dep := []ptxInst{
		{Op: "xor.b32", Class: opALU, Dst: []string{"a"}, Src: []string{"a"}},
		{Op: "add.u32", Class: opINT, Dst: []string{"a"}, Src: []string{"a"}},
	}
	// Steady state: each op waits for the one before it.
	if got := chainTime(dep, m, 4); got != m.Latency[opALU]+m.Latency[opINT] {
		t.Errorf("dependent pair: %g cycles, want %g", got, m.Latency[opALU]+m.Latency[opINT])
	}
	indep := []ptxInst{
		{Op: "xor.b32", Class: opALU, Dst: []string{"a"}, Src: []string{"a"}},
		{Op: "xor.b32", Class: opALU, Dst: []string{"b"}, Src: []string{"b"}},
		{Op: "xor.b32", Class: opALU, Dst: []string{"c"}, Src: []string{"c"}},
		{Op: "xor.b32", Class: opALU, Dst: []string{"d"}, Src: []string{"d"}},
		{Op: "xor.b32", Class: opALU, Dst: []string{"e"}, Src: []string{"e"}},
		{Op: "xor.b32", Class: opALU, Dst: []string{"f"}, Src: []string{"f"}},
	}
	// Six independent chains of 6-cycle ops: one issue a cycle.
	if got := chainTime(indep, m, 4); got != 6 {
		t.Errorf("six independent ops: %g cycles a round, want 6", got)
	}
}

func TestMVABetweenBounds(t *testing.T) {
	for _, c := range []struct {
		n    int
		s, z float64
	}{{1, 10, 100}, {4, 10, 100}, {8, 40, 200}, {16, 40, 200}, {8, 400, 1700}} {
		got := mva(c.n, c.s, c.z)
		lo := math.Max(float64(c.n)*c.s, c.s+c.z)
		hi := float64(c.n)*c.s + c.z
		if got < lo-1e-9 || got > hi+1e-9 {
			t.Errorf("mva(%d, %g, %g) = %g, want between %g and %g", c.n, c.s, c.z, got, lo, hi)
		}
	}
	if got := mva(1, 10, 100); got != 110 {
		t.Errorf("one warp: %g, want 110", got)
	}
}

func TestReplayEF(t *testing.T) {
	// 64 tasks of 10 steps on one warp: a pass, an iteration, a pass,
	// an iteration, and a pass that finds none (no steps left to drain).
	steps := make([]int64, 64)
	for i := range steps {
		steps[i] = 10
	}
	w := replayEF(steps, 1, 1, 1, 0.1)[0]
	if w.Passes != 3 || w.Iters != 2 || w.Drain != 0 || w.Tasks != 64 || w.LaneSteps != 640 {
		t.Errorf("replay: %+v", w)
	}
	// A settled task (0 steps) is skipped within the pass; a 25-step task
	// takes three iterations, and its lanes' neighbours (5 steps) end in
	// the first: 31 of them refill, then none is left.
	steps = []int64{0, 25}
	for i := 0; i < 31; i++ {
		steps = append(steps, 5)
	}
	w = replayEF(steps, 1, 1, 1, 0.1)[0]
	if w.Iters != 1 || w.Passes != 2 || w.Drain != 15 || w.DrainLane != 15 {
		t.Errorf("replay: %+v", w)
	}
}

func TestLoadEFCodeCommitted(t *testing.T) {
	text, err := os.ReadFile("../../kernels/ptx/eightfold.ptx")
	if err != nil {
		t.Fatal(err)
	}
	code, err := loadEFCode(string(text))
	if err != nil {
		t.Fatal(err)
	}
	m := &SimQV100
	it, pass := costOf(code.Iter, m, 4), costOf(code.Pass, m, 1)
	// Every step waits on its pop's load, taken or not.
	if it.Chain < 10*m.Latency[opLDS] {
		t.Errorf("iteration chain %g cycles, under ten shared loads", it.Chain)
	}
	// The pass waits for its atomic and then for the task's words.
	if pass.Chain < m.Latency[opATOM]+m.Latency[opLDG] {
		t.Errorf("pass chain %g cycles", pass.Chain)
	}
	if it.Insts < 10*20 || it.Pipe < it.Insts-20-2 {
		t.Errorf("iteration: %g instructions, %g pipe cycles", it.Insts, it.Pipe)
	}
}

// The H100 model calibrated on a baseline gives back its measured seconds,
// and for a kernel whose iteration serves in half the cycles, the
// pipe-aware steady seconds halve.
func TestCalibrateH100(t *testing.T) {
	base := loopCost{Insts: 293, ALU: 191, IMAD: 80, Chain: 1494}
	me := H100Measured{ClockHz: 1.98e9, ALUBusy: 0.874, ALUBusyN: 20, Seconds: map[int]float64{21: 7.7, 22: 62.3}}
	pts := map[int]h100Point{20: {20, 9, 2.04e9}, 21: {21, 8, 1.72e10}, 22: {22, 7, 1.54e11}}
	cal, err := calibrate(base, me, pts)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Eff != me.ALUBusy {
		t.Errorf("efficiency %g, want the ALU share %g", cal.Eff, me.ALUBusy)
	}
	p := pts[20]
	if share := float64(p.Warps) * 2 * base.ALU / mva(p.Warps, base.Serve(), cal.Z); math.Abs(share-me.ALUBusy) > 1e-6 {
		t.Errorf("latency-aware ALU share %g, want %g", share, me.ALUBusy)
	}
	for n, want := range me.Seconds {
		p := pts[n]
		if got := cal.KPipe*steady(p, me.ClockHz, cal.pipeCycles(base)) + cal.CPipe; math.Abs(got-want) > 1e-9*want {
			t.Errorf("pipe-aware N=%d: %g s, measured %g", n, got, want)
		}
		if got := cal.KLat*steady(p, me.ClockHz, cal.latCycles(base, base)) + cal.CLat; math.Abs(got-want) > 1e-9*want {
			t.Errorf("latency-aware N=%d: %g s, measured %g", n, got, want)
		}
	}
	half := loopCost{Insts: 191, ALU: 95.5, IMAD: 40, Chain: 1494}
	if a, b := steady(p, me.ClockHz, cal.pipeCycles(half)), steady(p, me.ClockHz, cal.pipeCycles(base)); math.Abs(a/b-0.5) > 1e-12 {
		t.Errorf("half the serve: %g of the steady seconds", a/b)
	}
	if _, err := calibrate(loopCost{Insts: 300, ALU: 100, IMAD: 100}, me, pts); err == nil {
		t.Error("an issue-bound baseline calibrated without error")
	}
}
