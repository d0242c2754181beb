package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Resources are ptxas's figures for one kernel entry.
type Resources struct {
	Regs, Stack, SpillStores, SpillLoads, Smem int
}

var (
	reEntry = regexp.MustCompile(`Compiling entry function '([^']+)' for '([^']+)'`)
	reStack = regexp.MustCompile(`([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads`)
	reRegs  = regexp.MustCompile(`Used ([0-9]+) registers`)
	reSmem  = regexp.MustCompile(`([0-9]+) bytes smem`)
)

// ParsePtxas reads the -Xptxas -v output of one compilation.
func ParsePtxas(text string) map[string]*Resources {
	out := map[string]*Resources{}
	var cur *Resources
	atoi := func(s string) int { v, _ := strconv.Atoi(s); return v }
	for _, l := range strings.Split(text, "\n") {
		if m := reEntry.FindStringSubmatch(l); m != nil {
			cur = &Resources{}
			out[m[1]] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if m := reStack.FindStringSubmatch(l); m != nil {
			cur.Stack, cur.SpillStores, cur.SpillLoads = atoi(m[1]), atoi(m[2]), atoi(m[3])
		}
		if m := reRegs.FindStringSubmatch(l); m != nil {
			cur.Regs = atoi(m[1])
			if s := reSmem.FindStringSubmatch(l); s != nil {
				cur.Smem = atoi(s[1])
			}
		}
	}
	return out
}

// PathResult is one analysed path kind of a kernel.
type PathResult struct {
	Class  string
	Path   Path
	Mix    Mix
	Merged bool // no path avoided the Avoid markers: predicated code
	Absent bool // an optional path the loop does not have
}

// KernelResult is the analysis of one kernel entry.
type KernelResult struct {
	Name       string
	Source     string
	Res        Resources
	Spec       *KernelSpec
	CFG        *CFG
	Loop       *Loop
	LoopInsts  int
	Steps      int // steps per iteration of the step loop (KernelSpec.Step)
	Bottom     bool
	Reconverge bool
	Paths      []PathResult
	Prologue   Path // kernel entry to the loop header
	Next       Path // loop exit back to the loop header (the next task), if any
	Epilogue   Path // loop exit to EXIT
}

// Analyse finds the step loop of g by spec and the paths of its kinds.
func Analyse(g *CFG, spec *KernelSpec, src *Sources) (*KernelResult, error) {
	kr := &KernelResult{Name: g.Fn.Name, Spec: spec, CFG: g}
	mark := func(ms []Marker) ([][]bool, error) {
		var out [][]bool
		for _, m := range ms {
			b, err := src.MarkBlocks(g, m)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return out, nil
	}
	loopMarks, err := mark(spec.Loop)
	if err != nil {
		return nil, err
	}
	for _, l := range g.Loops { // smallest first
		ok := true
		for _, mk := range loopMarks {
			has := false
			for b := range l.Blocks {
				has = has || mk[b]
			}
			ok = ok && has
		}
		if ok {
			kr.Loop = l
			break
		}
	}
	if kr.Loop == nil {
		return nil, fmt.Errorf("%s: no loop holds the markers %v", g.Fn.Name, spec.Loop)
	}
	l := kr.Loop
	for b := range l.Blocks {
		kr.LoopInsts += g.Blocks[b].Size()
	}
	kr.Steps = 1
	if spec.Step != nil {
		n, err := src.CountInsts(g, l, *spec.Step)
		if err != nil {
			return nil, err
		}
		if n < 1 {
			return nil, fmt.Errorf("%s: the step loop has no instruction of the step marker %v", g.Fn.Name, *spec.Step)
		}
		kr.Steps = n
	}
	kr.Bottom = g.BottomTested(l)
	kr.Reconverge = g.Reconverges(l)
	for _, ps := range spec.Paths {
		need, err := mark(ps.Need)
		if err != nil {
			return nil, err
		}
		avoid, err := mark(ps.Avoid)
		if err != nil {
			return nil, err
		}
		pr := PathResult{Class: ps.Class}
		// Avoided markers: forbid their blocks, unless no path is left.
		sub := &Loop{Header: l.Header, Latches: l.Latches, Blocks: map[int]bool{}}
		for b := range l.Blocks {
			keep := true
			for _, a := range avoid {
				if a[b] && b != l.Header {
					keep = false
				}
			}
			if keep {
				sub.Blocks[b] = true
			}
		}
		if ps.Outer {
			outer := g.Enclosing(l)
			if outer == nil {
				return nil, fmt.Errorf("%s: no loop around the step loop for the %s path", g.Fn.Name, ps.Class)
			}
			p, ok := g.ShortestCycle(l, outer, need)
			if !ok {
				return nil, fmt.Errorf("%s: no %s path through the loop around the step loop", g.Fn.Name, ps.Class)
			}
			pr.Path = p
			pr.Mix = g.MixOf(p.Blocks)
			kr.Paths = append(kr.Paths, pr)
			continue
		}
		p, ok := g.ShortestIteration(sub, need, ps.Exit)
		if ps.Exit && ok {
			// Leaving the pruned loop must also leave the real one.
			last := p.Blocks[len(p.Blocks)-1]
			out := false
			for _, s := range g.Blocks[last].Succ {
				out = out || !l.Contains(s)
			}
			ok = out
		}
		if !ok {
			p, ok = g.ShortestIteration(l, need, ps.Exit)
			pr.Merged = len(ps.Avoid) > 0
		}
		for _, b := range p.Blocks { // the header is kept though it may hold one
			for _, a := range avoid {
				pr.Merged = pr.Merged || a[b]
			}
		}
		if !ok && ps.Optional {
			kr.Paths = append(kr.Paths, PathResult{Class: ps.Class, Absent: true})
			continue
		}
		if !ok {
			return nil, fmt.Errorf("%s: no %s path through the step loop", g.Fn.Name, ps.Class)
		}
		pr.Path = p
		pr.Mix = g.MixOf(p.Blocks)
		kr.Paths = append(kr.Paths, pr)
	}
	isHeader := func(b int) bool { return b == l.Header }
	exits := g.ExitTargets(l)
	inLoop := l.Blocks
	if p, ok := g.ShortestBetween([]int{0}, isHeader, inLoop); ok {
		p.Insts -= g.Blocks[l.Header].Size() // the header belongs to the first iteration
		p.Blocks = p.Blocks[:len(p.Blocks)-1]
		kr.Prologue = p
	}
	if p, ok := g.ShortestBetween(exits, isHeader, inLoop); ok {
		p.Insts -= g.Blocks[l.Header].Size()
		p.Blocks = p.Blocks[:len(p.Blocks)-1]
		kr.Next = p
	}
	ends := func(b int) bool { return g.Blocks[b].Exit }
	if p, ok := g.ShortestBetween(exits, ends, inLoop); ok {
		kr.Epilogue = p
	}
	return kr, nil
}

var debug *string

// nodeTwins: build every file a second time with -DNQ_NODES=1 (make ptx's
// _nodes twins) and report the kernels of that build named *_nodes.
var nodeTwins bool

func run(name string, args ...string) (string, string, error) {
	// nvdisasm can loop without end on some inputs (with -gi, on a cubin
	// whose reduction helper has external linkage): bound every tool.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), errb.String(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String(), nil
}

// compile builds one .cu file (with extra nvcc flags) and returns its
// resources and SASS.
func compile(nvcc, nvdisasm, arch, file string, incs, extra []string, tmp string) (map[string]*Resources, []*Function, error) {
	cubin := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(file), ".cu")+fmt.Sprint(len(extra))+".cubin")
	args := []string{"-cubin", "-arch=" + arch, "-O3", "-lineinfo", "-Xptxas", "-v"}
	args = append(args, extra...)
	for _, d := range incs {
		args = append(args, "-I"+d)
	}
	args = append(args, "-o", cubin, file)
	stdout, stderr, err := run(nvcc, args...)
	if err != nil {
		return nil, nil, err
	}
	res := ParsePtxas(stdout + stderr)
	// -g: each instruction's own source line. -gi would add the calls it
	// was inlined at, but nvdisasm 11.8 runs out of memory with it on
	// some cubins (boards.cu since nq_block_add3 has external linkage);
	// the markers need only the own lines.
	sass, _, err := run(nvdisasm, "-g", "-c", cubin)
	if err != nil {
		return nil, nil, err
	}
	fns, err := ParseSASS(strings.NewReader(sass))
	if err != nil {
		return nil, nil, err
	}
	return res, fns, nil
}

