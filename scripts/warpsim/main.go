//go:build cgo

package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The GPU the model is for: an H100 SXM.
const (
	SMs          = 132
	Schedulers   = 4 // per SM, one warp instruction per cycle each
	ClockHz      = 1.755e9
	RegsPerSM    = 65536
	WarpsPerSM   = 64
	BlocksPerSM  = 32
	SmemPerSM    = 233472 // 228 KiB
	SmemPerBlock = 1024   // reserved by the system per block
)

// IssueRate is the warp instructions per second the model's GPU issues
// at most.
const IssueRate = SMs * Schedulers * ClockHz

// Adapter is one kernel the simulator runs.
type Adapter struct {
	Kernel  string // the entry name in the kernel-report TSV
	Label   string
	Tasks   string // "sym", "carry", "peer" or "ef"
	Threads int    // block size
	// Grid: blocks of a fixed grid (the peer); Resident: as many blocks
	// as stay resident (a grid-stride loop over the tasks); neither: one
	// task per thread.
	Grid     int
	Resident bool
}

// Adapters are the kernels of the model: the project's and the peer model.
var Adapters = []Adapter{
	{Kernel: "nq_symmetry_boards", Label: "ours, static (default)", Tasks: "sym", Threads: 128},
	{Kernel: "nq_symmetry_boards_dyn", Label: "ours, -gpu-dynamic", Tasks: "sym", Threads: 128},
	{Kernel: "nq_symmetry_boards_smem", Label: "ours, -gpu-smem", Tasks: "sym", Threads: 128},
	{Kernel: "nq_carry_frames", Label: "ours, -algo carrychain", Tasks: "carry", Threads: 128},
	{Kernel: "nq_eightfold", Label: "ours, eightfold (dynamic)", Tasks: "ef", Threads: 128},
	{Kernel: "nq_eightfold_static", Label: "ours, eightfold static", Tasks: "ef", Threads: 128, Resident: true},
	{Kernel: "pm_peer", Label: "peer (Yao & Li), modelled", Tasks: "peer", Threads: 160, Grid: 1024},
}

// PeerRows is the peer's published number of pre-placed rows.
const PeerRows = 6

// SymDepth is the depth of the symmetry boards of an H100 run at n, as
// plan.Normalize picks it for 132 SMs.
func SymDepth(n int) int {
	return plan.Normalize(nq.Spec{N: n, Algo: nq.Symmetry, SMs: []int{SMs}}).Depth
}

// EightfoldSplit is the split of the eightfold tasks of an H100 run at n,
// as plan.Normalize picks it for 132 SMs.
func EightfoldSplit(n int) int {
	return plan.Normalize(nq.Spec{N: n, Algo: nq.Eightfold, SMs: []int{SMs}}).Depth
}

// smLimits are what bounds the blocks an SM keeps resident.
type smLimits struct {
	Regs, Warps, Blocks int
	Smem, SmemPerBlock  int // shared memory per SM, and what the system reserves per block
}

// H100Limits are the model's GPU's (the constants above).
var H100Limits = smLimits{Regs: RegsPerSM, Warps: WarpsPerSM, Blocks: BlocksPerSM, Smem: SmemPerSM, SmemPerBlock: SmemPerBlock}

// QV100Limits are GPGPU-Sim's QV100 configuration's: 96 KiB of shared
// memory per SM and no reserve per block.
var QV100Limits = smLimits{Regs: 65536, Warps: 64, Blocks: 32, Smem: 98304}

// residentWarps returns the warps per SM that a kernel of regs registers
// per thread, threads per block and smem bytes of shared memory per block
// keeps resident within l.
func (l smLimits) residentWarps(regs, threads, smem int) int {
	wpb := (threads + 31) / 32
	perWarp := (regs*32 + 255) / 256 * 256
	blocks := l.Blocks
	if perWarp > 0 {
		blocks = min(blocks, l.Regs/(perWarp*wpb))
	}
	blocks = min(blocks, l.Warps/wpb)
	if smem > 0 {
		blocks = min(blocks, l.Smem/(smem+l.SmemPerBlock))
	}
	return blocks * wpb
}

