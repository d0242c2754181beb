package burnside

import (
	"context"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// The half-turn search. A solution fixed by the half turn is decided by
// the rows 0..h−1 of the top half, h = n/2: each queen (r, c) comes with
// its partner (n−1−r, n−1−c), and for odd n the middle row's queen stands
// on the centre square. The taken columns and diagonals are symmetric, so
// a square of the top half is free for the pair exactly when it is free
// for its own queen: one test on three words. The long diagonals are taken
// from the start, the rows are filled from the middle outwards, and the
// last row is counted by a popcount. docs/algorithms.md ("The symmetric
// solutions") has the derivation and the node counts.

// halfState is a node of the half-turn search. The words are absolute:
//
//   - cols: bit c set when column c is taken;
//   - sum:  bit r+c set when the sum diagonal through (r, c) is taken;
//   - diff: bit c−r+n−1 set when the difference diagonal through (r, c) is
//     taken.
//
// Every index lies in 0..2n−2, so a 64-bit word holds them for n <= 28.
type halfState struct {
	cols, sum, diff uint64
}

// halfSearch holds the constants of one n.
type halfSearch struct {
	n    uint
	mask uint64 // the n columns
}

func newHalfSearch(n int) halfSearch {
	return halfSearch{n: uint(n), mask: 1<<uint(n) - 1}
}

// start returns the root for n >= 2: the long diagonals taken, and for odd
// n the centre column.
func (hs halfSearch) start() halfState {
	n := hs.n
	var s halfState
	if n%2 == 1 {
		s.cols = 1 << (n / 2)
	}
	s.sum = 1 << (n - 1)  // r+c = n−1
	s.diff = 1 << (n - 1) // c−r = 0
	return s
}

// free returns the columns of row r where a pair may go.
func (hs halfSearch) free(s halfState, r uint) uint64 {
	return ^(s.cols | s.sum>>(r&63) | s.diff>>((hs.n-1-r)&63)) & hs.mask
}

// place returns the state after a queen at (r, c) and its partner.
func (hs halfSearch) place(s halfState, r, c uint) halfState {
	n := hs.n
	return halfState{
		cols: s.cols | 1<<(c&63) | 1<<((n-1-c)&63),
		sum:  s.sum | 1<<((r+c)&63) | 1<<((2*n-2-r-c)&63),
		diff: s.diff | 1<<((c+n-1-r)&63) | 1<<((r+n-1-c)&63),
	}
}

// halfTask is a subtree of the search: its root state, the rows still to
// fill in the order to fill them, and the weight of each solution in it
// (see halfTurn).
type halfTask struct {
	s      halfState
	rows   [nq.MaxN / 2]uint8
	nrows  int
	weight uint64
}

// stopEvery is how many backtracks count makes between two looks at its
// stop flag: a task of n = 28 runs for minutes, 2^16 backtracks for about
// a millisecond.
const stopEvery = 1 << 16

// count returns the number of ways to complete t.s to a solution, or
// stops with a partial count soon after stop is set.
func (hs halfSearch) count(t *halfTask, stop *atomic.Bool) uint64 {
	if t.nrows == 0 {
		return 1
	}
	s := t.s
	rows := t.rows
	last := t.nrows - 1
	lvl := 0
	avail := hs.free(s, uint(rows[0]))
	if last == 0 {
		return uint64(bits.OnesCount64(avail))
	}
	// Depth-first without recursion: stack[i] holds the state before
	// level i and the columns of its row left to try.
	type frame struct {
		avail uint64
		s     halfState
	}
	var stack [nq.MaxN / 2]frame
	var total uint64
	pops := stopEvery
	for {
		if avail == 0 {
			if lvl == 0 {
				return total
			}
			if pops--; pops == 0 {
				if stop.Load() {
					return total
				}
				pops = stopEvery
			}
			lvl--
			avail, s = stack[lvl].avail, stack[lvl].s
			continue
		}
		c := uint(bits.TrailingZeros64(avail))
		avail &= avail - 1
		next := hs.place(s, uint(rows[lvl]), c)
		na := hs.free(next, uint(rows[lvl+1]))
		if lvl+1 == last {
			// The last row: every free column completes a solution.
			total += uint64(bits.OnesCount64(na))
			continue
		}
		if na == 0 {
			continue
		}
		stack[lvl] = frame{avail, s}
		lvl++
		s, avail = next, na
	}
}

// tasks splits the search into subtrees: the column c < n/2 of row h−1
// (the mirror halving), the top row b >= c that takes the central column
// pair {h−1, n−h} and which of the two it takes, then depth more rows.
func (hs halfSearch) tasks(depth int) []halfTask {
	h := hs.n / 2
	lo, hi := h-1, hs.n-h
	var out []halfTask
	var walk func(t halfTask, d int)
	walk = func(t halfTask, d int) {
		if d == 0 || t.nrows == 0 {
			out = append(out, t)
			return
		}
		s, r := t.s, uint(t.rows[0])
		rest := t
		copy(rest.rows[:], t.rows[1:t.nrows])
		rest.nrows--
		for avail := hs.free(s, r); avail != 0; avail &= avail - 1 {
			rest.s = hs.place(s, r, uint(bits.TrailingZeros64(avail)))
			walk(rest, d-1)
		}
	}
	root := hs.start()
	for first := hs.free(root, h-1) & (1<<h - 1); first != 0; first &= first - 1 {
		c := uint(bits.TrailingZeros64(first))
		s := hs.place(root, h-1, c)
		for b := c; b < h-1; b++ {
			for _, side := range [2]uint{lo, hi} {
				if hs.free(s, b)&(1<<side) == 0 {
					continue
				}
				t := halfTask{s: hs.place(s, b, side), weight: 4}
				if b == c {
					t.weight = 2
				}
				for r := int(h) - 2; r >= 0; r-- {
					if uint(r) != b {
						t.rows[t.nrows] = uint8(r)
						t.nrows++
					}
				}
				walk(t, depth)
			}
		}
	}
	return out
}

// Below this n the half-turn search runs in the caller's goroutine.
const parallelFromN = 18

// halfTurn returns the number of solutions fixed by the half turn, n >= 2.
//
// The symmetries of the square map half-turn-symmetric solutions to each
// other, and the search counts only one or two members of each class: the
// column c of row h−1's queen is below n/2, the top row b whose queen is
// in a central column is placed next with b >= c, and each solution found
// weighs 4, or 2 where b = c. docs/algorithms.md ("The symmetric
// solutions") proves that this counts each solution once.
func halfTurn(ctx context.Context, n int) (uint64, error) {
	hs := newHalfSearch(n)
	tasks := hs.tasks(2)
	workers := runtime.GOMAXPROCS(0)
	if n < parallelFromN {
		workers = 1
	}
	workers = min(workers, len(tasks))
	var next atomic.Int64
	// stop is ctx's cancellation for the searches, which look at it
	// inside a task: at n = 28 one runs for minutes.
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	sums := make([]uint64, workers)
	work := func(w int) {
		for {
			i := next.Add(1) - 1
			if i >= int64(len(tasks)) || stop.Load() {
				return
			}
			sums[w] += tasks[i].weight * hs.count(&tasks[i], &stop)
		}
	}
	if workers == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		wg.Add(workers)
		for w := range workers {
			go func() {
				defer wg.Done()
				work(w)
			}()
		}
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var total uint64
	for _, s := range sums {
		total += s
	}
	return total, nil
}
