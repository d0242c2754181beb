//go:build cgo

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
)

// PeerPublished are the peer's published H800 times (ygch/n_queens
// README, "calc time" of the whole run, 6 pre-placed rows), in seconds.
var PeerPublished = map[int]float64{20: 4.140, 21: 29.248, 22: 249.886}

// PeerFixed is the peer's published H800 time for N=13, where the search
// itself is negligible: the run's fixed cost (CUDA context, task list,
// copies), shown next to the fit, not subtracted.
const PeerFixed = 0.558

// Inputs are the model's inputs for one kernel at one N.
type Inputs struct {
	N      int
	Nodes  float64
	IPN    float64 // warp instructions per node
	ALUPN  float64 // of which on the ALU pipe
	IMADPN float64 // of which on the FMA pipe (IMAD)
	SIMT   float64
	Source string // "exact", "sampled" or "extrapolated"
}

// Seconds is the issue-bound time of the inputs (before the factor): one
// warp instruction per scheduler and cycle.
func (in Inputs) Seconds() float64 { return in.Nodes * in.IPN / IssueRate }

// PipeCPN is the scheduler cycles per node when the ALU and FMA pipes,
// 16 lanes each per scheduler (a warp instruction holds its pipe for two
// cycles), may bind instead of the issue slot.
func (in Inputs) PipeCPN() float64 { return math.Max(in.IPN, 2*math.Max(in.ALUPN, in.IMADPN)) }

// Bound names what binds the pipe-aware time: "issue", "ALU" or "IMAD".
func (in Inputs) Bound() string {
	switch {
	case in.IPN >= 2*in.ALUPN && in.IPN >= 2*in.IMADPN:
		return "issue"
	case in.ALUPN >= in.IMADPN:
		return "ALU pipe"
	}
	return "FMA pipe"
}

// PipeSeconds is the pipe-aware time of the inputs (before the factor).
func (in Inputs) PipeSeconds() float64 { return in.Nodes * in.PipeCPN() / IssueRate }

