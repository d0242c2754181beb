//go:build cgo

package main

// The latency-aware model of nq_eightfold (docs/performance.md): a warp
// issues its instructions in order, each once its operands are ready
// (chainTime: the chain of its code); a scheduler with w warps issues one
// a cycle and each pipe takes a warp instruction every so many cycles. A
// lockstep replay of every task (replayEF: 10 steps between two votes, a
// refill pass when a lane's task ends, the last steps one at a time) gives
// each warp's work; mva turns the bounds into a scheduler's time.
//
// The costs of one 10-step iteration and one refill pass are the
// committed PTX's (kernels/ptx/eightfold.ptx): the step loop is the block
// with the vote.sync.all, a pass the blocks from the outer loop's head it
// branches to up to it, without the one that counts a task settled by its
// start; loadEFCode checks what they hold (ten shared loads and stores,
// one atomic, four task loads), so a PTX it misreads fails instead of
// giving wrong costs.

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The eightfold blocks the model assumes: the gpu package's default of
// 128 threads, each with its stack frames of 16 bytes in shared memory.
const (
	efThreads    = 128
	efFrameBytes = 16
)

// efStackBytes is a block's shared memory for frames frames per thread.
func efStackBytes(frames int) int { return frames * efFrameBytes * efThreads }

// opClass is what executes an instruction.
type opClass int

const (
	opALU  opClass = iota // logic, shifts, moves, compares, selects, votes
	opINT                 // integer add, subtract, multiply (GPGPU-Sim's INTP_OP)
	opLDS                 // shared-memory load
	opSTS                 // shared-memory store
	opATOM                // global atomic
	opLDG                 // global load
	opBRA                 // branch
	opFP                  // FP32 arithmetic (the SP units, not the integer pipe)
	nClasses
)

var classLabel = [nClasses]string{"alu", "int", "lds", "sts", "atom", "ldg", "bra", "fp"}

// Machine is what the model knows of one GPU: per class the latency
// (cycles until a dependent instruction may issue) and the cycles a warp
// instruction holds its pipe; the schedulers per SM; and the launch's
// fixed cycles.
type Machine struct {
	Name       string
	Latency    [nClasses]float64
	PipeCycles [nClasses]float64 // cycles of the integer pipe (alu, int); 0: another pipe
	Schedulers int
	Launch     float64
}

// SimQV100 is GPGPU-Sim's QV100 configuration as this project runs it,
// with the latencies measured on it by scripts/gpgpu-sim/latency.sh
// (dependent chains of one warp; docs/performance.md, "A model that
// sees latency"): a logic op 6 cycles, an integer add 9, a 16-byte shared
// load 28 (25 when its predicate is off: the scoreboard waits all the
// same), a global atomic 163 for one lane (180 taken: a refill pass's
// lanes queue on the one word, about a cycle each), a global load that
// misses L1 342. Its integer unit (one per scheduler) takes an add every
// 2 cycles and a logic op every cycle; both run there. An empty launch
// costs 5,225 cycles.
var SimQV100 = Machine{
	Name:       "GPGPU-Sim QV100",
	Latency:    [nClasses]float64{opALU: 6, opINT: 9, opLDS: 28, opSTS: 1, opATOM: 180, opLDG: 340, opBRA: 1, opFP: 9},
	PipeCycles: [nClasses]float64{opALU: 1, opINT: 2},
	Schedulers: 4,
	Launch:     5225,
}

// H100 is the model's H100 SXM for the latency term: the dependent
// latencies the microbenchmark literature gives for Volta to Hopper (a
// logic or integer op about 4 cycles, a shared-memory load about 30, an
// L2 atomic and a global load that misses L1 some hundreds), applied to
// the PTX chain as a stand-in for the SASS one (ptxas folds logic ops
// into LOP3 and hoists loads, so the SASS chain is shorter: the latency
// term errs long). The pipes are not taken from here: the SASS counts of
// docs/model/kernels.tsv give them (the ALU and FMA pipes take a warp
// instruction every 2 cycles, issue one a cycle).
var H100 = Machine{
	Name:       "H100 SXM (latencies from the literature; SASS counts for issue and pipes)",
	Latency:    [nClasses]float64{opALU: 4, opINT: 4, opLDS: 30, opSTS: 1, opATOM: 600, opLDG: 600, opBRA: 1, opFP: 4},
	Schedulers: 4,
}

