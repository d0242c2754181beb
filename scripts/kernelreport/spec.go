package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Marker names source lines: every line of function Func in file File
// (a base name) that matches Pattern. A block of SASS "has" the marker
// when one of its instructions comes from one of those lines, or was
// inlined from a call on one of them, and, if Ops is set, its opcode
// (without modifiers) matches Ops: the stores of a push, say, and not the
// address arithmetic that ptxas may hoist into a block every path runs.
// A marker without a File names every instruction whose opcode matches
// Ops, wherever it comes from.
type Marker struct {
	File, Func, Pattern string
	Ops                 string
}

// String renders the marker as file:function:/pattern/.
func (m Marker) String() string { return fmt.Sprintf("%s:%s:/%s/", m.File, m.Func, m.Pattern) }

// PathSpec is one kind of loop iteration (a path class of warpsim): the
// markers its blocks must include (Need) and, where the code allows a
// path without them, the markers it must avoid (Avoid). Exit selects a
// path that leaves the loop instead of returning to its header.
type PathSpec struct {
	Class string
	Need  []Marker
	Avoid []Marker
	Exit  bool
	// Optional: the loop may lack such a path (it runs in another copy
	// of the loop); it is then reported as absent instead of failing.
	Optional bool
	// Outer: the path leaves the step loop and comes back to its header
	// through the loop around it (ShortestCycle): a refill that runs
	// between two runs of the step loop.
	Outer bool
}

// KernelSpec says how to find the step loop of a kernel and its paths.
type KernelSpec struct {
	// Loop: the step loop is the smallest loop whose blocks include
	// every one of these markers.
	Loop []Marker
	// Step, if set, counts the steps one iteration of the step loop
	// takes (a loop unrolled by hand): the instructions of the loop that
	// come from it, one per step. Without it an iteration is one step.
	Step  *Marker
	Paths []PathSpec
	// Mode is how the kernel hands out tasks, for warpsim: "rounds" (a
	// warp runs 32 tasks to their end, then the next 32) or "refill" (a
	// lane takes its next task inside the step loop).
	Mode string
}

// The markers of the project's searches (kernels/nqsearch.h, boards.cu).
var (
	symNode     = Marker{"nqsearch.h", "nq_sym_step", `s->f \^= bit;`, ""}
	symPush     = Marker{"nqsearch.h", "nq_sym_step", `/\* push \*/|nq_fsw\(s->f`, "ST|STL|STS"}
	symPop      = Marker{"nqsearch.h", "nq_sym_step", `uint32_t bit = stk\[row \* st\];`, "LD|LDL|LDS"}
	symLast     = Marker{"nqsearch.h", "nq_sym_step", `nf &= ~ru->last;`, ""}
	symClassify = Marker{"nqsearch.h", "nq_classify", `k->c[248]`, ""}
	symStart    = Marker{"nqsearch.h", "nq_rules_init", `ru->corner = row0 == 1u;`, ""}
	// anyAtomic: the fetch of a task from the shared counter (the atomic's
	// own line is in the CUDA headers).
	anyAtomic = Marker{Ops: "ATOM|ATOMG|RED|REDG"}

	cfNode  = Marker{"nqsearch.h", "nq_carry_frame", `board\[row\] = bit;`, ""}
	cfPush  = Marker{"nqsearch.h", "nq_carry_frame", `fsw\[row\] = nq_fsw`, "ST|STL|STS"}
	cfPop   = Marker{"nqsearch.h", "nq_carry_frame", `f = nq_unpush\(fsw\[row\]`, "LD|LDL|LDS"}
	cfPopc  = Marker{"nqsearch.h", "nq_popc", `return __popc\(x\);`, "POPC"}
	cfOrbit = Marker{"nqsearch.h", "nq_orbit", `board\[n - 1 - r\] != 1u`, ""}

	efNode = Marker{"nqtotal.h", "nq_ef_child", `\*d = \*d \+ bit \+ sh;`, ""}
	// The memory operations are PTX in the GPU's nq_ef_next (its first
	// definition in nqtotal.h): the line of its asm statement. Each step
	// pops with one load: the step marker.
	efPush  = Marker{"nqtotal.h", "nq_ef_next", `asm volatile`, "ST|STS"}
	efPop   = Marker{"nqtotal.h", "nq_ef_next", `asm volatile`, "LD|LDS"}
	efStart = Marker{"nqtotal.h", "nq_ef_start", `const uint32_t f = nq_ef_free\(`, ""}
	efSched = Marker{"nqtotal.h", "nq_ef_start", `s->sched = `, ""}
	// anyVote: the warp vote that ends a run of nq_eightfold's step loop.
	anyVote = Marker{Ops: "VOTE|VOTEU"}

	pmNode = Marker{"peer.h", "pm_step", `e\.f \^= bit;`, ""}
	pmPush = Marker{"peer.h", "pm_step", `\*s->top = c;`, "ST|STS"}
	pmLeaf = Marker{"peer.h", "pm_step", `\*sum \+= stop`, ""}
)

