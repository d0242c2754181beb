package main

import (
	"bufio"
	"container/heap"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Inst is one SASS instruction with the source line it came from.
type Inst struct {
	Addr   int
	Text   string // the instruction without its address and the trailing ';'
	Pred   string // "@P0", "@!P1", ... or ""
	Op     string // the opcode with its modifiers, e.g. "ISETP.NE.AND"
	Target string // the branch target label, for BRA
	// Locs: the source line it came from (base name of the file), then
	// the calls that line was inlined at, innermost first.
	Locs []Loc
}

// Loc is a source line.
type Loc struct {
	File string
	Line int
}

// Base is the opcode without modifiers ("ISETP").
func (in *Inst) Base() string {
	if i := strings.IndexByte(in.Op, '.'); i >= 0 {
		return in.Op[:i]
	}
	return in.Op
}

// Function is the SASS of one kernel entry.
type Function struct {
	Name   string
	Insts  []Inst
	Labels map[string]int // label -> index into Insts
}

var (
	reFunc   = regexp.MustCompile(`^\.text\.([A-Za-z0-9_$]+):`)
	reLabel  = regexp.MustCompile(`^(\.L_x_[0-9]+):`)
	reLine   = regexp.MustCompile(`^\s*//## File "([^"]+)", line ([0-9]+)(?: inlined at "([^"]+)", line ([0-9]+))?`)
	reInst   = regexp.MustCompile(`^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*$`)
	reTarget = regexp.MustCompile("`\\((\\.L_x_[0-9]+)\\)")
)

// ParseSASS reads the output of `nvdisasm -gi -c` (or -g) and returns its
// functions in order.
func ParseSASS(r io.Reader) ([]*Function, error) {
	var fns []*Function
	var cur *Function
	var locs []Loc
	fresh := true // the next //## line starts a new chain
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		t := sc.Text()
		if m := reFunc.FindStringSubmatch(t); m != nil {
			cur = &Function{Name: m[1], Labels: map[string]int{}}
			fns = append(fns, cur)
			locs, fresh = nil, true
			continue
		}
		if cur == nil {
			continue
		}
		if m := reLabel.FindStringSubmatch(t); m != nil {
			cur.Labels[m[1]] = len(cur.Insts)
			continue
		}
		if m := reLine.FindStringSubmatch(t); m != nil {
			if fresh {
				locs, fresh = nil, false
			}
			line, _ := strconv.Atoi(m[2])
			if len(locs) == 0 {
				locs = append(locs, Loc{filepath.Base(m[1]), line})
			}
			if m[3] != "" {
				at, _ := strconv.Atoi(m[4])
				locs = append(locs, Loc{filepath.Base(m[3]), at})
			}
			continue
		}
		m := reInst.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		addr, err := strconv.ParseInt(m[1], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("sass: address %q: %w", m[1], err)
		}
		fresh = true
		in := Inst{Addr: int(addr), Text: strings.TrimSuffix(m[2], ";"), Locs: locs}
		fields := strings.Fields(in.Text)
		if len(fields) > 0 && strings.HasPrefix(fields[0], "@") {
			in.Pred = fields[0]
			fields = fields[1:]
		}
		if len(fields) > 0 {
			in.Op = fields[0]
		}
		if tm := reTarget.FindStringSubmatch(in.Text); tm != nil {
			in.Target = tm[1]
		}
		cur.Insts = append(cur.Insts, in)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sass: %w", err)
	}
	return fns, nil
}

// Block is a basic block: instructions [Start, End) of its function.
type Block struct {
	ID         int
	Start, End int
	Succ       []int // successor block IDs
	Exit       bool  // the block can end the thread (EXIT)
}

// Size is the number of instructions of the block.
func (b *Block) Size() int { return b.End - b.Start }

// CFG is the control-flow graph of one function.
type CFG struct {
	Fn      *Function
	Blocks  []*Block
	blockOf []int // instruction index -> block ID
	idom    []int
	Loops   []*Loop
}