// ptxInst is one PTX instruction: what executes it, the registers it
// writes and those it reads (a predicated instruction reads the registers
// it writes too: they keep their value where it is off).
type ptxInst struct {
	Op       string
	Class    opClass
	Dst, Src []string
	Target   string // a branch's label
}

var (
	ptxReg   = regexp.MustCompile(`%[a-z]+[0-9]+|\b[pq]\b`)
	ptxLabel = regexp.MustCompile(`^(\$L__BB[0-9]+_[0-9]+):`)
)

// classOf returns the class of a PTX opcode (its first dotted part and
// the rest).
func classOf(op string) opClass {
	base, mods, _ := strings.Cut(op, ".")
	if strings.HasSuffix(op, ".f32") {
		return opFP
	}
	switch base {
	case "add", "sub", "mul", "mad", "min", "max":
		return opINT
	case "ld":
		switch {
		case strings.HasPrefix(mods, "shared"):
			return opLDS
		case strings.HasPrefix(mods, "param"), strings.HasPrefix(mods, "const"):
			return opALU // a constant-bank operand in SASS
		}
		return opLDG
	case "st":
		return opSTS
	case "atom":
		return opATOM
	case "bra":
		return opBRA
	}
	return opALU
}

// parsePTXBlocks returns the instructions of entry's basic blocks by
// label ("" for those before the first label); inline-asm blocks' local
// predicates get names of their own.
func parsePTXBlocks(text, entry string) (map[string][]ptxInst, []string, error) {
	blocks := map[string][]ptxInst{}
	var order []string
	// scope: the inline-asm block's number (0 outside one); depth: the
	// braces open inside the entry's body.
	in, body, cur, scope, blocksSeen, depth := false, false, "", 0, 0, 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !in {
			if strings.Contains(line, ".entry "+entry+"(") {
				in = true
				order = append(order, "")
			}
			continue
		}
		if !body {
			body = line == "{"
			continue
		}
		if line == "}" && depth == 0 {
			break
		}
		if m := ptxLabel.FindStringSubmatch(line); m != nil {
			cur = m[1]
			order = append(order, cur)
			continue
		}
		switch {
		case line == "{":
			depth++
			blocksSeen++
			scope = blocksSeen
			continue
		case line == "}":
			depth--
			scope = 0
			continue
		case line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, ".") || !strings.HasSuffix(line, ";"):
			continue
		}
		line = strings.TrimSuffix(line, ";")
		guard := ""
		if strings.HasPrefix(line, "@") {
			g, rest, _ := strings.Cut(line, " ")
			guard, line = strings.TrimLeft(g, "@!"), strings.TrimSpace(rest)
		}
		op, args, _ := strings.Cut(line, " ")
		local := func(r string) string {
			if r == "p" || r == "q" {
				return fmt.Sprintf("%s@%d", r, scope)
			}
			return r
		}
		in := ptxInst{Op: op, Class: classOf(op)}
		if in.Class == opBRA {
			in.Target = strings.TrimSpace(args)
		}
		regs := func(s string) []string {
			var out []string
			for _, r := range ptxReg.FindAllString(s, -1) {
				out = append(out, local(r))
			}
			return out
		}
		if guard != "" {
			in.Src = append(in.Src, local(guard))
		}
		switch in.Class {
		case opSTS, opBRA:
			in.Src = append(in.Src, regs(args)...)
		default:
			// The destination is the first operand, a register or a
			// {vector}.
			var dst, rest string
			if strings.HasPrefix(strings.TrimSpace(args), "{") {
				d, r, _ := strings.Cut(args, "}")
				dst, rest = d, r
			} else {
				d, r, _ := strings.Cut(args, ",")
				dst, rest = d, r
			}
			in.Dst = regs(dst)
			in.Src = append(in.Src, regs(rest)...)
			if guard != "" {
				in.Src = append(in.Src, in.Dst...)
			}
		}
		blocks[cur] = append(blocks[cur], in)
	}
	if !in {
		return nil, nil, fmt.Errorf("entry %s not found", entry)
	}
	return blocks, order, sc.Err()
}

// efCode is the PTX of nq_eightfold the model times: one iteration of the
// step loop (10 steps and the vote) and one refill pass.
type efCode struct {
	Iter, Pass []ptxInst
}