// ResidentWarps returns the warps per SM that a kernel of regs registers
// per thread, threads per block and smem bytes of shared memory per block
// keeps resident on the model's GPU.
func ResidentWarps(regs, threads, smem int) int {
	return H100Limits.residentWarps(regs, threads, smem)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: warpsim sim|model|latency [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "sim":
		err = simCmd(os.Args[2:])
	case "model":
		err = modelCmd(os.Args[2:])
	case "latency":
		err = latencyCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (want sim, model or latency)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "warpsim:", err)
		os.Exit(1)
	}
}

// parseSizes parses args with fs and then the board sizes that the flag
// whose value ns points to holds (parseNs); ns is read after the parse.
func parseSizes(fs *flag.FlagSet, args []string, ns *string) ([]int, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return parseNs(*ns)
}

func parseNs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if lo, hi, ok := strings.Cut(f, "-"); ok {
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a > b {
				return nil, fmt.Errorf("bad N range %q", f)
			}
			for n := a; n <= b; n++ {
				out = append(out, n)
			}
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("bad N %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// Result is one kernel simulated at one N: a row of sim.tsv.
type Result struct {
	N                    int
	Kernel, Tasks        string
	Depth                int // pre-placed rows of the tasks (0: carry-chain frames)
	TaskCount            int64
	Mode                 string
	Warps                int64 // refill: resident warps
	Units, Sampled       int64
	Nodes, NodesSE       float64
	WarpSteps, LaneSteps float64
	Insts                float64
	ALU, IMAD            float64 // the step loop's instructions on the ALU and FMA pipes
	IPN, IPNSE           float64
	SIMT, SIMTSE         float64
	ItersPerNode         float64 // lane iterations per node
	InstsPerStep         float64 // warp instructions per warp step
	Check                string  // counts checked against the published table (exact runs)
	Seconds              float64 // host time of the simulation
	ClassShare           [8]float64
}

func simCmd(args []string) error {
	fs := flag.NewFlagSet("sim", flag.ExitOnError)
	tsvPath := fs.String("tsv", "docs/model/kernels.tsv", "kernel-report TSV (scripts/kernel-report.sh)")
	nsFlag := fs.String("n", "16-18", "board sizes, e.g. 16-18 or 16,17")
	kernels := fs.String("kernels", "all", "kernels to simulate, comma-separated entry names")
	samples := fs.Int64("samples", 0, "rounds of 32 tasks to sample per kernel and N (0: all)")
	refillSamples := fs.Int64("refill-samples", 0, "warps to sample per dynamic kernel and N (0: all)")
	exactUpTo := fs.Int("exact", 0, "run every unit (no sampling) for N up to this")
	seed := fs.Uint64("seed", 1, "sampling seed")
	jobs := fs.Int("j", 1, "parallel workers")
	out := fs.String("o", "", "append the results to this TSV (written fresh if it does not exist)")
	ns, err := parseSizes(fs, args, nsFlag)
	if err != nil {
		return err
	}
	infos, err := readKernelsFile(*tsvPath)
	if err != nil {
		return err
	}
	var ads []Adapter
	for _, a := range Adapters {
		if *kernels == "all" || strings.Contains(","+*kernels+",", ","+a.Kernel+",") {
			if infos[a.Kernel] == nil {
				return fmt.Errorf("kernel %s is not in %s", a.Kernel, *tsvPath)
			}
			ads = append(ads, a)
		}
	}
	var results []*Result
	for _, n := range ns {
		s, rs := *samples, *refillSamples
		if n <= *exactUpTo {
			s, rs = 0, 0
		}
		res, err := simulateN(n, ads, infos, s, rs, *seed, *jobs)
		if err != nil {
			return err
		}
		results = append(results, res...)
	}
	if *out != "" {
		return appendResults(*out, results)
	}
	return nil
}

func simulateN(n int, ads []Adapter, infos map[string]*KernelInfo, samples, refillSamples int64, seed uint64, jobs int) ([]*Result, error) {
	lists := map[string]*TaskList{}
	defer func() {
		for _, tl := range lists {
			tl.Free()
		}
	}()
	var out []*Result
	for _, a := range ads {
		k := infos[a.Kernel]
		costs, err := CostsFor(k)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		r := &Result{N: n, Kernel: a.Kernel, Tasks: a.Tasks, Mode: k.Mode}
		var us []Unit
		switch {
		case a.Tasks == "carry":
			us, err = simFrames(n, r, costs, k, samples, seed, jobs)
		default:
			tl := lists[a.Tasks]
			if tl == nil {
				switch a.Tasks {
				case "sym":
					tl, err = SymmetryTasks(n, SymDepth(n))
				case "ef":
					var frames int
					tl, frames, err = EightfoldTasks(n, EightfoldSplit(n))
					if tl != nil {
						tl.Frames = frames
					}
				default:
					tl, err = PeerTasks(n, PeerRows)
				}
				if err != nil {
					return nil, err
				}
				lists[a.Tasks] = tl
			}
			r.Depth, r.TaskCount = tl.Depth, tl.Count
			s := samples
			if k.Mode == "refill" {
				s = refillSamples
			}
			us, err = simList(tl, a, r, costs, k, s, seed, jobs)
		}
		if err != nil {
			return nil, fmt.Errorf("%s N=%d: %w", a.Kernel, n, err)
		}
		e := estimate(r.Units, us)
		r.Sampled = e.Sampled
		r.Nodes, r.NodesSE = e.Nodes, e.NodesSE
		r.WarpSteps, r.LaneSteps, r.Insts = e.WarpSteps, e.LaneSteps, e.Insts
		r.ALU, r.IMAD = e.ALU, e.IMAD
		r.IPN, r.IPNSE, r.SIMT, r.SIMTSE = e.IPN, e.IPNSE, e.SIMT, e.SIMTSE
		if e.Sum.Nodes > 0 {
			r.ItersPerNode = e.Sum.LaneSteps / float64(e.Sum.Nodes)
		}
		if e.Sum.WarpSteps > 0 {
			r.InstsPerStep = e.Sum.Insts / e.Sum.WarpSteps
		}
		var iters float64
		for _, v := range e.Sum.ByClass {
			iters += float64(v)
		}
		for i, v := range e.Sum.ByClass {
			if iters > 0 {
				r.ClassShare[i] = float64(v) / iters
			}
		}
		r.Check = "sampled"
		if e.Exact() {
			r.Check = checkCounts(n, a.Tasks, e.Sum.Sums)
		}
		r.Seconds = time.Since(start).Seconds()
		printResult(os.Stdout, r)
		out = append(out, r)
	}
	return out, nil
}

// simList simulates a kernel over a task list held whole.
func simList(tl *TaskList, a Adapter, r *Result, costs *Costs, k *KernelInfo, samples int64, seed uint64, jobs int) ([]Unit, error) {
	wpb := int64((a.Threads + 31) / 32)
	blocks := (tl.Count + int64(a.Threads) - 1) / int64(a.Threads)
	resident := int64(SMs*ResidentWarps(k.Regs, a.Threads, BlockSmem(k, a, r.N, tl.Depth, tl.Frames))) / wpb
	switch k.Mode {
	case "rounds":
		r.Units = (tl.Count + 31) / 32
		grid := int64(a.Grid)
		if a.Resident {
			grid = min(blocks, resident)
		}
		if grid > 0 {
			// Fixed grid, many rounds per warp: each round pays the
			// fetch-and-start path; prologue and epilogue once per warp.
			r.Warps = grid * wpb
			costs.PerRound = float64(k.Next) + float64(r.Warps)*float64(k.Prologue+k.Epilogue)/float64(r.Units)
		} else {
			costs.PerRound = float64(k.Prologue + k.Epilogue)
		}
		idx := pick(r.Units, samples, seed^uint64(r.N)<<8)
		return runUnits(idx, jobs, func(g int64) (Unit, error) { return Round(tl, 32*g, costs) })
	case "refill":
		warps := min(resident, blocks) * wpb
		r.Warps, r.Units = warps, warps
		costs.PerWarp = float64(k.Prologue + k.Epilogue)
		idx := pick(r.Units, samples, seed^uint64(r.N)<<8)
		return runUnits(idx, jobs, func(w int64) (Unit, error) { return Refill(tl, w, warps, costs) })
	}
	return nil, fmt.Errorf("unknown mode %q", k.Mode)
}

// BlockSmem is the shared memory of one block of kernel k at n with task
// list tl: the static part and, for the kernels with shared-memory stacks,
// the dynamic part the launch asks for.
func BlockSmem(k *KernelInfo, a Adapter, n, depth, frames int) int {
	smem := k.Smem
	switch a.Kernel {
	case "nq_symmetry_boards_smem":
		smem += 4 * (2*n - 1 - depth) * a.Threads
	case "nq_eightfold", "nq_eightfold_static":
		smem += 16 * max(1, frames) * a.Threads // frames of 16 bytes
	}
	return smem
}

// simFrames simulates the carry-chain kernel (rounds); with sampling only
// the frames of the sampled rounds are kept from the enumeration.
func simFrames(n int, r *Result, costs *Costs, k *KernelInfo, samples int64, seed uint64, jobs int) ([]Unit, error) {
	var total int64
	if err := tasks.EnumerateFrames(n, 1<<16, func(f *tasks.Frames) error {
		total += int64(f.Len())
		return nil
	}); err != nil {
		return nil, err
	}
	r.TaskCount = total
	r.Units = (total + 31) / 32
	costs.PerRound = float64(k.Prologue + k.Epilogue)
	idx := pick(r.Units, samples, seed^uint64(n)<<8)
	keep := map[int64]bool{}
	for _, g := range idx {
		keep[g] = true
	}
	tl, _, _, err := FrameTasks(n, func(i int64) bool { return keep[i/32] })
	if err != nil {
		return nil, err
	}
	defer tl.Free()
	// The kept rounds lie one after the other in tl, 32 frames each (the
	// last round of the whole list, if kept, last and maybe shorter).
	local := make([]int64, len(idx))
	for i := range local {
		local[i] = int64(i)
	}
	return runUnits(local, jobs, func(g int64) (Unit, error) { return Round(tl, 32*g, costs) })
}

// checkCounts compares the counts of a complete run with the published
// table: Total (and Unique for the symmetry boards).
func checkCounts(n int, kind string, s Sums) string {
	e, ok := known.Lookup(n)
	if !ok {
		return "no published count"
	}
	var total, unique uint64
	switch kind {
	case "sym":
		total = 2*s.C2 + 4*s.C4 + 8*s.C8
		unique = s.C2 + s.C4 + s.C8
		if unique != e.Unique {
			return fmt.Sprintf("WRONG unique %d", unique)
		}
	case "carry":
		total = s.C2 + s.C4 + s.C8
	case "peer":
		total = 2 * s.C8
	case "ef":
		total = s.C8
	}
	if total != e.Total {
		return fmt.Sprintf("WRONG total %d", total)
	}
	return "total ok"
}

func printResult(w io.Writer, r *Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	samp := "all"
	if r.Sampled < r.Units {
		samp = fmt.Sprintf("%d of", r.Sampled)
	}
	fmt.Fprintf(tw, "N=%d\t%s\t%s %d units\tnodes %.4g ± %.2g\tSIMT %.3f ± %.3f\twarp insts/node %.2f ± %.2f\titers/node %.3f\tinsts/step %.1f\t%s\t%.0fs\n",
		r.N, r.Kernel, samp, r.Units, r.Nodes, r.NodesSE, r.SIMT, r.SIMTSE, r.IPN, r.IPNSE, r.ItersPerNode,
		r.InstsPerStep, r.Check, r.Seconds)
	tw.Flush()
}

var resultHeader = []string{"n", "kernel", "tasks", "depth", "task_count", "mode", "warps", "units", "sampled",
	"nodes", "nodes_se", "warp_steps", "lane_steps", "insts", "alu", "imad", "ipn", "ipn_se", "simt", "simt_se",
	"iters_per_node", "insts_per_step", "check", "seconds",
	"share_push", "share_dead", "share_leaf", "share_sol", "share_pop", "share_end", "share_orbit", "share_popc"}

func (r *Result) fields() []string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	out := []string{strconv.Itoa(r.N), r.Kernel, r.Tasks, strconv.Itoa(r.Depth), strconv.FormatInt(r.TaskCount, 10),
		r.Mode, strconv.FormatInt(r.Warps, 10), strconv.FormatInt(r.Units, 10), strconv.FormatInt(r.Sampled, 10),
		g(r.Nodes), g(r.NodesSE), g(r.WarpSteps), g(r.LaneSteps), g(r.Insts), g(r.ALU), g(r.IMAD), g(r.IPN), g(r.IPNSE), g(r.SIMT),
		g(r.SIMTSE), g(r.ItersPerNode), g(r.InstsPerStep), r.Check, strconv.FormatFloat(r.Seconds, 'f', 1, 64)}
	for _, v := range r.ClassShare {
		out = append(out, strconv.FormatFloat(v, 'f', 5, 64))
	}
	return out
}

// appendResults adds results to the TSV at path, replacing rows of the
// same N and kernel.
func appendResults(path string, results []*Result) error {
	old, err := ReadResults(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	key := func(r *Result) string { return fmt.Sprintf("%d/%s", r.N, r.Kernel) }
	byKey := map[string]*Result{}
	for _, r := range old {
		byKey[key(r)] = r
	}
	for _, r := range results {
		byKey[key(r)] = r
	}
	all := make([]*Result, 0, len(byKey))
	for _, r := range byKey {
		all = append(all, r)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].N != all[j].N {
			return all[i].N < all[j].N
		}
		return all[i].Kernel < all[j].Kernel
	})
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "# warpsim sim: one row per N and kernel (scripts/warpsim, docs/performance.md)")
	fmt.Fprintln(w, strings.Join(resultHeader, "\t"))
	for _, r := range all {
		fmt.Fprintln(w, strings.Join(r.fields(), "\t"))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadResults reads a sim TSV.
func ReadResults(path string) ([]*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "n\t") {
			continue
		}
		fl := strings.Split(t, "\t")
		if len(fl) != len(resultHeader) {
			return nil, fmt.Errorf("%s: row with %d fields, want %d", path, len(fl), len(resultHeader))
		}
		num := func(i int) float64 { v, _ := strconv.ParseFloat(fl[i], 64); return v }
		inum := func(i int) int64 { v, _ := strconv.ParseInt(fl[i], 10, 64); return v }
		r := &Result{N: int(inum(0)), Kernel: fl[1], Tasks: fl[2], Depth: int(inum(3)), TaskCount: inum(4),
			Mode: fl[5], Warps: inum(6), Units: inum(7), Sampled: inum(8), Nodes: num(9), NodesSE: num(10),
			WarpSteps: num(11), LaneSteps: num(12), Insts: num(13), ALU: num(14), IMAD: num(15), IPN: num(16),
			IPNSE: num(17), SIMT: num(18), SIMTSE: num(19), ItersPerNode: num(20), InstsPerStep: num(21),
			Check: fl[22], Seconds: num(23)}
		for i := range r.ClassShare {
			r.ClassShare[i] = num(24 + i)
		}
		if math.IsNaN(r.IPN) {
			return nil, fmt.Errorf("%s: bad row %q", path, t)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