func main() {
	arch := flag.String("arch", "sm_90", "GPU architecture to compile for")
	nvcc := flag.String("nvcc", "nvcc", "nvcc")
	nvdisasm := flag.String("nvdisasm", "nvdisasm", "nvdisasm")
	tsv := flag.String("tsv", "", "write the machine-readable report here")
	debug = flag.String("debug", "", "dump the control-flow graph of this kernel entry to stderr")
	incFlag := flag.String("I", "kernels", "include directories, comma-separated (the directory of each file is added)")
	flag.BoolVar(&nodeTwins, "nodes", false, "also build each file with -DNQ_NODES=1 and report its kernels named *_nodes (the -gpu-nodes twins)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: kernelreport [-arch sm_90] [-tsv FILE] FILE.cu...")
		os.Exit(2)
	}
	if err := report(os.Stdout, *tsv, *arch, *nvcc, *nvdisasm, strings.Split(*incFlag, ","), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "kernelreport:", err)
		os.Exit(1)
	}
}

func report(w io.Writer, tsvPath, arch, nvcc, nvdisasm string, incs, files []string) error {
	tmp, err := os.MkdirTemp("", "kernelreport")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ver := "unknown"
	if out, _, err := run(nvcc, "--version"); err == nil {
		for _, l := range strings.Split(out, "\n") {
			if _, v, ok := strings.Cut(l, "release "); ok {
				ver = v // "11.8, V11.8.89"
			}
		}
	}
	var results []*KernelResult
	type build struct {
		file  string
		extra []string
	}
	var builds []build
	for _, f := range files {
		builds = append(builds, build{f, nil})
		if nodeTwins {
			builds = append(builds, build{f, []string{"-DNQ_NODES=1"}})
		}
	}
	for _, bd := range builds {
		f := bd.file
		dirs := append([]string{filepath.Dir(f)}, incs...)
		res, fns, err := compile(nvcc, nvdisasm, arch, f, dirs, bd.extra, tmp)
		if err != nil {
			return err
		}
		src := &Sources{Dirs: dirs}
		sort.Slice(fns, func(i, j int) bool { return fns[i].Name < fns[j].Name })
		for _, fn := range fns {
			r, ok := res[fn.Name]
			if !ok {
				continue // not an entry
			}
			if len(bd.extra) > 0 && !strings.HasSuffix(fn.Name, "_nodes") {
				continue // a file without node twins
			}
			kr := &KernelResult{Name: fn.Name}
			if spec := SpecFor(fn.Name); spec != nil {
				g, err := BuildCFG(fn)
				if err != nil {
					return err
				}
				if debug != nil && *debug == fn.Name {
					dumpCFG(os.Stderr, g, spec, src)
				}
				if kr, err = Analyse(g, spec, src); err != nil {
					return err
				}
			}
			kr.Source = filepath.Base(f)
			kr.Res = *r
			results = append(results, kr)
		}
	}
	printReport(w, arch, ver, results)
	if tsvPath != "" {
		var b bytes.Buffer
		writeTSV(&b, arch, ver, results)
		if err := os.WriteFile(tsvPath, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", tsvPath, err)
		}
	}
	return nil
}