// fitLine returns a, b of the least-squares line y = a + b x.
func fitLine(xs, ys []float64) (a, b float64) {
	n := float64(len(xs))
	if n == 1 {
		return ys[0], 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	a = (sy - b*sx) / n
	return a, b
}

// ModelInputs returns the inputs of kernel for each N of want: the
// simulated results where there are some, else extrapolated from the
// simulated N >= 16. Nodes: nodes/Total (the search's nodes per
// solution) grows slowly and smoothly with N, so it is fitted by a line in
// N and multiplied by the published Total. Warp instructions per node:
// instructions per warp step × lane iterations per node / (32 × SIMT
// efficiency), each fitted through the last three simulated N (see
// below), so that the efficiency cannot pass 1.
//
// The nodes of a task list are the same whichever kernel runs it, so each
// N takes the node estimate of the kernel whose run measured them best
// (exact, else the smallest relative standard error: the dynamic kernels'
// sampled units, whole warps, spread over the whole list and vary less
// than rounds of 32 neighbouring tasks).
func ModelInputs(results []*Result, kernel string, want []int) ([]Inputs, error) {
	var have []*Result
	for _, r := range results {
		if r.Kernel == kernel && r.N >= 16 {
			best := *r
			for _, o := range results {
				if o.N == r.N && o.Tasks == r.Tasks && relSE(o) < relSE(&best) {
					best.Nodes, best.NodesSE = o.Nodes, o.NodesSE
				}
			}
			have = append(have, &best)
		}
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("no simulated N >= 16 for %s", kernel)
	}
	sort.Slice(have, func(i, j int) bool { return have[i].N < have[j].N })
	var xs, rho []float64
	for _, r := range have {
		e, _ := known.Lookup(r.N)
		xs = append(xs, float64(r.N))
		rho = append(rho, r.Nodes/float64(e.Total))
	}
	ra, rb := fitLine(xs, rho)
	last := have
	if len(last) > 3 {
		last = last[len(last)-3:]
	}
	// Per warp step (instructions, and those on the ALU and FMA pipes)
	// and lane iterations per node: lines in N. The idle share of the
	// lanes, 1 - SIMT efficiency: a line in log, so that it stays in
	// (0, 1) and shrinks geometrically as the tasks grow.
	var lx, sps, aps, mps, ipl, idle []float64
	for _, r := range last {
		lx = append(lx, float64(r.N))
		sps = append(sps, r.Insts/r.WarpSteps)
		aps = append(aps, r.ALU/r.WarpSteps)
		mps = append(mps, r.IMAD/r.WarpSteps)
		ipl = append(ipl, r.LaneSteps/r.Nodes)
		idle = append(idle, math.Log(math.Max(1-r.SIMT, 1e-6)))
	}
	line := func(ys []float64) func(x float64) float64 {
		a, b := fitLine(lx, ys)
		return func(x float64) float64 { return a + b*x }
	}
	spsAt, apsAt, mpsAt, iplAt, idleAt := line(sps), line(aps), line(mps), line(ipl), line(idle)
	var out []Inputs
	for _, n := range want {
		var in Inputs
		found := false
		for _, r := range have {
			if r.N == n {
				src := "exact"
				if r.Sampled < r.Units {
					src = "sampled"
				}
				in = Inputs{N: n, Nodes: r.Nodes, IPN: r.IPN, ALUPN: r.ALU / r.Nodes, IMADPN: r.IMAD / r.Nodes,
					SIMT: r.SIMT, Source: src}
				found = true
			}
		}
		if !found {
			e, ok := known.Lookup(n)
			if !ok {
				return nil, fmt.Errorf("no published Total for N=%d", n)
			}
			x := float64(n)
			simt := 1 - math.Exp(idleAt(x))
			steps := iplAt(x) / (32 * simt) // warp steps per node
			in = Inputs{N: n, Nodes: (ra + rb*x) * float64(e.Total), IPN: spsAt(x) * steps, ALUPN: apsAt(x) * steps,
				IMADPN: mpsAt(x) * steps, SIMT: simt, Source: "extrapolated"}
		}
		out = append(out, in)
	}
	return out, nil
}

// relSE is the relative standard error of a result's nodes (0: exact).
func relSE(r *Result) float64 {
	if r.Nodes <= 0 {
		return math.Inf(1)
	}
	return r.NodesSE / r.Nodes
}

// Calibration is the fitted factor and how well it fits.
type Calibration struct {
	Factor   float64
	Pipes    bool // the pipe-aware times, else the issue-bound ones
	Peer     []Inputs
	Modelled map[int]float64 // factor × seconds
	RMSLog   float64         // root mean square of ln(published/modelled)
}

// Seconds is the modelled time of in: the factor times the issue-bound
// (or pipe-aware) time.
func (c *Calibration) Seconds(in Inputs) float64 {
	if c.Pipes {
		return c.Factor * in.PipeSeconds()
	}
	return c.Factor * in.Seconds()
}

// Calibrate fits the single factor that makes the peer model's times
// match the published ones: least squares on log times, that is the
// geometric mean of published / modelled. pipes selects the pipe-aware
// times instead of the issue-bound ones.
func Calibrate(results []*Result, pipes bool) (*Calibration, error) {
	ns := sortedKeys(PeerPublished)
	peer, err := ModelInputs(results, "pm_peer", ns)
	if err != nil {
		return nil, err
	}
	raw := func(in Inputs) float64 {
		if pipes {
			return in.PipeSeconds()
		}
		return in.Seconds()
	}
	var sum float64
	for _, in := range peer {
		sum += math.Log(PeerPublished[in.N] / raw(in))
	}
	c := &Calibration{Factor: math.Exp(sum / float64(len(peer))), Pipes: pipes, Peer: peer, Modelled: map[int]float64{}}
	var ss float64
	for _, in := range peer {
		m := c.Seconds(in)
		c.Modelled[in.N] = m
		d := math.Log(PeerPublished[in.N] / m)
		ss += d * d
	}
	c.RMSLog = math.Sqrt(ss / float64(len(peer)))
	return c, nil
}

func sortedKeys(m map[int]float64) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

func modelCmd(args []string) error {
	fs := flag.NewFlagSet("model", flag.ExitOnError)
	simPath := fs.String("sim", "docs/model/sim.tsv", "simulation results (warpsim sim -o)")
	tsvPath := fs.String("tsv", "docs/model/kernels.tsv", "kernel-report TSV")
	doc := fs.String("doc", "", "rewrite the generated block of this markdown file (between the model markers)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	results, err := ReadResults(*simPath)
	if err != nil {
		return err
	}
	infos, err := readKernelsFile(*tsvPath)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := writeModel(&b, results, infos); err != nil {
		return err
	}
	if *doc == "" {
		_, err := os.Stdout.Write(b.Bytes())
		return err
	}
	return replaceBlock(*doc, b.String())
}

const (
	beginMarker = "<!-- warpsim model: begin (generated by `go run ./scripts/warpsim model -doc docs/performance.md`) -->"
	endMarker   = "<!-- warpsim model: end -->"
)

// replaceBlock puts text between the markers of the markdown file.
func replaceBlock(path, text string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	i := strings.Index(s, beginMarker)
	j := strings.Index(s, endMarker)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %q ... %q block", path, beginMarker, endMarker)
	}
	s = s[:i+len(beginMarker)] + "\n" + text + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}

func label(kernel string) string {
	for _, a := range Adapters {
		if a.Kernel == kernel {
			return a.Label
		}
	}
	return kernel
}

func writeModel(w io.Writer, results []*Result, infos map[string]*KernelInfo) error {
	cal, err := Calibrate(results, false)
	if err != nil {
		return err
	}
	pcal, err := Calibrate(results, true)
	if err != nil {
		return err
	}
	g := func(v float64) string { return fmt.Sprintf("%.3g", v) }
	writeKernelInputs(w, infos)
	fmt.Fprintf(w, "\nIssue rate: %d SMs × %d schedulers × 1 warp instruction per cycle × %.3f GHz = %.3g warp instructions/s. "+
		"Pipe-aware variant: a scheduler's ALU pipe and FMA pipe (IMAD) take 16 lanes a cycle, so a warp "+
		"instruction holds its pipe two cycles; cycles = max(instructions, 2 × ALU-pipe instructions, 2 × IMAD).\n\n",
		SMs, Schedulers, ClockHz/1e9, IssueRate)

	fmt.Fprintln(w, "**Calibration** (the peer model against the peer's published H800 times):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| N | peer nodes | source | SIMT eff. | warp instr./node | issue-bound s | MODEL s | published H800 s | published / MODEL | pipe-aware: bound, MODEL s, published / MODEL |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for i, in := range cal.Peer {
		p := PeerPublished[in.N]
		pm := pcal.Modelled[pcal.Peer[i].N]
		fmt.Fprintf(w, "| %d | %s | %s | %.3f | %.3f | %.3g | %.3g | %.3g | %.3f | %s, %.3g, %.3f |\n", in.N, g(in.Nodes),
			in.Source, in.SIMT, in.IPN, in.Seconds(), cal.Modelled[in.N], p, p/cal.Modelled[in.N], in.Bound(), pm, p/pm)
	}
	fmt.Fprintf(w, "\nFactor = %.3f (least squares on log time over N=20, 21, 22; RMS of the log residuals %.3f, "+
		"that is ×%.3f); pipe-aware: factor %.3f, RMS %.3f. The peer's published time at N=13, where the search "+
		"is negligible, is %.2f s: the fixed cost of its run, which the fit leaves in.\n\n",
		cal.Factor, cal.RMSLog, math.Exp(cal.RMSLog), pcal.Factor, pcal.RMSLog, PeerFixed)

	want := []int{20, 21, 22, 23}
	type row struct {
		kernel string
		ins    []Inputs
	}
	var rows []row
	for _, a := range Adapters {
		ins, err := ModelInputs(results, a.Kernel, want)
		if err != nil {
			continue // not simulated
		}
		rows = append(rows, row{a.Kernel, ins})
	}
	for _, c := range []*Calibration{cal, pcal} {
		if c.Pipes {
			fmt.Fprintln(w, "**MODEL, pipe-aware variant: seconds on one H100 SXM** (its own factor, calibrated the same way):")
		} else {
			fmt.Fprintln(w, "**MODEL: seconds on one H100 SXM** (no GPU measurement; the same factor for every row):")
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| kernel | N=20 | N=21 | N=22 | N=23 |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |", label(r.kernel))
			for _, in := range r.ins {
				fmt.Fprintf(w, " MODEL %.3g s |", c.Seconds(in))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	// The goal of issue 13: N=22 in 45 s on one H100.
	const goalN, goalS = 22, 45.0
	fmt.Fprintf(w, "**Budget: N=%d in %.0f s** (what each kernel would need per node at its modelled nodes, SIMT efficiency and iterations per node):\n\n", goalN, goalS)
	fmt.Fprintln(w, "| kernel | nodes | MODEL s | × to the goal | warp instr./node: now, goal | instr. per warp step: now, goal | pipe-aware MODEL s | cycles/node: now, goal |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		for _, in := range r.ins {
			if in.N != goalN {
				continue
			}
			goalIPN := goalS * IssueRate / (cal.Factor * in.Nodes)
			goalCPN := goalS * IssueRate / (pcal.Factor * in.Nodes)
			perIter := 32 * in.SIMT // lane iterations a warp step serves, as nodes below
			iters := 1.0
			for _, res := range results {
				if res.Kernel == r.kernel && res.N == 21 && res.Nodes > 0 {
					iters = res.LaneSteps / res.Nodes
				}
			}
			perIter /= iters
			fmt.Fprintf(w, "| %s | %s | %.3g | %.2f | %.3f, %.3f | %.1f, %.1f | %.3g | %.3f, %.3f |\n", label(r.kernel), g(in.Nodes),
				cal.Seconds(in), cal.Seconds(in)/goalS, in.IPN, goalIPN, in.IPN*perIter, goalIPN*perIter,
				pcal.Seconds(in), in.PipeCPN(), goalCPN)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "**Model inputs by N** (nodes: exact or sampled by the simulator, or extrapolated as nodes/Total; "+
		"per node: warp instructions, and scheduler cycles when the pipes may bind):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| kernel | N | nodes | source | SIMT eff. | warp instr./node | ALU, IMAD instr./node | pipe-aware cycles/node (bound) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		for _, in := range r.ins {
			fmt.Fprintf(w, "| %s | %d | %s | %s | %.3f | %.3f | %.3f, %.3f | %.3f (%s) |\n", label(r.kernel), in.N, g(in.Nodes),
				in.Source, in.SIMT, in.IPN, in.ALUPN, in.IMADPN, in.PipeCPN(), in.Bound())
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "**Simulated** (`warpsim sim`: the kernels' C search in lockstep warps; ± one standard error of the sampling):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| N | kernel | tasks (depth) | units run | nodes | SIMT eff. | warp instr./node | lane iterations/node | warp instr./warp step | counts |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	sorted := append([]*Result(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].N != sorted[j].N {
			return sorted[i].N < sorted[j].N
		}
		return order(sorted[i].Kernel) < order(sorted[j].Kernel)
	})
	for _, r := range sorted {
		units := fmt.Sprintf("all %d", r.Units)
		nodes := g(r.Nodes)
		simt := fmt.Sprintf("%.3f", r.SIMT)
		ipn := fmt.Sprintf("%.3f", r.IPN)
		if r.Sampled < r.Units {
			units = fmt.Sprintf("%d of %d", r.Sampled, r.Units)
			nodes += fmt.Sprintf(" ± %.1f%%", 100*r.NodesSE/r.Nodes)
			simt += fmt.Sprintf(" ± %.3f", r.SIMTSE)
			ipn += fmt.Sprintf(" ± %.3f", r.IPNSE)
		}
		depth := fmt.Sprintf("%d (%d)", r.TaskCount, r.Depth)
		if r.Tasks == "carry" {
			depth = fmt.Sprintf("%d frames", r.TaskCount)
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s | %.3f | %.1f | %s |\n", r.N, r.Kernel, depth, units, nodes,
			simt, ipn, r.ItersPerNode, r.InstsPerStep, r.Check)
	}
	fmt.Fprintln(w)
	return nil
}

// writeKernelInputs writes the compiler's figures per kernel.
func writeKernelInputs(w io.Writer, infos map[string]*KernelInfo) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "**Kernel inputs** (`scripts/kernel-report.sh`: nvcc 11.8, sm_90, -O3; SASS instructions of one step-loop "+
		"iteration by path, the cheapest path of each kind; for a loop that takes several steps an iteration, per step "+
		"and in brackets the iteration over its steps):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| kernel | registers | local memory (stack) B | spills B | smem per block B (N=20) | warps/SM (N=20) | push | dead | leaf | sol | pop | end | memory ops (push; pop) | tasks |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, a := range Adapters {
		k := infos[a.Kernel]
		if k == nil {
			continue
		}
		// N=20: the boards' depth, and the eightfold kernels' frames for
		// the longest task (n-3-split levels).
		split := EightfoldSplit(20)
		smem := BlockSmem(k, a, 20, SymDepth(20), EightfoldFrames(20-3-split))
		path := func(c string) string {
			p, ok := k.Paths[c]
			if !ok || p.Absent {
				return "-"
			}
			if k.Steps > 1 { // per step, of an iteration of several
				return fmt.Sprintf("%.3g (%d/%d)", float64(p.Insts)/float64(k.Steps), p.Insts, k.Steps)
			}
			return fmt.Sprint(p.Insts)
		}
		mem := func(c string) string {
			p, ok := k.Paths[c]
			if !ok || p.Absent {
				return "-"
			}
			return p.Mem
		}
		popMem := mem("pop")
		if popMem == "-" {
			popMem = "(no pop iteration)"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d/%d | %d | %d | %s | %s | %s | %s | %s | %s | %s; %s | %s, %s |\n", a.Kernel, k.Regs,
			k.Stack, k.SpillStores, k.SpillLoads, smem, ResidentWarps(k.Regs, a.Threads, smem), path("push"),
			path("dead"), path("leaf"), path("sol"), path("pop"), path("end"), mem("push"), popMem, k.Mode, taskNote(a))
	}
}

func taskNote(a Adapter) string {
	switch a.Tasks {
	case "sym":
		return fmt.Sprintf("symmetry boards, %d threads/block", a.Threads)
	case "carry":
		return fmt.Sprintf("carry-chain frames, %d threads/block", a.Threads)
	case "peer":
		return fmt.Sprintf("%d pre-placed rows (mirror), %d threads/block, %d blocks", PeerRows, a.Threads, a.Grid)
	case "ef":
		return fmt.Sprintf("eightfold tasks (split tasks.SplitFor), %d threads/block", a.Threads)
	}
	return a.Tasks
}

func order(kernel string) int {
	for i, a := range Adapters {
		if a.Kernel == kernel {
			return i
		}
	}
	return len(Adapters)
}