// loadEFCode reads nq_eightfold's step loop and refill pass from the PTX
// text (see the file's comment for which blocks) and checks them.
func loadEFCode(text string) (*efCode, error) {
	blocks, order, err := parsePTXBlocks(text, "nq_eightfold")
	if err != nil {
		return nil, err
	}
	// The loop is the block with the vote; it branches back to itself and
	// on to the outer loop's head, where a pass starts.
	loop, head := "", ""
	for _, l := range order {
		if hasOp(blocks[l], "vote.sync.all.pred") {
			loop = l
			if b := blocks[l]; len(b) > 0 && b[len(b)-1].Op == "bra.uni" {
				head = b[len(b)-1].Target
			}
		}
	}
	if loop == "" || head == "" {
		return nil, fmt.Errorf("nq_eightfold: no step loop with a vote and a branch to the outer loop")
	}
	c := &efCode{Iter: blocks[loop]}
	on := false
	for _, l := range order {
		switch l {
		case head:
			on = true
		case loop:
			on = false
		}
		if on && !settled(blocks[l]) {
			c.Pass = append(c.Pass, blocks[l]...)
		}
	}
	count := func(code []ptxInst, cl opClass) int {
		k := 0
		for _, in := range code {
			if in.Class == cl {
				k++
			}
		}
		return k
	}
	if count(c.Iter, opLDS) != 10 || count(c.Iter, opSTS) != 10 || !hasOp(c.Iter, "vote.sync.all.pred") {
		return nil, fmt.Errorf("nq_eightfold: block %s is not the 10-step loop (%d shared loads, %d stores)",
			loop, count(c.Iter, opLDS), count(c.Iter, opSTS))
	}
	if count(c.Pass, opATOM) != 1 || count(c.Pass, opLDG) != 4 || !hasOp(c.Pass, "vote.sync.any.pred") {
		return nil, fmt.Errorf("nq_eightfold: blocks %s..%s are not the refill pass (%d atomics, %d global loads)",
			head, loop, count(c.Pass, opATOM), count(c.Pass, opLDG))
	}
	return c, nil
}

// settled reports whether a block of the refill is the one that counts a
// task its start settles: it adds to the total (a widened add) without a
// load of a task or a store of its frame.
func settled(code []ptxInst) bool {
	return hasOp(code, "cvt.u64.u32") && hasOp(code, "add.s64") && !hasOp(code, "ld.global.nc.u32") &&
		!hasOp(code, "st.shared.v4.u32")
}

func hasOp(code []ptxInst, op string) bool {
	for _, in := range code {
		if in.Op == op {
			return true
		}
	}
	return false
}

// chainTime issues code in order, reps times over, one warp alone on m:
// an instruction issues a cycle after the one before it at the earliest,
// and once the registers it reads and writes are ready. It returns the
// cycles of one repetition in the steady state (the last repetition's;
// with reps 1, the time the code ends).
func chainTime(code []ptxInst, m *Machine, reps int) float64 {
	ready := map[string]float64{}
	t := 0.0
	var ends []float64
	for r := 0; r < reps; r++ {
		for _, in := range code {
			at := t + 1
			for _, s := range in.Src {
				at = math.Max(at, ready[s])
			}
			for _, d := range in.Dst {
				at = math.Max(at, ready[d])
			}
			t = at
			for _, d := range in.Dst {
				ready[d] = at + m.Latency[in.Class]
			}
		}
		end := t
		for _, v := range ready {
			end = math.Max(end, v)
		}
		ends = append(ends, end)
	}
	if reps == 1 {
		return ends[0]
	}
	return ends[reps-1] - ends[reps-2]
}

// codeCost is what one run of a piece of code costs a scheduler.
type codeCost struct {
	Insts, Pipe, Chain float64
}

func costOf(code []ptxInst, m *Machine, reps int) codeCost {
	var c codeCost
	for _, in := range code {
		c.Insts++
		c.Pipe += m.PipeCycles[in.Class]
	}
	c.Chain = chainTime(code, m, reps)
	return c
}

