package cpu

import (
	"math/bits"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The reference searches: plain enough to trust, used to check the fast ones.
//
// backtrack and bitmap see every solution and count the canonical member of
// each orbit (tally.orbit[k] = canonical solutions with an orbit of k);
// mirror sees one of each mirror pair and counts every solution it sees by
// its orbit size (an orbit of k has k/2 members in the half board).

// backtrackBoards runs the placement-flag search from each board of b,
// until stop is set (looked at between boards).
func backtrackBoards(b *tasks.Boards, t *tally, stop *atomic.Bool) {
	n := b.N
	s := flagSearch{n: n, q: make([]int, n), scratch: make([]int, n), t: t}
	for i := 0; i < b.Len() && !stop.Load(); i++ {
		s.cols, s.diag, s.anti = [32]bool{}, [64]bool{}, [64]bool{}
		for r, bit := range b.Board(i) {
			c := bits.TrailingZeros32(bit)
			s.q[r] = c
			s.cols[c], s.diag[r+c], s.anti[r-c+n-1] = true, true, true
		}
		s.place(b.Depth)
	}
}

// flagSearch is backtracking with one flag per column and per diagonal.
type flagSearch struct {
	n          int
	q, scratch []int
	cols       [32]bool
	diag, anti [64]bool
	t          *tally
}

func (s *flagSearch) place(row int) {
	n := s.n
	if row == n {
		if orbit, canon := symmetry.Classify(s.q, s.scratch); canon {
			s.t.orbit[orbit]++
		}
		return
	}
	for c := 0; c < n; c++ {
		if s.cols[c] || s.diag[row+c] || s.anti[row-c+n-1] {
			continue
		}
		s.q[row] = c
		s.cols[c], s.diag[row+c], s.anti[row-c+n-1] = true, true, true
		s.place(row + 1)
		s.cols[c], s.diag[row+c], s.anti[row-c+n-1] = false, false, false
	}
}

// bitmapSearch is recursive bitmap backtracking; at each solution it calls
// leaf with the column list.
type bitmapSearch struct {
	n          int
	mask       uint32
	q, scratch []int
	leaf       func(q, scratch []int)
}

func (s *bitmapSearch) run(b *tasks.Boards, stop *atomic.Bool) {
	for i := 0; i < b.Len() && !stop.Load(); i++ {
		for r, bit := range b.Board(i) {
			s.q[r] = bits.TrailingZeros32(bit)
		}
		s.place(b.Depth, b.Left[i], b.Down[i], b.Right[i])
	}
}

func (s *bitmapSearch) place(row int, l, d, r uint32) {
	if row == s.n {
		s.leaf(s.q, s.scratch)
		return
	}
	for f := s.mask &^ (l | d | r); f != 0; f &= f - 1 {
		bit := f & -f
		s.q[row] = bits.TrailingZeros32(bit)
		s.place(row+1, (l|bit)<<1, d|bit, (r|bit)>>1)
	}
}

func newBitmapSearch(n int, leaf func(q, scratch []int)) *bitmapSearch {
	return &bitmapSearch{n: n, mask: uint32(1)<<n - 1, q: make([]int, n), scratch: make([]int, n), leaf: leaf}
}

// bitmapBoards counts canonical solutions below each plain board, until
// stop is set (looked at between boards).
func bitmapBoards(b *tasks.Boards, t *tally, stop *atomic.Bool) {
	newBitmapSearch(b.N, func(q, scratch []int) {
		if orbit, canon := symmetry.Classify(q, scratch); canon {
			t.orbit[orbit]++
		}
	}).run(b, stop)
}

// mirrorBoards counts every solution below each half board by orbit size,
// until stop is set (looked at between boards).
func mirrorBoards(b *tasks.Boards, t *tally, stop *atomic.Bool) {
	newBitmapSearch(b.N, func(q, _ []int) {
		t.orbit[symmetry.Orbit(q)]++
	}).run(b, stop)
}