func symSpec(end PathSpec, mode string) *KernelSpec {
	return &KernelSpec{
		Loop: []Marker{symPop, symPush},
		Paths: []PathSpec{
			{Class: "push", Need: []Marker{symNode, symPush}, Avoid: []Marker{symLast, symClassify}},
			{Class: "dead", Need: []Marker{symNode}, Avoid: []Marker{symPush, symLast, symClassify}},
			{Class: "leaf", Need: []Marker{symNode, symLast}, Avoid: []Marker{symPush, symClassify}},
			{Class: "sol", Need: []Marker{symNode, symClassify}, Avoid: []Marker{symPush}},
			{Class: "pop", Need: []Marker{symPop}, Avoid: []Marker{symNode}},
			end,
		},
		Mode: mode,
	}
}

// efSpec is the eightfold search (kernels/nqtotal.h): one predicated
// iteration per node whose push is a predicated store and whose pop a
// predicated load; the iteration that places a task's last node also ends
// it (end). loop names the step loop.
func efSpec(loop []Marker, end PathSpec, mode string) *KernelSpec {
	return &KernelSpec{
		Loop: loop,
		Step: &efPop, // each step has one (predicated) load
		Paths: []PathSpec{
			{Class: "push", Need: []Marker{efNode, efPush}},
			{Class: "dead", Need: []Marker{efNode}, Avoid: []Marker{efPush, efPop}},
			{Class: "pop", Need: []Marker{efNode, efPop}},
			end,
		},
		Mode: mode,
	}
}

// Specs are the kernels kernel-report analyses, by entry name; a _nodes
// twin (kernels/nodes.cu) uses the spec of its base name.
var Specs = map[string]*KernelSpec{
	// One board per thread, the step loop ends when the board is done.
	"nq_symmetry_boards": symSpec(PathSpec{Class: "end", Exit: true}, "rounds"),
	// The board's end and the next board's start are one iteration.
	"nq_symmetry_boards_dyn":  symSpec(PathSpec{Class: "end", Need: []Marker{anyAtomic, symStart}}, "refill"),
	"nq_symmetry_boards_smem": symSpec(PathSpec{Class: "end", Need: []Marker{anyAtomic, symStart}}, "refill"),
	// Eightfold: the warp runs the step loop, several steps an iteration,
	// until one of its threads has finished its task (a vote), then the
	// threads without a task take one from the counter and the warp runs
	// the loop again; the step loop is the one with the vote (a second
	// copy runs the warp's last tasks). The refill passes once through
	// nq_ef_start (no loop). The static twin runs one task per thread at a
	// time (grid-stride).
	"nq_eightfold": efSpec([]Marker{efNode, efPop, anyVote},
		PathSpec{Class: "end", Need: []Marker{efNode, anyAtomic, efStart, efSched}, Outer: true}, "refill"),
	"nq_eightfold_static": efSpec([]Marker{efNode, efPop}, PathSpec{Class: "end", Need: []Marker{efNode}, Exit: true}, "rounds"),
	"nq_carry_frames": {
		Loop: []Marker{cfPop, cfPush},
		Paths: []PathSpec{
			{Class: "push", Need: []Marker{cfNode, cfPush}, Avoid: []Marker{cfOrbit, cfPopc}},
			{Class: "dead", Need: []Marker{cfNode}, Avoid: []Marker{cfPush, cfOrbit, cfPopc}},
			// ptxas unswitches the loop on sym180: the orbit test lives in
			// a second copy of the loop that only sym180 frames run.
			{Class: "orbit", Need: []Marker{cfNode, cfOrbit}, Avoid: []Marker{cfPush}, Optional: true},
			{Class: "popc", Need: []Marker{cfPopc, cfPop}, Avoid: []Marker{cfNode}},
			{Class: "pop", Need: []Marker{cfPop}, Avoid: []Marker{cfNode, cfPopc}},
			{Class: "end", Exit: true},
		},
		Mode: "rounds",
	},
	// The peer model (scripts/warpsim/peer.cu): one path, the push is a
	// predicated store; the loop test is at the bottom.
	"pm_peer": {
		Loop: []Marker{pmNode},
		Paths: []PathSpec{
			{Class: "push", Need: []Marker{pmNode, pmPush}},
			{Class: "dead", Need: []Marker{pmNode}},
			{Class: "leaf", Need: []Marker{pmNode, pmLeaf}},
			// No "end": the loop test sits at the bottom of the last
			// iteration (the loop is entered only with a non-empty stack).
		},
		Mode: "rounds",
	},
}