// taskSteps returns the steps of each task idx of tl takes (nq_ef_step
// calls, the last included; 0 for a task its start settles).
func taskSteps(tl *TaskList, idx []int64) ([]int64, error) {
	steps := make([]int64, len(idx))
	for k, i := range idx {
		l, _, err := TraceLen(tl, i)
		if err != nil {
			return nil, err
		}
		if tl.levels(i) == 1 {
			l = 0
		}
		steps[k] = l
	}
	return steps, nil
}

// warpWork is one warp's run in the replay.
type warpWork struct {
	Iters, Passes, Drain float64 // 10-step iterations, refill passes, single steps at the end
	LaneSteps, Tasks     float64
	DrainLane            float64 // lane steps left to the last loop
	clock                float64
}

// replayEF runs the kernel's loop over the tasks whose step counts are
// steps (in launch order) with warps resident warps that share one task
// counter: the warp whose clock is lowest fetches next, a clock counting
// iterations at itCost and passes at passCost. A task of 0 steps is
// settled by its start (the same pass fetches again).
func replayEF(steps []int64, warps int, itCost, passCost, stepCost float64) []warpWork {
	const group = 10
	ws := make([]warpWork, warps)
	rem := make([][32]int64, warps)
	next := 0
	fetch := func(w, l int) bool {
		for next < len(steps) {
			s := steps[next]
			next++
			ws[w].Tasks++
			ws[w].LaneSteps += float64(s)
			if s > 0 {
				rem[w][l] = s
				return true
			}
		}
		return false
	}
	done := make([]bool, warps)
	live := warps
	// Order of the warps by clock: a simple scan (warps is at most a few
	// thousand, the passes few per task).
	for live > 0 {
		w := -1
		for i := range ws {
			if !done[i] && (w < 0 || ws[i].clock < ws[w].clock) {
				w = i
			}
		}
		// A pass: lanes without a task fetch.
		ws[w].Passes++
		ws[w].clock += passCost
		short := false
		for l := 0; l < 32; l++ {
			if rem[w][l] == 0 && !fetch(w, l) {
				short = true
			}
		}
		if short {
			// The warp's last loop: single steps until its longest
			// task ends.
			var most int64
			for l := 0; l < 32; l++ {
				most = max(most, rem[w][l])
				ws[w].DrainLane += float64(rem[w][l])
			}
			ws[w].Drain += float64(most)
			ws[w].clock += float64(most) * stepCost
			done[w] = true
			live--
			continue
		}
		// Iterations until a lane's task ends.
		for {
			ws[w].Iters++
			ws[w].clock += itCost
			ended := false
			for l := 0; l < 32; l++ {
				rem[w][l] = max(rem[w][l]-group, 0)
				if rem[w][l] == 0 {
					ended = true
				}
			}
			if ended {
				break
			}
		}
	}
	return ws
}

// Prediction is the model's time of one launch: the bounds of the
// slowest scheduler, and its time.
type Prediction struct {
	Warps                  int     // resident warps per SM
	Issue, Pipe, Latency   float64 // that scheduler's bounds, cycles
	Roofline               float64 // the largest of them
	Cycles                 float64 // the queueing model's time of the slowest scheduler, plus the launch's fixed cycles
	LaneSteps, Iters, Pass float64
}

// mva is the mean-value analysis of a closed queueing network of n
// customers, one server of service time s and a delay of think time z
// (the machine-repairman model): here n warps that each need s cycles of
// the scheduler (its issue port or its busiest pipe, whichever is longer)
// and wait z cycles on latency besides. It returns the time all n take
// for one round each, between the roofline max(n*s, s+z) and their sum.
func mva(n int, s, z float64) float64 {
	q, x := 0.0, 0.0
	for k := 1; k <= n; k++ {
		r := s * (1 + q)
		x = float64(k) / (r + z)
		q = x * r
	}
	if x == 0 {
		return 0
	}
	return float64(n) / x
}

