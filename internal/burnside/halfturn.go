package burnside

import (
	"context"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// The half-turn search.
//
// A solution q fixed by the half turn has q[n−1−r] = n−1−q[r], so it is
// decided by the rows 0..h−1 of the top half, h = n/2: each queen (r, c)
// there comes with its partner (n−1−r, n−1−c) in the bottom half, and for
// odd n the middle row's queen stands on the centre square (m, m),
// m = (n−1)/2. The occupied columns and diagonals are then symmetric: a
// pair takes the columns c and n−1−c, the sum diagonals (r+c constant) r+c
// and 2n−2−(r+c), the difference diagonals (c−r constant) c−r and r−c. So a
// square of the top half is free for the pair exactly when it is free for
// its own queen, which is one test on three words.
//
// A queen on the long diagonals (r+c = n−1 or c = r) would share it with
// its partner: the search marks both as taken from the start. For odd n
// they are the centre queen's diagonals anyway.
//
// The rows are filled from the middle outwards (h−1, h−2, ..., 0). The
// pairs of the middle rows stand close together and rule each other out
// early; for n = 20 this order visits 1.6 million nodes where the
// outside-in order visits 4.6 million. The tree is widest near its leaves
// (most partial boards die in the last three rows), and the last row is
// counted with a popcount instead of being visited.
//
// No solution for n >= 2 is fixed by a reflection, and the left-right
// mirror maps a half-turn-symmetric solution to another one, with the
// queen of row h−1 in column n−1−c instead of c (never the same column:
// for odd n the centre column is the centre queen's). So the search counts
// the solutions with that queen in the left half, c < n/2, and doubles.

// halfState is a node of the half-turn search: the rows r+1..h−1 of the
// top half (and their partners) are filled, row r is next. The words are
// windows on row r:
//
//   - cols: bit c set when column c is taken;
//   - sum:  bit c set when the sum diagonal r+c is taken;
//   - diff: bit c+n set when the difference diagonal c−r is taken. The
//     offset n keeps the partner's bit (diagonal r−c, which lies left of
//     the window when c > 2r) inside the word.
//
// Moving up one row shifts sum left and diff right by one; bits that leave
// the window that way never come back into it, since the rows still to
// fill lie above.
type halfState struct {
	r               int
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

// start returns the root for n >= 2: row h−1 next, the long diagonals
// taken, and for odd n the centre column.
func (hs halfSearch) start() halfState {
	n := hs.n
	s := halfState{r: int(n/2) - 1}
	if n%2 == 1 {
		s.cols = 1 << (n / 2)
	}
	r := uint(s.r)
	s.sum = 1 << (n - 1 - r) // sum diagonal n−1 meets row r in column n−1−r
	s.diff = 1 << (r + n)    // difference diagonal 0 meets row r in column r
	return s
}

// free returns the columns of row s.r where a pair may go.
func (hs halfSearch) free(s halfState) uint64 {
	return ^(s.cols | s.sum | s.diff>>(hs.n&63)) & hs.mask
}

// place returns the state after a queen at (s.r, c) and its partner.
func (hs halfSearch) place(s halfState, c uint) halfState {
	n, r := hs.n, uint(s.r)
	return halfState{
		r:    s.r - 1,
		cols: s.cols | 1<<c | 1<<((n-1-c)&63),
		sum:  (s.sum | 1<<c | 1<<((2*n-2-2*r-c)&63)) << 1,
		diff: (s.diff | 1<<(c+n) | 1<<((2*r+n-c)&63)) >> 1,
	}
}

// count returns the number of ways to complete s to a solution.
func (hs halfSearch) count(s halfState) uint64 {
	if s.r < 0 {
		return 1
	}
	avail := hs.free(s)
	if s.r == 0 {
		return uint64(bits.OnesCount64(avail))
	}
	// Depth-first without recursion: the stack holds, for each row being
	// tried above the current one, its state and the columns left to try.
	type frame struct {
		avail uint64
		s     halfState
	}
	var stack [nq.MaxN / 2]frame
	sp := 0
	var total uint64
	for {
		if avail == 0 {
			if sp == 0 {
				return total
			}
			sp--
			avail, s = stack[sp].avail, stack[sp].s
			continue
		}
		c := uint(bits.TrailingZeros64(avail))
		avail &= avail - 1
		next := hs.place(s, c)
		na := hs.free(next)
		if next.r == 0 {
			// The last row: every free column completes a solution.
			total += uint64(bits.OnesCount64(na))
			continue
		}
		if na == 0 {
			continue
		}
		stack[sp] = frame{avail, s}
		sp++
		s, avail = next, na
	}
}

// prefixes returns the states after the first depth rows (or all rows, if
// fewer) with the queen of the first row in the left half.
func (hs halfSearch) prefixes(depth int) []halfState {
	var out []halfState
	var walk func(s halfState, d int)
	walk = func(s halfState, d int) {
		if d == 0 || s.r < 0 {
			out = append(out, s)
			return
		}
		for avail := hs.free(s); avail != 0; avail &= avail - 1 {
			walk(hs.place(s, uint(bits.TrailingZeros64(avail))), d-1)
		}
	}
	root := hs.start()
	left := hs.free(root) & (1<<(hs.n/2) - 1) // the mirror halving
	for ; left != 0; left &= left - 1 {
		walk(hs.place(root, uint(bits.TrailingZeros64(left))), depth-1)
	}
	return out
}

// Below this n the half-turn search runs in the caller's goroutine.
const parallelFromN = 18

// halfTurn returns the number of solutions fixed by the half turn, n >= 2.
func halfTurn(ctx context.Context, n int) (uint64, error) {
	hs := newHalfSearch(n)
	tasks := hs.prefixes(3)
	workers := runtime.GOMAXPROCS(0)
	if n < parallelFromN {
		workers = 1
	}
	workers = min(workers, len(tasks))
	var next atomic.Int64
	sums := make([]uint64, workers)
	work := func(w int) {
		for {
			i := next.Add(1) - 1
			if i >= int64(len(tasks)) || ctx.Err() != nil {
				return
			}
			sums[w] += hs.count(tasks[i])
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
	return 2 * total, nil // the mirror halving
}
