package cpu

import (
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The symmetry-elimination search below partial boards: the hot loop of the
// CPU path. It is an explicit-stack depth-first search. A child is pushed
// only if its row has a free column, and the last rows are counted inline,
// so most leaves cost no stack traffic.

// level is one saved row of the explicit stack: the columns still to try
// and the attack words that row sees.
type level struct{ free, l, d, r uint32 }

// symmetryBoards adds the canonical solutions below each board of b to t,
// until stop is set (looked at between boards).
func symmetryBoards(b *tasks.Boards, t *tally, stop *atomic.Bool) {
	var board [32]uint32
	for i := 0; i < b.Len() && !stop.Load(); i++ {
		pre := b.Board(i)
		ru := tasks.RulesFor(b.N, pre[0], pre[1])
		if ru.Corner {
			t.orbit[8] += cornerSearch(b.N, ru.B1, b.Depth, b.Left[i], b.Down[i], b.Right[i])
			continue
		}
		copy(board[:], pre)
		nonCornerSearch(&ru, &board, b.Depth, b.Left[i], b.Down[i], b.Right[i], t)
	}
}

// cornerSearch counts the completions of a corner board from row on. Every
// one is canonical with an orbit of 8.
func cornerSearch(n, b1, row int, l, d, r uint32) uint64 {
	m := uint32(1)<<n - 1
	f := m &^ (l | d | r)
	if row < b1 {
		f &^= 2
	}
	if row >= n-2 { // only small N start this close to the end
		return countTail(m, row, n, f, l, d, r)
	}
	var st [32]level
	var cnt uint64
	base, inline := row, n-3
	for {
		if row == inline {
			// Rows N-3 and N-2 by loops, row N-1 by a test. Row N-3 may
			// still carry the column-1 rule, which f already applied.
			for ; f != 0; f &= f - 1 {
				bit := f & -f
				l2, d2, r2 := (l|bit)<<1, d|bit, (r|bit)>>1
				for f2 := m &^ (l2 | d2 | r2); f2 != 0; f2 &= f2 - 1 {
					b2 := f2 & -f2
					if m&^((l2|b2)<<1|d2|b2|(r2|b2)>>1) != 0 {
						cnt++
					}
				}
			}
		}
		for f == 0 {
			if row == base {
				return cnt
			}
			row--
			s := &st[row&31]
			f, l, d, r = s.free, s.l, s.d, s.r
		}
		bit := f & -f
		f ^= bit
		nl, nd, nr := (l|bit)<<1, d|bit, (r|bit)>>1
		nf := m &^ (nl | nd | nr)
		if row+1 < b1 {
			nf &^= 2
		}
		if nf == 0 {
			continue
		}
		st[row&31] = level{f, l, d, r}
		row++
		l, d, r, f = nl, nd, nr, nf
	}
}

// countTail counts completions recursively from a row near the end, with no
// rules left to apply below it.
func countTail(m uint32, row, n int, f, l, d, r uint32) uint64 {
	if row == n-1 {
		if f != 0 {
			return 1
		}
		return 0
	}
	var cnt uint64
	for ; f != 0; f &= f - 1 {
		bit := f & -f
		nl, nd, nr := (l|bit)<<1, d|bit, (r|bit)>>1
		cnt += countTail(m, row+1, n, m&^(nl|nd|nr), nl, nd, nr)
	}
	return cnt
}

// nonCornerSearch adds the canonical completions of a non-corner board to
// t by orbit size. board holds the placed rows and is written below row.
//
// The stack keeps each row's untried columns and its left and right words;
// the down word is recovered from the child's by undoing the queen. The
// left word cannot be: each undone shift loses the bit that left past bit
// 31, and a chain of pops from row N-3 back up to the first row loses
// board columns for large N (from N=22 at depth 7). The right word would
// need the bit that left past column 0.
func nonCornerSearch(ru *tasks.Rules, board *[32]uint32, row int, l, d, r uint32, t *tally) {
	n := ru.N
	m, side := ru.Mask, ru.SideMask
	b2, last := ru.B2, n-1
	f := ru.Free(row, l, d, r)
	if row >= last-2 {
		nonCornerTail(ru, board, row, f, l, d, r, t)
		return
	}
	// allowed[k] folds the row rules other than row B2's into one mask.
	var allowed [32]uint32
	for k := 0; k < n; k++ {
		allowed[k] = m
		if k < ru.B1 {
			allowed[k] &^= side
		}
	}
	allowed[last] &^= ru.LastMask
	lastMask := allowed[last]
	var st [32]struct{ f, l, r uint32 }
	base, inline := row, last-2
	for {
		if row == inline {
			// Rows N-3 and N-2 by loops (row B2 may be either), row N-1
			// by a test: it has at most one free column.
			for ; f != 0; f &= f - 1 {
				bit := f & -f
				board[inline] = bit
				l2, d2, r2 := (l|bit)<<1, d|bit, (r|bit)>>1
				f2 := m &^ (l2 | d2 | r2)
				if inline+1 == b2 {
					f2 = sideRule(f2, d2, side)
				}
				for ; f2 != 0; f2 &= f2 - 1 {
					bb := f2 & -f2
					lf := lastMask &^ ((l2|bb)<<1 | d2 | bb | (r2|bb)>>1)
					if lf != 0 {
						board[last-1], board[last] = bb, lf
						if orbit, ok := ru.Canonical(board[:n]); ok {
							t.orbit[orbit]++
						}
					}
				}
			}
		}
		for f == 0 {
			if row == base {
				return
			}
			row--
			bit := board[row&31]
			s := &st[row&31]
			l, d, r, f = s.l, d&^bit, s.r, s.f
		}
		bit := f & -f
		f ^= bit
		nl, nd, nr := (l|bit)<<1, d|bit, (r|bit)>>1
		next := row + 1
		nf := allowed[next&31] &^ (nl | nd | nr)
		if next == b2 {
			nf = sideRule(nf, nd, side)
		}
		if nf == 0 {
			continue
		}
		board[row&31] = bit
		st[row&31].f, st[row&31].l, st[row&31].r = f, l, r
		row = next
		l, d, r, f = nl, nd, nr, nf
	}
}

// sideRule applies row B2's rule to its free columns f: an edge column
// must be taken by now, so with neither edge in d the row is dead, and
// with one of them it must take the other.
func sideRule(f, d, side uint32) uint32 {
	switch d & side {
	case 0:
		return 0
	case side:
		return f
	}
	return f & side
}

// nonCornerTail finishes a non-corner board recursively from one of the
// last three rows; only small N start there.
func nonCornerTail(ru *tasks.Rules, board *[32]uint32, row int, f, l, d, r uint32, t *tally) {
	n := ru.N
	if row == n-1 {
		if f != 0 {
			board[row] = f
			if orbit, ok := ru.Canonical(board[:n]); ok {
				t.orbit[orbit]++
			}
		}
		return
	}
	for ; f != 0; f &= f - 1 {
		bit := f & -f
		board[row] = bit
		nl, nd, nr := (l|bit)<<1, d|bit, (r|bit)>>1
		nonCornerTail(ru, board, row+1, ru.Free(row+1, nl, nd, nr), nl, nd, nr, t)
	}
}