// predict spreads the warps over sms SMs (block by block: warps 4b..4b+3
// of block b on SM b mod sms, each on its own scheduler) and returns the
// slowest scheduler's time.
func predict(ws []warpWork, sms, warpsPerSM int, it, pass, drain codeCost, m *Machine) Prediction {
	type sched struct {
		issue, pipe, lat, latSum float64
		warps                    int
	}
	s := make([]sched, sms*m.Schedulers)
	p := Prediction{Warps: warpsPerSM}
	for i, w := range ws {
		k := (i/(efThreads/32))%sms*m.Schedulers + i%m.Schedulers
		s[k].issue += w.Iters*it.Insts + w.Passes*pass.Insts + w.Drain*drain.Insts
		s[k].pipe += w.Iters*it.Pipe + w.Passes*pass.Pipe + w.Drain*drain.Pipe
		lat := w.Iters*it.Chain + w.Passes*pass.Chain + w.Drain*drain.Chain
		s[k].lat = math.Max(s[k].lat, lat)
		s[k].latSum += lat
		s[k].warps++
		p.LaneSteps += w.LaneSteps
		p.Iters += w.Iters
		p.Pass += w.Passes
	}
	for _, x := range s {
		if x.warps == 0 {
			continue
		}
		n := float64(x.warps)
		serve := math.Max(x.issue, x.pipe) / n
		t := mva(x.warps, serve, math.Max(x.latSum/n-serve, 0))
		if t > p.Cycles {
			p.Cycles, p.Issue, p.Pipe, p.Latency = t, x.issue, x.pipe, x.lat
			p.Roofline = math.Max(x.issue, math.Max(x.pipe, x.lat))
		}
	}
	p.Cycles += m.Launch
	return p
}