// Loop is a natural loop: its header and the blocks that reach a back
// edge to it without passing through it.
type Loop struct {
	Header  int
	Latches []int        // blocks with a back edge to Header
	Blocks  map[int]bool // includes Header
}

// Contains reports whether block b is in the loop.
func (l *Loop) Contains(b int) bool { return l.Blocks[b] }

func isBranch(in *Inst) bool {
	b := in.Base()
	return b == "BRA" || b == "BRX" || b == "JMP" || b == "JMX"
}

func endsFlow(in *Inst) bool {
	b := in.Base()
	return isBranch(in) || b == "EXIT" || b == "RET"
}

// BuildCFG splits fn into basic blocks and links them.
func BuildCFG(fn *Function) (*CFG, error) {
	n := len(fn.Insts)
	if n == 0 {
		return nil, fmt.Errorf("sass: %s has no instructions", fn.Name)
	}
	leader := make([]bool, n+1)
	leader[0] = true
	for _, at := range fn.Labels {
		if at < n {
			leader[at] = true
		}
	}
	for i := range fn.Insts {
		if endsFlow(&fn.Insts[i]) {
			leader[i+1] = true
		}
	}
	g := &CFG{Fn: fn, blockOf: make([]int, n)}
	for i := 0; i < n; {
		j := i + 1
		for j < n && !leader[j] {
			j++
		}
		b := &Block{ID: len(g.Blocks), Start: i, End: j}
		for k := i; k < j; k++ {
			g.blockOf[k] = b.ID
		}
		g.Blocks = append(g.Blocks, b)
		i = j
	}
	for _, b := range g.Blocks {
		last := &fn.Insts[b.End-1]
		fall := b.End < n
		switch base := last.Base(); {
		case base == "EXIT" || base == "RET":
			b.Exit = true
			if last.Pred == "" {
				fall = false
			}
		case base == "BRX" || base == "JMX":
			return nil, fmt.Errorf("sass: %s: indirect branch at %#x", fn.Name, last.Addr)
		case isBranch(last):
			at, ok := fn.Labels[last.Target]
			if !ok {
				return nil, fmt.Errorf("sass: %s: branch at %#x to unknown label %q", fn.Name, last.Addr, last.Target)
			}
			if at < n {
				b.Succ = append(b.Succ, g.blockOf[at])
			}
			// BRA.DIV branches only when the warp has diverged.
			if last.Pred == "" && !strings.HasPrefix(last.Op, "BRA.DIV") {
				fall = false
			}
		}
		if fall {
			b.Succ = append(b.Succ, b.ID+1)
		}
	}
	g.dominators()
	g.findLoops()
	return g, nil
}

