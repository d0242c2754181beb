//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job/jobtest"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
	"github.com/nqueens-gpu/nqueens-gpu/kernels/host"
)

// variants are the kernel choices of Options, by name.
var variants = []struct {
	name string
	algo nq.Algo
	opt  Options
}{
	{"symmetry", nq.Symmetry, Options{}},
	{"symmetry-dynamic", nq.Symmetry, Options{Tuning: Tuning{Dynamic: true}}},
	{"symmetry-smem", nq.Symmetry, Options{Tuning: Tuning{SharedStack: true}}},
	{"symmetry-smem-256", nq.Symmetry, Options{Tuning: Tuning{SharedStack: true, Threads: 256}}},
	{"symmetry-variant-dynamic", nq.Symmetry, Options{Tuning: Tuning{Variant: Dynamic, Threads: 64}}},
	{"carrychain", nq.CarryChain, Options{}},
	{"eightfold", nq.Eightfold, Options{}},
	{"eightfold-static", nq.Eightfold, Options{Tuning: Tuning{Variant: Static}}},
	{"eightfold-static-64", nq.Eightfold, Options{Tuning: Tuning{Variant: Static, Threads: 64}}},
	// Many launches per N, both slots in turn: at most 64 tasks a launch
	// (a whole batch at least).
	{"eightfold-launches", nq.Eightfold, Options{Batch: 16, Tuning: Tuning{MaxTasks: 64}}},
	{"symmetry-dynamic-launches", nq.Symmetry, Options{Batch: 16, Tuning: Tuning{Dynamic: true, MaxTasks: 64}}},
}

// testMaxN is the largest N of TestSolveMatchesCPU: NQUEENS_TEST_MAXN, or
// 14 (a simulated GPU takes minutes from N=11).
func testMaxN(t *testing.T) int {
	s := os.Getenv("NQUEENS_TEST_MAXN")
	if s == "" {
		return 14
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 14 {
		t.Fatalf("NQUEENS_TEST_MAXN=%q: want 1 to 14", s)
	}
	return n
}

// Every kernel counts N=4..14 (NQUEENS_TEST_MAXN; those split into
// tasks) exactly as the CPU
// path does (C2, C4, C8),
// at the default depth and at a small one, and its _nodes twin counts the
// same and as many nodes as the C search on the host.
func TestSolveMatchesCPU(t *testing.T) {
	b := openOrSkip(t)
	ctx := context.Background()
	maxN := testMaxN(t)
	for _, v := range variants {
		for n := 1; n <= maxN; n++ {
			for _, depth := range []int{0, 3} {
				if depth != 0 && (v.algo == nq.CarryChain || depth > n-1) {
					continue
				}
				if (nq.Spec{N: n, Algo: v.algo}).Whole() {
					continue // no task batches: the job counts it (internal/job)
				}
				t.Run(fmt.Sprintf("%s/N=%d/depth=%d", v.name, n, depth), func(t *testing.T) {
					want, err := jobtest.Partial(ctx, cpu.New(0), nq.Spec{N: n, Algo: v.algo, Depth: depth}, nil)
					if err != nil {
						t.Fatal(err)
					}
					opt := v.opt
					opt.Depth = depth
					got, err := b.SolvePartial(ctx, n, v.algo, opt)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Fatalf("GPU %v, CPU %v", got, want)
					}
					var nodes uint64
					opt.Nodes = &nodes
					got, err = b.SolvePartial(ctx, n, v.algo, opt)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Fatalf("GPU with nodes %v, CPU %v", got, want)
					}
					if n >= 5 {
						if hn := hostNodes(t, n, v.algo, depth); nodes != hn {
							t.Errorf("GPU counted %d nodes, the host C search %d", nodes, hn)
						}
					}
				})
			}
		}
	}
}

