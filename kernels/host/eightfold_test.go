package host_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
	"github.com/nqueens-gpu/nqueens-gpu/kernels/host"
)

// oneTask returns task i of e as a batch of its own.
func oneTask(e *tasks.Eightfold, i int) *tasks.Eightfold {
	return &tasks.Eightfold{N: e.N, Split: e.Split, Cols: e.Task(i),
		Left: e.Left[i : i+1], Right: e.Right[i : i+1], Down: e.Down[i : i+1], Meta: e.Meta[i : i+1]}
}

// Task by task, over the real task lists of N=5..15, the C search gives
// the Go search's completions (times the weight) and nodes.
func TestEightfoldMatchesGo(t *testing.T) {
	for n := 5; n <= 15; n++ {
		if n > 13 && testing.Short() {
			break
		}
		splits := []int{tasks.DefaultSplit(n)}
		if n <= 11 {
			splits = append(splits, 0, n)
		}
		for _, split := range splits {
			var sum host.EightfoldCounts
			nonzero := 0
			err := tasks.EnumerateEightfold(n, split, 1000, func(e *tasks.Eightfold) error {
				for i := 0; i < e.Len(); i++ {
					got := host.Eightfold(oneTask(e, i))
					c, nodes := cpu.EightfoldTask(e, i)
					if got.Total != e.Weight(i)*c || got.Nodes != nodes {
						return fmt.Errorf("N=%d split %d task %d %v (meta %x): C %d total, %d nodes; Go %d × %d, %d nodes",
							n, split, i, e.Task(i), e.Meta[i], got.Total, got.Nodes, e.Weight(i), c, nodes)
					}
					if c > 0 {
						nonzero++
					}
					sum.Total += got.Total
					sum.Nodes += got.Nodes
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := known.Lookup(n); sum.Total != want.Total || nonzero == 0 {
				t.Errorf("N=%d split %d: Σ weight × completions %d (%d tasks with one), published %d",
					n, split, sum.Total, nonzero, want.Total)
			}
		}
	}
}

// Whole batches of the C search add up to the published Total, N=5..16.
func TestEightfoldTotal(t *testing.T) {
	for n := 5; n <= 16; n++ {
		if n > 14 && testing.Short() {
			break
		}
		var got host.EightfoldCounts
		err := tasks.EnumerateEightfold(n, tasks.DefaultSplit(n), 4096, func(e *tasks.Eightfold) error {
			c := host.Eightfold(e)
			got.Total += c.Total
			got.Nodes += c.Nodes
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := known.Lookup(n); got.Total != want.Total {
			t.Errorf("N=%d: %d, published %d", n, got.Total, want.Total)
		}
	}
}

// The dynamic kernel's loop, with 1, 7 and 32 interleaved lanes sharing
// one counter and the kernel's shared-memory layout, gives exactly the
// static search's total and nodes.
func TestEightfoldLanes(t *testing.T) {
	for n := 5; n <= 13; n++ {
		for _, split := range []int{0, tasks.DefaultSplit(n)} {
			var static host.EightfoldCounts
			lanes := map[int]*host.EightfoldCounts{1: {}, 7: {}, 32: {}}
			err := tasks.EnumerateEightfold(n, split, 300, func(e *tasks.Eightfold) error {
				c := host.Eightfold(e)
				static.Total += c.Total
				static.Nodes += c.Nodes
				for k, sum := range lanes {
					c := host.EightfoldLanes(e, k)
					sum.Total += c.Total
					sum.Nodes += c.Nodes
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for k, sum := range lanes {
				if *sum != static {
					t.Errorf("N=%d split %d: %d lanes %+v, static %+v", n, split, k, *sum, static)
				}
			}
			if want, _ := known.Lookup(n); static.Total != want.Total {
				t.Errorf("N=%d split %d: %d, published %d", n, split, static.Total, want.Total)
			}
		}
	}
}

// Steps after a task's end, as many as the GPU's step loop takes before
// its warp looks (EightfoldAfter) and more, change no count, say the task is
// over and keep the frame pointer inside the thread's frames; task by
// task over N=5..13 and random tasks of N=22..28.
func TestEightfoldStepsAfterEnd(t *testing.T) {
	check := func(e *tasks.Eightfold) {
		t.Helper()
		for i := 0; i < e.Len(); i++ {
			want := host.Eightfold(oneTask(e, i))
			for extra := 0; extra <= 3*(host.EightfoldAfter+1); extra++ {
				got, running, inside := host.EightfoldAfterEnd(e, i, extra)
				if got != want || running != 0 || !inside {
					t.Fatalf("N=%d task %v, %d steps after the end: %+v (running %d, inside %v), want %+v",
						e.N, e.Task(i), extra, got, running, inside, want)
				}
			}
		}
	}
	for n := 5; n <= 13; n++ {
		err := tasks.EnumerateEightfold(n, tasks.DefaultSplit(n), 1000, func(e *tasks.Eightfold) error {
			check(e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{22, 28} {
		e, err := taskstest.RandomEightfold(n, n-17, 6, 11)
		if err != nil {
			t.Fatal(err)
		}
		check(e)
	}
}

// Random tasks of N=22..28 with 12 to 14 levels left agree with the plain
// reference (taskstest.SearchEightfold), task by task, in C and in Go, and
// all at once through 32 interleaved lanes.
func TestEightfoldLargeN(t *testing.T) {
	if testing.Short() {
		t.Skip("large-N tasks: not in -short")
	}
	for _, n := range []int{22, 23, 25, 28} {
		e, err := taskstest.RandomEightfold(n, n-17, 6, 11)
		if err != nil {
			t.Fatal(err)
		}
		var all host.EightfoldCounts
		nonzero := 0
		for i := 0; i < e.Len(); i++ {
			wc, wn := taskstest.SearchEightfold(e.Task(i))
			got := host.Eightfold(oneTask(e, i))
			gc, gn := cpu.EightfoldTask(e, i)
			if got.Total != e.Weight(i)*wc || got.Nodes != wn || gc != wc || gn != wn {
				t.Fatalf("N=%d task %v: C %d total, %d nodes; Go %d, %d; reference %d × %d, %d",
					n, e.Task(i), got.Total, got.Nodes, gc, gn, e.Weight(i), wc, wn)
			}
			all.Total += got.Total
			all.Nodes += got.Nodes
			if wc > 0 {
				nonzero++
			}
		}
		if nonzero < 2 {
			t.Errorf("N=%d: %d of %d tasks have a completion", n, nonzero, e.Len())
		}
		if lanes := host.EightfoldLanes(e, 32); lanes != all {
			t.Errorf("N=%d: 32 lanes %+v, one by one %+v", n, lanes, all)
		}
	}
}

// What the step derives from the words nq_ef_start leaves holds, for every
// level of a task up to the deepest of N=28, the columns its placed
// queens' diagonals attack on the next level (column c in bit c+4) and
// the rows to it (bits 0..4); on the last level 0 rows, which the step
// counts as a completion.
func TestEightfoldTable(t *testing.T) {
	for _, c := range []struct{ n, split int }{{9, 0}, {16, 2}, {23, 1}, {28, 0}, {28, 3}} {
		e, err := taskstest.RandomEightfold(c.n, c.split, 40, 5)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < e.Len(); i++ {
			cols := e.Task(i)
			var search []int
			for r, q := range cols {
				if q == tasks.NoQueen {
					search = append(search, r)
				}
			}
			tab := host.EightfoldTable(e, i)
			if len(tab) != len(search) {
				t.Fatalf("N=%d task %v: %d table words for %d levels", c.n, cols, len(tab), len(search))
			}
			if w := tab[len(tab)-1]; w != 0 {
				t.Fatalf("N=%d task %v: word of the last level %#x, want 0", c.n, cols, w)
			}
			open := ^e.Down[i] // columns no placed queen takes
			for j, w := range tab[:len(tab)-1] {
				row := search[j+1]
				want := diagonals(cols, row) & open
				if got := w >> 4 & 0x07fffffe & open; got != want&^1 {
					t.Fatalf("N=%d task %v level %d (row %d): attacks %b, want %b", c.n, cols, j+1, row, got, want)
				}
				if s := int(w & 0x1f); s != row-search[j] {
					t.Fatalf("N=%d task %v level %d: shift %d, rows %d to %d", c.n, cols, j, s, search[j], row)
				}
			}
		}
	}
}

// diagonals returns the columns of row that a placed queen's diagonal
// crosses.
func diagonals(cols []uint8, row int) uint32 {
	var a uint32
	for r, q := range cols {
		if q == tasks.NoQueen {
			continue
		}
		k := row - r
		if k < 0 {
			k = -k
		}
		if c := int(q) + k; c < len(cols) {
			a |= 1 << c
		}
		if c := int(q) - k; c >= 0 {
			a |= 1 << c
		}
	}
	return a
}

func TestEightfoldEmpty(t *testing.T) {
	e := &tasks.Eightfold{N: 10, Split: 1}
	if c := host.Eightfold(e); c != (host.EightfoldCounts{}) {
		t.Errorf("empty batch: %+v", c)
	}
	if c := host.EightfoldLanes(e, 32); c != (host.EightfoldCounts{}) {
		t.Errorf("empty batch, 32 lanes: %+v", c)
	}
}

// BenchmarkEightfold times the C search on one CPU thread against the Go
// search with one worker (go test -run '^$' -bench Eightfold
// ./kernels/host); tasks are enumerated before the timer starts.
func BenchmarkEightfold(b *testing.B) {
	for _, n := range []int{15, 16} {
		var es []*tasks.Eightfold
		err := tasks.EnumerateEightfold(n, tasks.DefaultSplit(n), 4096, func(e *tasks.Eightfold) error {
			es = append(es, e.Clone())
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		want, _ := known.Lookup(n)
		b.Run(fmt.Sprintf("C/N=%d", n), func(b *testing.B) {
			for range b.N {
				var total uint64
				for _, e := range es {
					total += host.Eightfold(e).Total
				}
				if total != want.Total {
					b.Fatalf("N=%d: %d", n, total)
				}
			}
		})
		b.Run(fmt.Sprintf("Go/N=%d", n), func(b *testing.B) {
			for range b.N {
				var total uint64
				for _, e := range es {
					for i := 0; i < e.Len(); i++ {
						c, _ := cpu.EightfoldTask(e, i)
						total += e.Weight(i) * c
					}
				}
				if total != want.Total {
					b.Fatalf("N=%d: %d", n, total)
				}
			}
		})
	}
}

// mirrorNodes counts the nodes of the mirror search (the row-0 queen in
// the left half; for odd N also the centre, with the row-1 queen in the
// left half), the queens it places in rows 0..N-2, and its solutions.
func mirrorNodes(n int) (nodes, solutions uint64) {
	mask := uint32(1)<<n - 1
	var rec func(row int, l, d, r uint32)
	rec = func(row int, l, d, r uint32) {
		f := mask &^ (l | d | r)
		if row == n-1 {
			if f != 0 {
				solutions++
			}
			return
		}
		for ; f != 0; f &= f - 1 {
			bit := f & -f
			nodes++
			rec(row+1, (l|bit)<<1, d|bit, (r|bit)>>1)
		}
	}
	half := uint32(1)<<(n/2) - 1
	for f := half; f != 0; f &= f - 1 {
		bit := f & -f
		nodes++
		rec(1, bit<<1, bit, bit>>1)
	}
	if n%2 == 1 {
		mid := uint32(1) << (n / 2)
		nodes++
		for f := half &^ (mid>>1 | mid<<1); f != 0; f &= f - 1 {
			bit := f & -f
			nodes++
			rec(2, (mid<<1|bit)<<1, mid|bit, (mid>>1|bit)>>1)
		}
	}
	return nodes, 2 * solutions
}

// TestEightfoldNodeTable is a measurement, not a check: with
// NQ_MEASURE=1 it logs, for N=12..17 (NQ_MAXN to change the last), the
// nodes of the eightfold search (C, at the default split and at split 0,
// where the search fills every row the border leaves), of the symmetry
// search (C, symmetry boards at the default depth) and of the mirror
// search, and checks each one's count.
func TestEightfoldNodeTable(t *testing.T) {
	if os.Getenv("NQ_MEASURE") == "" {
		t.Skip("set NQ_MEASURE=1 to measure")
	}
	last := 17
	if s := os.Getenv("NQ_MAXN"); s != "" {
		last, _ = strconv.Atoi(s)
	}
	for n := 12; n <= last; n++ {
		want, _ := known.Lookup(n)
		ef := func(split int) uint64 {
			var c host.EightfoldCounts
			err := tasks.EnumerateEightfold(n, split, 4096, func(e *tasks.Eightfold) error {
				x := host.Eightfold(e)
				c.Total += x.Total
				c.Nodes += x.Nodes
				return nil
			})
			if err != nil || c.Total != want.Total {
				t.Fatalf("N=%d split %d: %d (%v)", n, split, c.Total, err)
			}
			return c.Nodes
		}
		efDef, ef0 := ef(tasks.DefaultSplit(n)), ef(0)
		var sym host.Counts
		err := tasks.EnumerateBoards(n, tasks.Symmetry, tasks.DefaultDepth(n), 4096, func(b *tasks.Boards) error {
			sym.Add(host.Boards(b))
			return nil
		})
		if err != nil || 2*sym.C2+4*sym.C4+8*sym.C8 != want.Total {
			t.Fatalf("N=%d symmetry: %+v (%v)", n, sym, err)
		}
		mir, total := mirrorNodes(n)
		if total != want.Total {
			t.Fatalf("N=%d mirror: %d", n, total)
		}
		t.Logf("| %d | %d | %d | %d | %d | %.3f | %.3f |", n, efDef, ef0, sym.Nodes, mir,
			float64(ef0)/float64(sym.Nodes), float64(ef0)/float64(mir))
	}
}

// TestEightfoldDepths checks the stack-depth histogram against the search
// it comes from: one entry per step (nodes + completions per task), the
// same Total, and no depth above the frames a task may use.
func TestEightfoldDepths(t *testing.T) {
	for _, n := range []int{8, 10, 12} {
		want, _ := known.Lookup(n)
		split := tasks.DefaultSplit(n)
		var total, nodes, steps, completions uint64
		err := tasks.EnumerateEightfold(n, split, 4096, func(e *tasks.Eightfold) error {
			c, depth := host.EightfoldDepths(e)
			total += c.Total
			nodes += c.Nodes
			for k, v := range depth {
				steps += v
				if v != 0 && k > max(n-4-split, 1) {
					t.Errorf("N=%d: %d steps at depth %d, above the %d frames", n, v, k, n-4-split)
				}
			}
			for i := 0; i < e.Len(); i++ {
				if e.Levels(i) > 1 { // a task of one level takes no step
					completions += host.Eightfold(oneTask(e, i)).Total / uint64(e.Meta[i]>>24)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if total != want.Total {
			t.Errorf("N=%d: Total %d, want %d", n, total, want.Total)
		}
		// A task of k nodes and c completions takes k + c steps
		// (nqtotal.h); a task of one level has no node.
		if steps != nodes+completions {
			t.Errorf("N=%d: %d steps for %d nodes, %d completions", n, steps, nodes, completions)
		}
	}
}

// TestEightfoldDepthTable is a measurement, not a check: with
// NQ_MEASURE=1 it logs, for N=13..17 at the GPU's split on 4 SMs and on
// an H100 (tasks.SplitFor), the share of steps after which the stack
// holds more than k frames: how often a frame k or above is live, which
// bounds how often a stack whose frames from k up lay in slower memory
// would touch them (docs/performance.md, "Where the frames are used").
func TestEightfoldDepthTable(t *testing.T) {
	if os.Getenv("NQ_MEASURE") == "" {
		t.Skip("set NQ_MEASURE=1 to measure")
	}
	for _, n := range []int{13, 14, 15, 16, 17} {
		split := tasks.DefaultSplit(n)
		if n == 16 {
			split = 4 // tasks.SplitFor on an H100
		}
		var depth []uint64
		var total uint64
		err := tasks.EnumerateEightfold(n, split, 4096, func(e *tasks.Eightfold) error {
			c, d := host.EightfoldDepths(e)
			total += c.Total
			if depth == nil {
				depth = make([]uint64, len(d))
			}
			for k, v := range d {
				depth[k] += v
			}
			return nil
		})
		want, _ := known.Lookup(n)
		if err != nil || total != want.Total {
			t.Fatalf("N=%d: %d (%v)", n, total, err)
		}
		var steps uint64
		for _, v := range depth {
			steps += v
		}
		line := fmt.Sprintf("| %d | %d | %d | %.3g |", n, split, n-4-split, float64(steps))
		above := steps
		for k := 0; k < n-4-split; k++ {
			above -= depth[k]
			line += fmt.Sprintf(" %.2g |", float64(above)/float64(steps))
		}
		t.Log(line)
	}
}