// reachable returns the blocks reachable from block 0 in reverse postorder.
func (g *CFG) reachable() []int {
	seen := make([]bool, len(g.Blocks))
	var post []int
	var visit func(int)
	visit = func(b int) {
		seen[b] = true
		for _, s := range g.Blocks[b].Succ {
			if !seen[s] {
				visit(s)
			}
		}
		post = append(post, b)
	}
	visit(0)
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

// dominators computes the immediate dominators (Cooper, Harvey, Kennedy).
func (g *CFG) dominators() {
	rpo := g.reachable()
	order := make([]int, len(g.Blocks))
	for i := range order {
		order[i] = -1
	}
	for i, b := range rpo {
		order[b] = i
	}
	preds := make([][]int, len(g.Blocks))
	for _, b := range rpo {
		for _, s := range g.Blocks[b].Succ {
			preds[s] = append(preds[s], b)
		}
	}
	idom := make([]int, len(g.Blocks))
	for i := range idom {
		idom[i] = -1
	}
	idom[0] = 0
	intersect := func(a, b int) int {
		for a != b {
			for order[a] > order[b] {
				a = idom[a]
			}
			for order[b] > order[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range rpo[1:] {
			nd := -1
			for _, p := range preds[b] {
				if idom[p] < 0 {
					continue
				}
				if nd < 0 {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if nd >= 0 && idom[b] != nd {
				idom[b] = nd
				changed = true
			}
		}
	}
	g.idom = idom
}

// Dominates reports whether block a dominates block b.
func (g *CFG) Dominates(a, b int) bool {
	if g.idom[b] < 0 {
		return false
	}
	for {
		if a == b {
			return true
		}
		if b == 0 {
			return false
		}
		b = g.idom[b]
	}
}

func (g *CFG) findLoops() {
	byHeader := map[int]*Loop{}
	preds := make([][]int, len(g.Blocks))
	for _, b := range g.Blocks {
		for _, s := range b.Succ {
			preds[s] = append(preds[s], b.ID)
		}
	}
	for _, b := range g.Blocks {
		for _, h := range b.Succ {
			if g.idom[b.ID] < 0 || !g.Dominates(h, b.ID) {
				continue
			}
			l := byHeader[h]
			if l == nil {
				l = &Loop{Header: h, Blocks: map[int]bool{h: true}}
				byHeader[h] = l
			}
			l.Latches = append(l.Latches, b.ID)
			stack := []int{b.ID}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if l.Blocks[x] {
					continue
				}
				l.Blocks[x] = true
				stack = append(stack, preds[x]...)
			}
		}
	}
	for _, l := range byHeader {
		g.Loops = append(g.Loops, l)
	}
	sort.Slice(g.Loops, func(i, j int) bool { return len(g.Loops[i].Blocks) < len(g.Loops[j].Blocks) })
}

// Enclosing returns the smallest loop of g that holds every block of l
// and more, or nil.
func (g *CFG) Enclosing(l *Loop) *Loop {
	for _, o := range g.Loops { // smallest first
		if len(o.Blocks) <= len(l.Blocks) {
			continue
		}
		all := true
		for b := range l.Blocks {
			all = all && o.Blocks[b]
		}
		if all {
			return o
		}
	}
	return nil
}

// isBackEdge reports whether the edge a->b closes a loop (b dominates a).
func (g *CFG) isBackEdge(a, b int) bool { return g.idom[a] >= 0 && g.Dominates(b, a) }

// Path is a sequence of blocks with its instruction count.
type Path struct {
	Blocks []int
	Insts  int
}

// pathState is a node of the path search: a block and the markers seen.
type pathState struct {
	block, mask int
}

type pqItem struct {
	st   pathState
	cost int
}

// pq is a min-heap of path states by cost (container/heap).
type pq []pqItem

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (q pq) Len() int           { return len(q) }
func (q pq) Less(i, j int) bool { return q[i].cost < q[j].cost }
func (q pq) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)        { *q = append(*q, x.(pqItem)) }
func (q *pq) Pop() any          { old := *q; x := old[len(old)-1]; *q = old[:len(old)-1]; return x }

// blockMask returns the markers (bit i: marks[i]) that block b holds.
func (g *CFG) blockMask(b int, marks [][]bool) int {
	m := 0
	for i, mk := range marks {
		if mk[b] {
			m |= 1 << i
		}
	}
	return m
}

// ShortestIteration returns the cheapest path through loop l that starts at
// its header and either takes a back edge to the header (exit false) or
// leaves the loop (exit true), passing through at least one block of each
// marker set (marks[i][block]). Back edges of loops nested in l are not
// followed: an inner loop counts as one pass through its blocks.
func (g *CFG) ShortestIteration(l *Loop, marks [][]bool, exit bool) (Path, bool) {
	return g.shortestIteration(l, marks, exit, -1)
}

// ShortestCycle is ShortestIteration through the blocks of outer, a loop
// that holds the step loop l: the cheapest path from l's header back to it
// that holds every marker, leaving l and passing once through outer's
// header (the way back into l after, say, a refill between two runs of
// the step loop). Loops nested in outer but l count one pass each.
func (g *CFG) ShortestCycle(l, outer *Loop, marks [][]bool) (Path, bool) {
	return g.shortestIteration(&Loop{Header: l.Header, Latches: l.Latches, Blocks: outer.Blocks}, marks, false, outer.Header)
}

// shortestIteration is ShortestIteration; edges to via (-1: none) are
// taken even where they close a loop.
func (g *CFG) shortestIteration(l *Loop, marks [][]bool, exit bool, via int) (Path, bool) {
	full := 1<<len(marks) - 1
	start := pathState{l.Header, g.blockMask(l.Header, marks)}
	dist := map[pathState]int{start: g.Blocks[l.Header].Size()}
	prev := map[pathState]pathState{}
	q := &pq{{start, dist[start]}}
	for q.Len() > 0 {
		it := heap.Pop(q).(pqItem)
		st := it.st
		if it.cost > dist[st] {
			continue
		}
		for _, s := range g.Blocks[st.block].Succ {
			inLoop := l.Contains(s)
			if s == l.Header || !inLoop {
				// The iteration ends here: back to the header, or out.
				if (s == l.Header) == !exit && st.mask == full {
					return g.unwind(prev, start, st, it.cost), true
				}
				continue
			}
			if s != via && g.isBackEdge(st.block, s) {
				continue // an inner loop's back edge
			}
			ns := pathState{s, st.mask | g.blockMask(s, marks)}
			c := it.cost + g.Blocks[s].Size()
			if d, ok := dist[ns]; !ok || c < d {
				dist[ns] = c
				prev[ns] = st
				heap.Push(q, pqItem{ns, c})
			}
		}
	}
	return Path{}, false
}

func (g *CFG) unwind(prev map[pathState]pathState, start, end pathState, cost int) Path {
	var blocks []int
	for st := end; ; st = prev[st] {
		blocks = append(blocks, st.block)
		if st == start {
			break
		}
	}
	for i, j := 0, len(blocks)-1; i < j; i, j = i+1, j-1 {
		blocks[i], blocks[j] = blocks[j], blocks[i]
	}
	return Path{Blocks: blocks, Insts: cost}
}

// ShortestBetween returns the cheapest path from any block of from to any
// block for which to returns true, not entering the blocks of avoid
// (a block of from or a goal may be in avoid). The costs count every
// block of the path, the first and the last included.
func (g *CFG) ShortestBetween(from []int, to func(int) bool, avoid map[int]bool) (Path, bool) {
	dist := map[int]int{}
	prev := map[int]int{}
	q := &pq{}
	for _, b := range from {
		dist[b] = g.Blocks[b].Size()
		prev[b] = -1
		heap.Push(q, pqItem{pathState{b, 0}, dist[b]})
	}
	for q.Len() > 0 {
		it := heap.Pop(q).(pqItem)
		b := it.st.block
		if it.cost > dist[b] {
			continue
		}
		if to(b) {
			var blocks []int
			for x := b; x >= 0; x = prev[x] {
				blocks = append(blocks, x)
			}
			for i, j := 0, len(blocks)-1; i < j; i, j = i+1, j-1 {
				blocks[i], blocks[j] = blocks[j], blocks[i]
			}
			return Path{Blocks: blocks, Insts: it.cost}, true
		}
		for _, s := range g.Blocks[b].Succ {
			if avoid[s] && !to(s) {
				continue
			}
			c := it.cost + g.Blocks[s].Size()
			if d, ok := dist[s]; !ok || c < d {
				dist[s] = c
				prev[s] = b
				heap.Push(q, pqItem{pathState{s, 0}, c})
			}
		}
	}
	return Path{}, false
}

// ExitTargets returns the blocks outside l that an edge from l leads to.
func (g *CFG) ExitTargets(l *Loop) []int {
	seen := map[int]bool{}
	var out []int
	for b := range l.Blocks {
		for _, s := range g.Blocks[b].Succ {
			if !l.Contains(s) && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Ints(out)
	return out
}

// BottomTested reports whether every edge leaving l leaves from a latch,
// so that the last iteration of a run of the loop is an ordinary one that
// falls out instead of looping back (no extra iteration to end it).
func (g *CFG) BottomTested(l *Loop) bool {
	latch := map[int]bool{}
	for _, b := range l.Latches {
		latch[b] = true
	}
	for b := range l.Blocks {
		for _, s := range g.Blocks[b].Succ {
			if !l.Contains(s) && !latch[b] {
				return false
			}
		}
	}
	return true
}

// Reconverges reports whether the warp waits for all its threads where l
// ends: every block outside l that an edge from l leads to starts with
// BSYNC (a convergence barrier), directly or after unconditional jumps.
func (g *CFG) Reconverges(l *Loop) bool {
	targets := g.ExitTargets(l)
	if len(targets) == 0 {
		return false
	}
	for _, t := range targets {
		b := g.Blocks[t]
		for b.Size() == 1 && g.Fn.Insts[b.Start].Base() == "BRA" && g.Fn.Insts[b.Start].Pred == "" && len(b.Succ) == 1 {
			b = g.Blocks[b.Succ[0]]
		}
		if g.Fn.Insts[b.Start].Base() != "BSYNC" {
			return false
		}
	}
	return true
}

// Mix counts the instructions of a path by kind: memory operations, and
// the rest by the pipe that runs them on Volta to Hopper: IMAD on the FMA
// pipe and other integer and logic operations on the ALU pipe (16 lanes
// per sub-partition each, so one warp instruction holds its pipe for two
// cycles), FP32 arithmetic (FP32: the FMA pipes, 32 lanes on Ampere and
// Hopper), and Other (branches, barriers, uniform and constant loads,
// conversions, ...).
type Mix struct {
	LDL, STL, LDS, STS, LDG, STG, ATOM int
	IMAD, ALU, FP32, Other             int
}

// alu are the integer and logic opcodes of the ALU pipe.
var alu = map[string]bool{"IADD3": true, "LOP3": true, "ISETP": true, "SHF": true, "SEL": true, "LEA": true,
	"PLOP3": true, "IABS": true, "IMNMX": true, "POPC": true, "FLO": true, "BREV": true, "MOV": true,
	"PRMT": true, "SHL": true, "SHR": true, "LOP": true, "P2R": true, "R2P": true, "VIMNMX": true}

// MixOf returns the instruction mix of the blocks.
func (g *CFG) MixOf(blocks []int) Mix {
	var m Mix
	for _, b := range blocks {
		bl := g.Blocks[b]
		for i := bl.Start; i < bl.End; i++ {
			switch g.Fn.Insts[i].Base() {
			case "LDL":
				m.LDL++
			case "STL":
				m.STL++
			case "LDS":
				m.LDS++
			case "STS":
				m.STS++
			case "LDG":
				m.LDG++
			case "STG":
				m.STG++
			case "ATOM", "ATOMG", "ATOMS", "RED", "REDG":
				m.ATOM++
			case "IMAD":
				m.IMAD++
			case "FFMA", "FADD", "FMUL":
				m.FP32++
			default:
				if alu[g.Fn.Insts[i].Base()] {
					m.ALU++
				} else {
					m.Other++
				}
			}
		}
	}
	return m
}

// Mem renders the memory operations of a mix, e.g. "LDS 1, STS 2".
func (m Mix) Mem() string {
	var parts []string
	for _, p := range []struct {
		name string
		n    int
	}{{"LDL", m.LDL}, {"STL", m.STL}, {"LDS", m.LDS}, {"STS", m.STS}, {"LDG", m.LDG}, {"STG", m.STG}, {"ATOM", m.ATOM}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", p.name, p.n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