// SpecFor returns the spec of a kernel entry, or nil.
func SpecFor(name string) *KernelSpec {
	if s, ok := Specs[name]; ok {
		return s
	}
	return Specs[strings.TrimSuffix(name, "_nodes")]
}

// Sources finds marker lines in source files under dirs.
type Sources struct {
	Dirs  []string
	lines map[string][]string // base name -> lines
}

func (s *Sources) file(name string) ([]string, error) {
	if l, ok := s.lines[name]; ok {
		return l, nil
	}
	for _, d := range s.Dirs {
		f, err := os.Open(filepath.Join(d, name))
		if err != nil {
			continue
		}
		var lines []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if s.lines == nil {
			s.lines = map[string][]string{}
		}
		s.lines[name] = lines
		return lines, nil
	}
	return nil, fmt.Errorf("source %s not found in %v", name, s.Dirs)
}

// Lines returns the 1-based line numbers that m names. The function's
// body runs from its definition (a line starting in column 0 that names
// it followed by '(' or ')') to the next line that is exactly "}".
func (s *Sources) Lines(m Marker) (map[int]bool, error) {
	lines, err := s.file(m.File)
	if err != nil {
		return nil, err
	}
	def := regexp.MustCompile(`^[A-Za-z_].*\b` + regexp.QuoteMeta(m.Func) + `\b\s*[()]`)
	re, err := regexp.Compile(m.Pattern)
	if err != nil {
		return nil, fmt.Errorf("marker %v: %w", m, err)
	}
	start := -1
	for i, l := range lines {
		if def.MatchString(l) && !strings.HasSuffix(strings.TrimSpace(l), ";") {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("marker %v: no definition of %s in %s", m, m.Func, m.File)
	}
	out := map[int]bool{}
	for i := start; i < len(lines); i++ {
		if re.MatchString(lines[i]) {
			out[i+1] = true
		}
		if lines[i] == "}" {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("marker %v: no matching line", m)
	}
	return out, nil
}

// control are instructions that carry the line of whatever statement
// ptxas placed them for (the convergence barrier at a join, a jump), not
// of the work of that line: they never make a block hold a marker.
var control = map[string]bool{"BSSY": true, "BSYNC": true, "BRA": true, "WARPSYNC": true, "NOP": true, "YIELD": true}

// CountInsts returns how many instructions of the blocks of l come from a
// line of m (with its opcodes, if it names them).
func (s *Sources) CountInsts(g *CFG, l *Loop, m Marker) (int, error) {
	lines, err := s.Lines(m)
	if err != nil {
		return 0, err
	}
	var ops *regexp.Regexp
	if m.Ops != "" {
		if ops, err = regexp.Compile(`^(` + m.Ops + `)$`); err != nil {
			return 0, fmt.Errorf("marker %v: %w", m, err)
		}
	}
	n := 0
	for b := range l.Blocks {
		bl := g.Blocks[b]
		for i := bl.Start; i < bl.End; i++ {
			in := &g.Fn.Insts[i]
			if (ops != nil && !ops.MatchString(in.Base())) || control[in.Base()] {
				continue
			}
			for _, loc := range in.Locs {
				if loc.File == m.File && lines[loc.Line] {
					n++
					break
				}
			}
		}
	}
	return n, nil
}

// MarkBlocks returns, for each block of g, whether one of its
// instructions comes from a line of m.
func (s *Sources) MarkBlocks(g *CFG, m Marker) ([]bool, error) {
	var lines map[int]bool
	if m.File != "" {
		var err error
		if lines, err = s.Lines(m); err != nil {
			return nil, err
		}
	} else if m.Ops == "" {
		return nil, fmt.Errorf("marker %v: neither a file nor opcodes", m)
	}
	var ops *regexp.Regexp
	if m.Ops != "" {
		var err error
		if ops, err = regexp.Compile(`^(` + m.Ops + `)$`); err != nil {
			return nil, fmt.Errorf("marker %v: %w", m, err)
		}
	}
	out := make([]bool, len(g.Blocks))
	any := false
	for _, b := range g.Blocks {
		for i := b.Start; i < b.End; i++ {
			in := &g.Fn.Insts[i]
			if (ops != nil && !ops.MatchString(in.Base())) || control[in.Base()] {
				continue
			}
			if m.File == "" {
				out[b.ID] = true
				any = true
				continue
			}
			for _, loc := range in.Locs {
				if loc.File == m.File && lines[loc.Line] {
					out[b.ID] = true
					any = true
				}
			}
		}
	}
	if !any {
		return nil, fmt.Errorf("%s: no instruction from marker %v", g.Fn.Name, m)
	}
	return out, nil
}
