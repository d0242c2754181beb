package cpu

import (
	"math/bits"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// frameMasks fills attack[r], for each inner row r (2..N-3), with the
// columns the frame's queens forbid there: their columns and the squares
// their diagonals cross. A row the frame already fills allows exactly its
// own queen's column, so the inner search passes through it with one
// choice.
func frameMasks(n int, rows []uint32, attack *[32]uint32) {
	m := uint32(1)<<n - 1
	var cols uint32
	for _, b := range rows {
		cols |= b
	}
	for r := 2; r <= n-3; r++ {
		if rows[r] != 0 {
			attack[r] = m &^ rows[r]
			continue
		}
		a := cols
		for r0, b := range rows {
			if b == 0 {
				continue
			}
			k := r - r0
			if k < 0 {
				k = -k
			}
			a |= b<<k | b>>k
		}
		attack[r] = a & m
	}
}

// framesBoards adds the weighted completions of each frame of f to t:
// t.orbit[k] gets the frame's weight for each completion with an orbit of
// k (see tasks.Weighted), until stop is set (looked at between frames).
func framesBoards(f *tasks.Frames, t *tally, stop *atomic.Bool) {
	n := f.N
	var attack [32]uint32
	for i := 0; i < f.Len() && !stop.Load(); i++ {
		rows := f.Frame(i)
		frameMasks(n, rows, &attack)
		w := uint64(f.Weight[i])
		if f.Sym180[i] == 0 {
			t.orbit[8] += w * innerCount(n, &attack)
			continue
		}
		var board [32]uint32
		copy(board[:], rows)
		innerClassify(n, &attack, &board, 2, 0, 0, 0, w, t)
	}
}

// innerCount counts the completions of rows 2..N-3 given the frame's
// attack masks; l, d, r carry only the inner queens.
func innerCount(n int, attack *[32]uint32) uint64 {
	first, last := 2, n-3
	m := uint32(1)<<n - 1
	var l, d, r uint32
	f := m &^ attack[first]
	if first == last {
		return uint64(bits.OnesCount32(f))
	}
	var st [32]level
	var cnt uint64
	row := first
	for {
		if row == last-1 {
			for ; f != 0; f &= f - 1 {
				bit := f & -f
				if m&^(attack[last]|(l|bit)<<1|d|bit|(r|bit)>>1) != 0 {
					cnt++
				}
			}
		}
		for f == 0 {
			if row == first {
				return cnt
			}
			row--
			s := &st[row&31]
			f, l, d, r = s.free, s.l, s.d, s.r
		}
		bit := f & -f
		f ^= bit
		nl, nd, nr := (l|bit)<<1, d|bit, (r|bit)>>1
		nf := m &^ (attack[(row+1)&31] | nl | nd | nr)
		if nf == 0 {
			continue
		}
		st[row&31] = level{f, l, d, r}
		row++
		l, d, r, f = nl, nd, nr, nf
	}
}

// innerClassify searches like innerCount but classifies each completion of
// a frame that a half turn fixes.
func innerClassify(n int, attack *[32]uint32, board *[32]uint32, row int, l, d, r uint32, w uint64, t *tally) {
	m := uint32(1)<<n - 1
	if row > n-3 {
		t.orbit[boardOrbit(board[:n])] += w
		return
	}
	for f := m &^ (attack[row] | l | d | r); f != 0; f &= f - 1 {
		bit := f & -f
		board[row] = bit
		innerClassify(n, attack, board, row+1, (l|bit)<<1, d|bit, (r|bit)>>1, w, t)
	}
}

// boardOrbit returns the orbit size of a solution given as one bit per row.
func boardOrbit(board []uint32) int {
	var q [32]int
	for r, b := range board {
		q[r] = bits.TrailingZeros32(b)
	}
	return symmetry.Orbit(q[:len(board)])
}
