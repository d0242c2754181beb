package host_test

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job/jobtest"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
	"github.com/nqueens-gpu/nqueens-gpu/kernels/host"
)

// TestMain skips everything when the C search is not built in.
func TestMain(m *testing.M) {
	if !host.Enabled {
		fmt.Println("kernels/host: built without cgo, nothing to test")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// symmetryCounts runs the C search over every symmetry board of n at depth.
func symmetryCounts(t testing.TB, n, depth, batch int) nq.Counts {
	var c nq.Counts
	err := tasks.EnumerateBoards(n, tasks.Symmetry, depth, batch, func(b *tasks.Boards) error {
		h := host.Boards(b)
		c.Add(nq.Counts{C2: h.C2, C4: h.C4, C8: h.C8})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// carryCounts runs the C search over every frame of n and turns the
// weighted sums into orbit counts.
func carryCounts(t testing.TB, n, batch int) nq.Counts {
	var w tasks.Weighted
	err := tasks.EnumerateFrames(n, batch, func(f *tasks.Frames) error {
		h := host.Frames(f)
		w.W2 += h.C2
		w.W4 += h.C4
		w.W8 += h.C8
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.W2%2 != 0 || w.W4%4 != 0 || w.W8%8 != 0 {
		t.Errorf("N=%d: weighted sums %+v not divisible by 2, 4, 8", n, w)
	}
	return nq.Counts{C2: w.W2 / 2, C4: w.W4 / 4, C8: w.W8 / 8}
}

// depths lists the depths to test for n: the default, 2, 3 and n-1, each
// once.
func depths(n int) []int {
	var ds []int
	for _, d := range []int{tasks.DefaultDepth(n), 2, 3, n - 1} {
		dup := d < 2 || d > n-1
		for _, e := range ds {
			dup = dup || e == d
		}
		if !dup {
			ds = append(ds, d)
		}
	}
	return ds
}

// checkKnown compares c with the published split and Total, where known.
func checkKnown(t *testing.T, n int, c nq.Counts) {
	t.Helper()
	if want, ok := known.ClassTable[n]; ok {
		if c.C2 != want.C2 || c.C4 != want.C4 || c.C8 != want.C8 {
			t.Errorf("N=%d: %v, published C2=%d C4=%d C8=%d", n, c, want.C2, want.C4, want.C8)
		}
	}
	if e, ok := known.Lookup(n); ok && (c.Total() != e.Total || c.Unique() != e.Unique) {
		t.Errorf("N=%d: %v, published total=%d unique=%d", n, c, e.Total, e.Unique)
	}
}

func TestBoardsMatchCPU(t *testing.T) {
	ctx := context.Background()
	for n := 4; n <= 14; n++ {
		want, err := jobtest.Solve(ctx, cpu.New(0), nq.Spec{N: n, Algo: nq.Symmetry})
		if err != nil {
			t.Fatal(err)
		}
		for _, depth := range depths(n) {
			for _, batch := range []int{1, 1000} {
				t.Run(fmt.Sprintf("N=%d/depth=%d/batch=%d", n, depth, batch), func(t *testing.T) {
					got := symmetryCounts(t, n, depth, batch)
					if got != want {
						t.Errorf("C search %v, the CPU %v", got, want)
					}
					checkKnown(t, n, got)
				})
			}
		}
	}
}

// The dynamic kernel's loop, with 1, 7 and 32 interleaved lanes sharing
// one counter, gives exactly the static search's counts.
func TestBoardsLanesMatchCPU(t *testing.T) {
	ctx := context.Background()
	for n := 4; n <= 13; n++ {
		want, err := jobtest.Solve(ctx, cpu.New(0), nq.Spec{N: n, Algo: nq.Symmetry})
		if err != nil {
			t.Fatal(err)
		}
		for _, depth := range depths(n) {
			for _, lanes := range []int{1, 7, 32} {
				var got nq.Counts
				err := tasks.EnumerateBoards(n, tasks.Symmetry, depth, 500, func(b *tasks.Boards) error {
					h := host.BoardsLanes(b, lanes)
					got.Add(nq.Counts{C2: h.C2, C4: h.C4, C8: h.C8})
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("N=%d depth=%d lanes=%d: %v, the CPU %v", n, depth, lanes, got, want)
				}
			}
		}
	}
}

func TestFramesMatchCPU(t *testing.T) {
	ctx := context.Background()
	for n := 5; n <= 14; n++ {
		want, err := jobtest.Solve(ctx, cpu.New(0), nq.Spec{N: n, Algo: nq.CarryChain})
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{1, 1000} {
			t.Run(fmt.Sprintf("N=%d/batch=%d", n, batch), func(t *testing.T) {
				got := carryCounts(t, n, batch)
				if got != want {
					t.Errorf("C search %v, the CPU %v", got, want)
				}
				checkKnown(t, n, got)
			})
		}
	}
}

// checkBoards compares the C search with taskstest.SearchBoard on every
// board of b that pick accepts, board by board: solutions by orbit size
// and nodes.
// It returns how many boards it compared and how many had a solution.
func checkBoards(t *testing.T, b *tasks.Boards, pick func(i int) bool) (boards, nonzero int) {
	t.Helper()
	n, depth := b.N, b.Depth
	for i := 0; i < b.Len(); i++ {
		if !pick(i) {
			continue
		}
		got := host.Boards(taskstest.Single(b, i))
		want := taskstest.Reference(b, i)
		if got.C2 != want[2] || got.C4 != want[4] || got.C8 != want[8] || got.Nodes != want[0] {
			t.Fatalf("N=%d depth=%d board %x: C search %d/%d/%d, %d nodes; reference %d/%d/%d, %d nodes",
				n, depth, b.Board(i), got.C2, got.C4, got.C8, got.Nodes, want[2], want[4], want[8], want[0])
		}
		boards++
		if got.C2+got.C4+got.C8 > 0 {
			nonzero++
		}
	}
	return boards, nonzero
}

// TestBoardsPerBoard checks each single board's counts and nodes against
// taskstest.SearchBoard.
func TestBoardsPerBoard(t *testing.T) {
	for _, n := range []int{4, 5, 6, 7, 10, 11} {
		for depth := 2; depth <= n-1; depth++ {
			boards, nonzero := 0, 0
			err := tasks.EnumerateBoards(n, tasks.Symmetry, depth, 256, func(b *tasks.Boards) error {
				k, z := checkBoards(t, b, func(int) bool { return true })
				boards, nonzero = boards+k, nonzero+z
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if nonzero == 0 {
				t.Errorf("N=%d depth=%d: no board of %d has a solution", n, depth, boards)
			}
		}
	}
}

// TestBoardsLargeN compares random boards of N=22..28 (half corner, half
// non-corner; 15 rows left each) with taskstest.SearchBoard, one by one
// and all at once through 32 interleaved lanes: at these sizes the pops of a search
// run back up through enough rows that undoing a shift without the saved
// bits (nq_fsw) loses board columns, and no full count runs in a test.
func TestBoardsLargeN(t *testing.T) {
	if testing.Short() {
		t.Skip("large-N boards: not in -short")
	}
	for _, n := range []int{22, 23, 25, 28} {
		depth := n - 15
		b := taskstest.RandomSymmetryBoards(n, depth, 40, 7)
		boards, nonzero := checkBoards(t, b, func(int) bool { return true })
		if nonzero < 10 {
			t.Errorf("N=%d depth=%d: %d of %d boards have a solution", n, depth, nonzero, boards)
		}
		all, lanes := host.Boards(b), host.BoardsLanes(b, 32)
		if all != lanes {
			t.Errorf("N=%d depth=%d: static %+v, 32 lanes %+v", n, depth, all, lanes)
		}
	}
}

// refFrame completes one frame by brute force over the rows it leaves
// empty, checking every pair of queens, and classifies each completion by
// rotating it: w[k] gets weight for each completion of orbit k.
func refFrame(n int, q []int, row int, weight uint64, w *[9]uint64) {
	if row == n {
		w[orbitOf(q)] += weight
		return
	}
	if q[row] >= 0 {
		refFrame(n, q, row+1, weight, w)
		return
	}
next:
	for c := 0; c < n; c++ {
		for r := 0; r < n; r++ {
			if q[r] < 0 || r == row {
				continue
			}
			if q[r] == c || q[r]-c == r-row || q[r]-c == row-r {
				continue next
			}
		}
		q[row] = c
		refFrame(n, q, row+1, weight, w)
		q[row] = -1
	}
}

// orbitOf returns the orbit size of a solution given by its columns.
func orbitOf(q []int) int {
	n := len(q)
	rot := make([]int, n) // quarter turn: (r, c) -> (c, n-1-r)
	for r, c := range q {
		rot[c] = n - 1 - r
	}
	quarter, half := true, true
	for r := range q {
		quarter = quarter && rot[r] == q[r]
		half = half && q[n-1-r] == n-1-q[r]
	}
	switch {
	case quarter:
		return 2
	case half:
		return 4
	}
	return 8
}

// TestFramesPerFrame checks each single frame's weighted counts against
// refFrame.
func TestFramesPerFrame(t *testing.T) {
	for _, n := range []int{5, 6, 7, 8, 9, 10} {
		frames, sym := 0, 0
		err := tasks.EnumerateFrames(n, 256, func(f *tasks.Frames) error {
			for i := 0; i < f.Len(); i++ {
				one := &tasks.Frames{N: n, Rows: f.Frame(i), Weight: f.Weight[i : i+1], Sym180: f.Sym180[i : i+1]}
				h := host.Frames(one)
				w2, w4, w8 := h.C2, h.C4, h.C8
				q := make([]int, n)
				for r, b := range f.Frame(i) {
					q[r] = -1
					if b != 0 {
						q[r] = bits.TrailingZeros32(b)
					}
				}
				var want [9]uint64
				refFrame(n, q, 0, uint64(f.Weight[i]), &want)
				if w2 != want[2] || w4 != want[4] || w8 != want[8] {
					return fmt.Errorf("N=%d frame %x (weight %d, sym180 %d): C search %d/%d/%d, reference %d/%d/%d",
						n, f.Frame(i), f.Weight[i], f.Sym180[i], w2, w4, w8, want[2], want[4], want[8])
				}
				frames++
				if f.Sym180[i] != 0 {
					sym++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("N=%d: %d frames, %d with a half-turn stabiliser", n, frames, sym)
	}
}

// refInner completes a frame recursively over the inner rows 2..n-3 given
// its attack masks (each row's forbidden columns) and classifies each
// completion by rotating it: w[k] gets weight per completion of orbit k.
// It shares no code with the C search and keeps no stack to undo.
func refInner(n int, attack, board []uint32, row int, l, d, r uint32, weight uint64, w *[9]uint64) {
	if row > n-3 {
		q := make([]int, n)
		for i, b := range board {
			q[i] = bits.TrailingZeros32(b)
		}
		w[orbitOf(q)] += weight
		return
	}
	m := uint32(1)<<n - 1
	for f := m &^ (attack[row] | l | d | r); f != 0; f &= f - 1 {
		bit := f & -f
		board[row] = bit
		refInner(n, attack, board, row+1, (l|bit)<<1, d|bit, (r|bit)>>1, weight, w)
	}
}

// frameAttack returns each inner row's forbidden columns for a frame: the
// frame's columns and diagonals, or all but its own queen in a row it
// fills.
func frameAttack(n int, rows []uint32) []uint32 {
	m := uint32(1)<<n - 1
	var cols uint32
	for _, b := range rows {
		cols |= b
	}
	attack := make([]uint32, n)
	for r := range rows {
		if rows[r] != 0 {
			attack[r] = m &^ rows[r]
			continue
		}
		a := cols
		for r0, b := range rows {
			k := r - r0
			if k < 0 {
				k = -k
			}
			a |= b<<k | b>>k
		}
		attack[r] = a & m
	}
	return attack
}

// TestFramesLargeN compares frames of N=20 and 22 with refInner one by
// one: from N=20 on, the pops of the inner search run back up through
// enough rows that undoing a shift without the saved bits (nq_fsw) loses
// board columns. Every 1999th of the first 30000 frames of each N.
func TestFramesLargeN(t *testing.T) {
	if testing.Short() {
		t.Skip("large-N frames: not in -short")
	}
	errStop := fmt.Errorf("enough frames")
	for _, n := range []int{20, 22} {
		seen, frames, nonzero := 0, 0, 0
		err := tasks.EnumerateFrames(n, 1000, func(f *tasks.Frames) error {
			for i := 0; i < f.Len(); i++ {
				if (seen+i)%1999 != 0 {
					continue
				}
				one := &tasks.Frames{N: n, Rows: f.Frame(i), Weight: f.Weight[i : i+1], Sym180: f.Sym180[i : i+1]}
				got := host.Frames(one)
				board := append([]uint32(nil), f.Frame(i)...)
				var want [9]uint64
				refInner(n, frameAttack(n, board), board, 2, 0, 0, 0, uint64(f.Weight[i]), &want)
				if got.C2 != want[2] || got.C4 != want[4] || got.C8 != want[8] {
					return fmt.Errorf("N=%d frame %x: C search %d/%d/%d, reference %d/%d/%d",
						n, f.Frame(i), got.C2, got.C4, got.C8, want[2], want[4], want[8])
				}
				frames++
				if got.C2+got.C4+got.C8 > 0 {
					nonzero++
				}
			}
			seen += f.Len()
			if seen >= 30000 {
				return errStop
			}
			return nil
		})
		if err != errStop {
			t.Fatal(err)
		}
		if nonzero < frames/4 {
			t.Errorf("N=%d: %d of %d frames have a completion", n, nonzero, frames)
		}
	}
}

func TestEmptyBatch(t *testing.T) {
	if c := host.Boards(&tasks.Boards{N: 8, Kind: tasks.Symmetry, Depth: 3}); c != (host.Counts{}) {
		t.Errorf("empty boards batch: %+v", c)
	}
	if c := host.Frames(&tasks.Frames{N: 8}); c != (host.Counts{}) {
		t.Errorf("empty frames batch: %+v", c)
	}
}

// The benchmarks time the C search on one CPU thread against the CPU backend with
// one worker, for information (go test -run '^$' -bench . ./kernels/host).
// Boards and frames are enumerated before the timer starts.

func collectBoards(b *testing.B, n int) []*tasks.Boards {
	var bs []*tasks.Boards
	err := tasks.EnumerateBoards(n, tasks.Symmetry, tasks.DefaultDepth(n), 4096, func(x *tasks.Boards) error {
		c := *x
		c.Rows = append([]uint32(nil), x.Rows...)
		c.Left = append([]uint32(nil), x.Left...)
		c.Down = append([]uint32(nil), x.Down...)
		c.Right = append([]uint32(nil), x.Right...)
		bs = append(bs, &c)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return bs
}

func collectFrames(b *testing.B, n int) []*tasks.Frames {
	var fs []*tasks.Frames
	err := tasks.EnumerateFrames(n, 4096, func(x *tasks.Frames) error {
		c := *x
		c.Rows = append([]uint32(nil), x.Rows...)
		c.Weight = append([]uint8(nil), x.Weight...)
		c.Sym180 = append([]uint8(nil), x.Sym180...)
		fs = append(fs, &c)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return fs
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{15, 16} {
		b.Run(fmt.Sprintf("C-symmetry/N=%d", n), func(b *testing.B) {
			bs := collectBoards(b, n)
			b.ResetTimer()
			for range b.N {
				var c nq.Counts
				for _, x := range bs {
					h := host.Boards(x)
					c.Add(nq.Counts{C2: h.C2, C4: h.C4, C8: h.C8})
				}
				if e, _ := known.Lookup(n); c.Total() != e.Total {
					b.Fatalf("N=%d: total %d", n, c.Total())
				}
			}
		})
		b.Run(fmt.Sprintf("Go-symmetry/N=%d", n), func(b *testing.B) {
			for range b.N {
				if _, err := jobtest.Solve(context.Background(), cpu.New(1), nq.Spec{N: n, Algo: nq.Symmetry}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("C-carrychain/N=%d", n), func(b *testing.B) {
			fs := collectFrames(b, n)
			b.ResetTimer()
			for range b.N {
				var total uint64
				for _, x := range fs {
					h := host.Frames(x)
					total += h.C2 + h.C4 + h.C8
				}
				if e, _ := known.Lookup(n); total != e.Total {
					b.Fatalf("N=%d: total %d", n, total)
				}
			}
		})
		b.Run(fmt.Sprintf("Go-carrychain/N=%d", n), func(b *testing.B) {
			for range b.N {
				if _, err := jobtest.Solve(context.Background(), cpu.New(1), nq.Spec{N: n, Algo: nq.CarryChain}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