func latencyCmd(args []string) error {
	fs := flag.NewFlagSet("latency", flag.ExitOnError)
	ptxPath := fs.String("ptx", "kernels/ptx/eightfold.ptx", "nq_eightfold's PTX")
	nsFlag := fs.String("n", "12-14", "board sizes")
	sms := fs.Int("sms", 4, "simulated SMs (the gpusim-speed runs' SMS)")
	regs := fs.Int("regs", 40, "registers per thread (ptxas, for the resident warps)")
	warpsFlag := fs.Int("warps", 0, "resident warps per SM instead of the occupancy arithmetic's (what-if)")
	shallow := fs.Bool("shallow", true, "split the tasks of n-3-split levels as the gpu package does (tasks.Eightfold.SplitLevels: one frame fewer); false: the task list as enumerated")
	simFlag := fs.String("sim", "11=25875,12=67580,13=174631,14=796583", "simulated cycles to compare with, N=cycles,... (default: this kernel's runs, docs/performance.md)")
	h100 := fs.String("h100", "", "also predict an H100 SXM at these N (e.g. 20-22), from nodes in docs/model/sim.tsv")
	tsvPath := fs.String("tsv", "docs/model/kernels.tsv", "kernel-report TSV (SASS counts for the H100)")
	simTSV := fs.String("simtsv", "docs/model/sim.tsv", "warpsim sim results (nodes per N)")
	sample := fs.Int("sample", 4096, "H100: tasks of the smallest N the replay samples for the lanes' waste")
	baseTSV := fs.String("base-tsv", "docs/model/kernels-baseline.tsv", "H100: the kernel-report TSV of the kernel the H100 measured (the calibration's baseline; empty: no calibrated model)")
	baseChain := fs.Float64("base-chain", 1494, "H100: that kernel's PTX chain of a 10-step iteration with H100 latencies, cycles")
	clock := fs.Float64("clock", 1.98e9, "H100: the SM clock the measurements ran at, Hz")
	aluBusy := fs.Float64("alu-busy", 0.874, "H100: the baseline's ALU pipe busy share of a steady launch")
	aluBusyN := fs.Int("alu-busy-n", 20, "H100: the N of -alu-busy")
	measured := fs.String("measured", "21=7.7,22=62.3", "H100: the baseline's seconds, N=seconds,...")
	ns, err := parseSizes(fs, args, nsFlag)
	if err != nil {
		return err
	}
	sim := map[int]float64{}
	for _, f := range strings.Split(*simFlag, ",") {
		var n int
		var c float64
		if _, err := fmt.Sscanf(f, "%d=%g", &n, &c); err == nil {
			sim[n] = c
		}
	}
	text, err := os.ReadFile(*ptxPath)
	if err != nil {
		return err
	}
	code, err := loadEFCode(string(text))
	if err != nil {
		return err
	}
	m := &SimQV100
	it, pass := costOf(code.Iter, m, 4), costOf(code.Pass, m, 1)
	// A single step of the last loop: a tenth of an iteration.
	drain := codeCost{it.Insts / 10, it.Pipe / 10, it.Chain / 10}
	fmt.Printf("MODEL of nq_eightfold on %s (%s)\n", m.Name, *ptxPath)
	fmt.Printf("iteration (10 steps): %.0f instructions, %.0f integer-pipe cycles, chain %.0f cycles\n", it.Insts, it.Pipe, it.Chain)
	fmt.Printf("refill pass: %.0f instructions, %.0f integer-pipe cycles, chain %.0f cycles\n", pass.Insts, pass.Pipe, pass.Chain)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "N\tsplit\ttasks\tframes\twarps/SM\tlane steps\titerations\tpasses\tissue\tpipe\tlatency\troofline\tMODEL cycles\tsimulated\tMODEL/sim\troofline/sim\t")
	for _, n := range ns {
		split := plan.Normalize(nq.Spec{N: n, Algo: nq.Eightfold, SMs: []int{*sms}}).Depth
		levels := 0
		if *shallow {
			levels = tasks.SplitLevelsFor(n, split)
		}
		tl, frames, err := EightfoldTasksLevels(n, split, levels)
		if err != nil {
			return err
		}
		steps, err := taskSteps(tl, pick(tl.Count, 0, 0))
		tl.Free()
		if err != nil {
			return err
		}
		wpsm := QV100Limits.residentWarps(*regs, efThreads, efStackBytes(max(frames, 1)))
		if *warpsFlag > 0 {
			wpsm = *warpsFlag
		}
		warps := wpsm * *sms
		w := float64(wpsm) / float64(m.Schedulers)
		itCost := math.Max(w*math.Max(it.Insts, it.Pipe), it.Chain)
		passCost := math.Max(w*math.Max(pass.Insts, pass.Pipe), pass.Chain)
		ws := replayEF(steps, warps, itCost, passCost, itCost/10)
		p := predict(ws, *sms, wpsm, it, pass, drain, m)
		ratio, rratio, simc := "-", "-", "-"
		if c, ok := sim[n]; ok {
			simc = fmt.Sprintf("%.0f", c)
			ratio = fmt.Sprintf("%.2f", p.Cycles/c)
			rratio = fmt.Sprintf("%.2f", (p.Roofline+m.Launch)/c)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%s\t%s\t\n",
			n, split, tl.Count, frames, wpsm, p.LaneSteps, p.Iters, p.Pass, p.Issue, p.Pipe, p.Latency, p.Roofline+m.Launch, p.Cycles, simc, ratio, rratio)
	}
	tw.Flush()
	if *h100 == "" {
		return nil
	}
	hn, err := parseNs(*h100)
	if err != nil {
		return err
	}
	opt := h100Options{tsv: *tsvPath, simTSV: *simTSV, regs: *regs, sample: *sample, baseTSV: *baseTSV,
		baseChain: *baseChain, me: H100Measured{ClockHz: *clock, ALUBusy: *aluBusy, ALUBusyN: *aluBusyN, Seconds: map[int]float64{}}}
	for _, f := range strings.Split(*measured, ",") {
		var n int
		var sec float64
		if _, err := fmt.Sscanf(f, "%d=%g", &n, &sec); err == nil {
			opt.me.Seconds[n] = sec
		}
	}
	return predictH100(hn, code, opt)
}

// h100Options are predictH100's inputs besides the N and the PTX.
type h100Options struct {
	tsv, simTSV, baseTSV string
	regs, sample         int
	baseChain            float64
	me                   H100Measured
}

// loopCostOf returns nq_eightfold's iteration costs in the kernel-report
// TSV at path (its push path: every path is the whole predicated loop).
func loopCostOf(path string, chain float64) (loopCost, error) {
	infos, err := readKernelsFile(path)
	if err != nil {
		return loopCost{}, err
	}
	info := infos["nq_eightfold"]
	if info == nil {
		return loopCost{}, fmt.Errorf("nq_eightfold is not in %s", path)
	}
	p, ok := info.Paths["push"]
	if !ok {
		return loopCost{}, fmt.Errorf("nq_eightfold has no push path in %s", path)
	}
	c := loopCost{Insts: float64(p.Insts), Chain: chain}
	for _, b := range p.Blocks {
		c.ALU += float64(info.Blocks[b].ALU)
		c.IMAD += float64(info.Blocks[b].IMAD)
	}
	return c, nil
}

