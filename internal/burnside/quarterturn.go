package burnside

import (
	"context"
	"math/bits"
)

// The quarter-turn search.
//
// The quarter turn maps (r, c) to (c, n−1−r), so a solution it fixes is a
// union of orbits of four queens (r, c), (c, n−1−r), (n−1−r, n−1−c),
// (n−1−c, r), plus for n mod 4 = 1 the centre queen. An orbit takes the
// rows {r, c, n−1−r, n−1−c} and the same four columns, so one word, used,
// holds both the taken rows and the taken columns. Its four sum diagonals
// (r+c constant) are r+c, n−1+c−r, 2n−2−r−c, n−1+r−c, and its four
// difference diagonals (c−r+n−1 constant) are the same four numbers, so
// one word, diag, holds both kinds; the set is symmetric under
// k -> 2n−2−k. Hence the orbit of (r, c) fits when column c is free,
// c is neither r nor n−1−r (the orbit would have two queens in a row), and
// the sum diagonal r+c and the difference diagonal c−r of (r, c) itself
// are free: the symmetry of diag covers the other three queens.
//
// The search takes the lowest empty row r each time; every orbit fills two
// rows of the top half, so n/4 orbits make a solution, and the last one is
// counted without being placed. Only n mod 4 = 0 or 1 can work (the top
// half's n/2 rows come in twos). The search is small (n = 28 takes a few
// milliseconds), so it runs in the caller's goroutine and looks at ctx
// between the choices of the first orbit.

// quarterTurn returns the number of solutions fixed by the quarter turn, n >= 2.
func quarterTurn(ctx context.Context, n int) (uint64, error) {
	if n%4 == 2 || n%4 == 3 {
		return 0, nil
	}
	un := uint(n)
	mask := uint64(1)<<un - 1
	var used, diag uint64
	diag = 1 << (un - 1) // the long diagonals: an orbit on them has two queens in a row
	if n%4 == 1 {
		m := un / 2
		used |= 1 << m // the centre queen: row and column m, both diagonals n−1
	}
	free := func(used, diag uint64) (r uint, avail uint64) {
		r = uint(bits.TrailingZeros64(^used))
		return r, ^(used | diag>>r | diag>>(un-1-r) | 1<<r | 1<<(un-1-r)) & mask
	}
	place := func(used, diag uint64, r, c uint) (uint64, uint64) {
		used |= 1<<r | 1<<c | 1<<(un-1-r) | 1<<(un-1-c)
		diag |= 1<<(r+c) | 1<<(un-1+c-r) | 1<<(2*un-2-r-c) | 1<<(un-1+r-c)
		return used, diag
	}
	var count func(used, diag uint64, left int) uint64
	count = func(used, diag uint64, left int) uint64 {
		r, avail := free(used, diag)
		if left == 1 {
			return uint64(bits.OnesCount64(avail))
		}
		var total uint64
		for ; avail != 0; avail &= avail - 1 {
			u, d := place(used, diag, r, uint(bits.TrailingZeros64(avail)))
			total += count(u, d, left-1)
		}
		return total
	}
	orbits := n / 4
	if orbits == 0 { // n = 1 is handled by the caller; n < 4 has no orbit
		return 0, nil
	}
	r, avail := free(used, diag)
	var total uint64
	for ; avail != 0; avail &= avail - 1 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if orbits == 1 {
			total++
			continue
		}
		u, d := place(used, diag, r, uint(bits.TrailingZeros64(avail)))
		total += count(u, d, orbits-1)
	}
	return total, nil
}