// hostNodes is the node count of the C search on the host for n.
func hostNodes(t *testing.T, n int, algo nq.Algo, depth int) uint64 {
	var c host.Counts
	var err error
	switch algo {
	case nq.Eightfold:
		if depth == 0 {
			depth = tasks.DefaultSplit(n)
		}
		// The tasks as produce sends them: the longest split.
		err = tasks.EnumerateEightfold(n, depth, 4096, func(e *tasks.Eightfold) error {
			c.Nodes += host.Eightfold(efSplit(e, n, depth, &tasks.Eightfold{})).Nodes
			return nil
		})
	case nq.CarryChain:
		err = tasks.EnumerateFrames(n, 4096, func(f *tasks.Frames) error { c.Add(host.Frames(f)); return nil })
	default:
		if depth == 0 {
			depth = tasks.DefaultDepth(n)
		}
		err = tasks.EnumerateBoards(n, tasks.Symmetry, depth, 4096, func(b *tasks.Boards) error { c.Add(host.Boards(b)); return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	return c.Nodes
}

// testSolve is a solve of tasks of N=n split at depth with kernel variant
// v of algo, threads per block, counting nodes.
func testSolve(t *testing.T, b *Backend, algo nq.Algo, v Variant, n, depth, threads int) *solve {
	t.Helper()
	kernel, err := lookupKernel(algo, v, true)
	if err != nil {
		t.Fatal(err)
	}
	spec := nq.Spec{N: n, Algo: algo, Depth: depth, Batch: 1}
	s := &solve{b: b, spec: spec, kernel: kernel, threads: threads, target: time.Second, nodes: true,
		perTask: taskBytes(kernel.layout, spec), start: time.Now()}
	if kernel.sharedBytes != nil {
		s.sharedBytes = kernel.sharedBytes(n, depth, threads)
	}
	return s
}

// runGroup runs g as the only launch group of s, through consume, and
// returns its partial and nodes.
func runGroup(t *testing.T, s *solve, g *group) (nq.Partial, uint64) {
	t.Helper()
	groups := make(chan *group, 1)
	groups <- g
	close(groups)
	var p nq.Partial
	s.capTasks = g.count
	s.done = func(_ []int, q nq.Partial) { p.Add(q) }
	c := consumer{solve: s}
	var cerr error
	err := s.b.ctx.Do(fmt.Sprintf("count a group of %d random tasks", g.count), func() {
		s.fn = s.b.ctx.Function(s.kernelName())
		s.shared = s.b.ctx.sharedShapeOf(s.fn)
		s.prepare()
		cerr = c.consume(context.Background(), groups)
	})
	if err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return p, c.nodes
}

// Random boards of N=22..28 (15 rows left each; half corner, half
// non-corner) count on every symmetry kernel exactly as on the host's C
// search and the CPU path: at these sizes an inexact undo of the shifts
// loses board columns (see nq_fsw), and no full count runs in a test.
func TestRandomBoardsLargeN(t *testing.T) {
	b := openOrSkip(t)
	for _, n := range []int{22, 23, 25, 28} {
		depth := n - 15
		bs := taskstest.RandomSymmetryBoards(n, depth, 2000, 11)
		want := host.Boards(bs)
		for _, v := range Variants(nq.Symmetry) {
			s := testSolve(t, b, nq.Symmetry, v, n, depth, 128)
			g := groupOf(&part{batches: []int{0}, count: bs.Len(), rows: bs.Rows, left: bs.Left, down: bs.Down, right: bs.Right})
			p, nodes := runGroup(t, s, g)
			got := host.Counts{C2: p[1], C4: p[2], C8: p[3], Nodes: nodes}
			if got != want {
				t.Errorf("N=%d depth=%d %s: GPU %+v, host %+v", n, depth, s.kernelName(), got, want)
			}
		}
	}
}

// Random eightfold tasks of N=22..28 count on every eightfold kernel
// exactly as on the host's C search, totals and nodes: the shifts of the
// table and the 64-bit diagonal words reach their widest there, and no
// full count runs in a test.
func TestRandomEightfoldLargeN(t *testing.T) {
	b := openOrSkip(t)
	for _, n := range []int{22, 23, 25, 28} {
		split := n - 14 // 11 rows or so left per task
		r, err := taskstest.RandomEightfold(n, split, 2000, 7)
		if err != nil {
			t.Fatal(err)
		}
		// As produce sends them: the stacks hold efFrames(n, split).
		e := efSplit(r, n, split, &tasks.Eightfold{})
		want := host.Eightfold(e)
		for _, v := range Variants(nq.Eightfold) {
			s := testSolve(t, b, nq.Eightfold, v, n, split, 64)
			g := groupOf(&part{batches: []int{0}, count: e.Len(), left64: e.Left, right64: e.Right, down: e.Down, meta: e.Meta})
			p, nodes := runGroup(t, s, g)
			if p != (nq.Partial{0, 0, 0, want.Total}) || nodes != want.Nodes {
				t.Errorf("N=%d %s: GPU %v and %d nodes, host total %d and %d nodes", n, v, p, nodes, want.Total, want.Nodes)
			}
		}
	}
}