// predictH100 prints the model's seconds for nq_eightfold on an H100 SXM
// at each n of ns: the warp iterations come from the nodes of sim.tsv
// (the eightfold rows: lane steps = nodes + tasks + completions, the last
// two negligible there) and the lanes' waste per task of a sampled
// replay at the smallest n; a scheduler's time from mva with its resident
// warps, the SASS issue and pipe counts of kernels.tsv, and the PTX chain
// with H100's latencies.
func predictH100(ns []int, code *efCode, opt h100Options) error {
	m := &H100
	chain := costOf(code.Iter, m, 4).Chain
	cost, err := loopCostOf(opt.tsv, chain)
	if err != nil {
		return err
	}
	results, err := ReadResults(opt.simTSV)
	if err != nil {
		return err
	}
	ins, err := ModelInputs(results, "nq_eightfold", ns)
	if err != nil {
		return err
	}
	nodes, source := map[int]float64{}, map[int]string{}
	for _, in := range ins {
		nodes[in.N], source[in.N] = in.Nodes, in.Source
	}
	alu, imad := int(cost.ALU), int(cost.IMAD)
	path := struct{ Insts int }{int(cost.Insts)}
	serve := cost.Serve()
	// The lanes' waste: iterations per lane step of a replay of a random
	// sample of the smallest n's tasks.
	waste := 0.0
	{
		n := ns[0]
		split := EightfoldSplit(n)
		tl, _, err := EightfoldTasks(n, split)
		if err != nil {
			return err
		}
		steps, err := taskSteps(tl, pick(tl.Count, int64(opt.sample), 1))
		tl.Free()
		if err != nil {
			return err
		}
		ws := replayEF(steps, max(1, len(steps)/(32*64)), 1, 1, 0.1)
		// The replay's steady state: its iterations against the lane
		// steps they ran (the last loop, the sample's own tail, left out;
		// a run's tail is the launch replay's, docs/performance.md).
		var it, lane float64
		for _, w := range ws {
			it += w.Iters
			lane += w.LaneSteps - w.DrainLane
		}
		waste = it * 320 / lane // 1: every lane busy every step
		fmt.Printf("\nH100 MODEL: lanes' waste at N=%d (replay of %d sampled tasks, its tail left out): %.4f warp iterations per 32 x 10 lane steps\n", n, len(steps), waste)
	}
	fmt.Printf("iteration (10 steps) on sm_90: %d SASS, %d ALU pipe, %d FMA pipe: a scheduler's %.0f cycles; chain (PTX, H100 latencies) %.0f cycles\n",
		path.Insts, alu, imad, serve, chain)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "N\tsplit\tframes\twarps/SM\twarps/scheduler\tnodes\tsource\tcycles per iteration per warp\tbound\tMODEL s\t")
	pts := map[int]h100Point{}
	var order []h100Point
	for _, n := range ns {
		split := EightfoldSplit(n)
		frames := EightfoldFrames(tasks.SplitLevelsFor(n, split)) // the longest tasks split, as gpu sends them
		wpsm := ResidentWarps(opt.regs, efThreads, efStackBytes(frames))
		w := wpsm / m.Schedulers
		nd, ok := nodes[n]
		if !ok {
			return fmt.Errorf("no nq_eightfold nodes for N=%d in %s", n, opt.simTSV)
		}
		per := mva(w, serve, math.Max(chain-serve, 0)) / float64(w)
		bound := "pipe"
		if chain > float64(w)*serve {
			bound = "latency"
		}
		iters := nd / 320 * waste
		sec := iters / float64(SMs*m.Schedulers) * per / ClockHz
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%.3g\t%s\t%.0f\t%s\t%.3g\t\n", n, split, frames, wpsm, w, nd, source[n], per, bound, sec)
		pts[n] = h100Point{N: n, Warps: w, Iters: iters}
		order = append(order, pts[n])
	}
	if err := tw.Flush(); err != nil || opt.baseTSV == "" {
		return err
	}
	base, err := loopCostOf(opt.baseTSV, opt.baseChain)
	if err != nil {
		return err
	}
	cal, err := calibrate(base, opt.me, pts)
	if err != nil {
		return err
	}
	return printCalibrated(os.Stdout, base, cost, opt.me, cal, order)
}