func printReport(w io.Writer, arch, ver string, results []*KernelResult) {
	fmt.Fprintf(w, "Kernel resources (nvcc %s, -arch=%s -O3; ptxas -v)\n\n", ver, arch)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kernel\tsource\tregisters\tstack frame (local) B\tspill stores B\tspill loads B\tstatic smem B\t")
	for _, k := range results {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", k.Name, k.Source, k.Res.Regs, k.Res.Stack,
			k.Res.SpillStores, k.Res.SpillLoads, k.Res.Smem)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nStep loop SASS: instructions of one iteration per path kind (the cheapest path of each kind)\n\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kernel\tloop (blocks/instrs)\tpath\tinstrs\tALU/IMAD/FP32/other\tmemory ops\tnote\t")
	for _, k := range results {
		if k.Loop == nil {
			continue
		}
		loop := fmt.Sprintf("%d/%d", len(k.Loop.Blocks), k.LoopInsts)
		for i, p := range k.Paths {
			note := ""
			switch {
			case p.Absent:
				note = "not in this loop (another copy of the loop has it)"
			case p.Merged:
				note = "predicated: shares its path"
			}
			name := k.Name
			if i > 0 {
				name, loop = "", ""
			}
			if p.Absent {
				fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t%s\t\n", name, loop, p.Class, note)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d/%d/%d/%d\t%s\t%s\t\n", name, loop, p.Class, p.Path.Insts, p.Mix.ALU,
				p.Mix.IMAD, p.Mix.FP32, p.Mix.Other, p.Mix.Mem(), note)
		}
		steps := ""
		if k.Steps > 1 {
			steps = fmt.Sprintf("; %d steps per iteration (the paths are whole iterations)", k.Steps)
		}
		fmt.Fprintf(tw, "\t\t(fixed)\t\t\tprologue %d, next task %d, epilogue %d; mode %s; reconverges at loop exit: %v%s\t\t\n",
			k.Prologue.Insts, k.Next.Insts, k.Epilogue.Insts, k.Spec.Mode, yesNo(k.Reconverge), steps)
	}
	tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeTSV writes the machine-readable report that warpsim reads.
func writeTSV(w io.Writer, arch, ver string, results []*KernelResult) {
	fmt.Fprintf(w, "# kernelreport: arch %s, nvcc %s\n", arch, ver)
	fmt.Fprintln(w, "# kernel\tname\tsource\tregs\tstack\tspill_st\tspill_ld\tsmem\tmode\tloop_insts\tprologue\tnext\tepilogue\treconverge\tsteps (per loop iteration)")
	fmt.Fprintln(w, "# block\tkernel\tid\tinsts\talu\timad (ALU-pipe and IMAD instructions of the block)")
	fmt.Fprintln(w, "# path\tkernel\tclass\tinsts\tmem\tblocks (comma-separated ids; '-' for none)")
	for _, k := range results {
		mode, loopInsts, steps := "-", 0, 1
		if k.Spec != nil {
			mode, loopInsts, steps = k.Spec.Mode, k.LoopInsts, k.Steps
		}
		fmt.Fprintf(w, "kernel\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", k.Name, k.Source, k.Res.Regs,
			k.Res.Stack, k.Res.SpillStores, k.Res.SpillLoads, k.Res.Smem, mode, loopInsts,
			k.Prologue.Insts, k.Next.Insts, k.Epilogue.Insts, b2i(k.Reconverge), steps)
		if k.Loop == nil {
			continue
		}
		used := map[int]bool{}
		for _, p := range k.Paths {
			for _, b := range p.Path.Blocks {
				used[b] = true
			}
		}
		ids := make([]int, 0, len(used))
		for b := range used {
			ids = append(ids, b)
		}
		sort.Ints(ids)
		for _, b := range ids {
			m := k.CFG.MixOf([]int{b})
			fmt.Fprintf(w, "block\t%s\t%d\t%d\t%d\t%d\n", k.Name, b, k.CFG.Blocks[b].Size(), m.ALU, m.IMAD)
		}
		for _, p := range k.Paths {
			blocks := "-"
			if len(p.Path.Blocks) > 0 {
				s := make([]string, len(p.Path.Blocks))
				for i, b := range p.Path.Blocks {
					s[i] = strconv.Itoa(b)
				}
				blocks = strings.Join(s, ",")
			}
			insts := strconv.Itoa(p.Path.Insts)
			if p.Absent {
				insts = "absent"
			}
			fmt.Fprintf(w, "path\t%s\t%s\t%s\t%s\t%s\n", k.Name, p.Class, insts, p.Mix.Mem(), blocks)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
