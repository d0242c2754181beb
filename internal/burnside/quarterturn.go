package burnside

import (
	"context"
	"math/bits"
)

// The quarter-turn search. A solution fixed by the quarter turn is a union
// of orbits of four queens (r, c), (c, n−1−r), (n−1−r, n−1−c), (n−1−c, r),
// plus for n mod 4 = 1 the centre queen. An orbit takes the same four rows
// and columns, and its sum and difference diagonals are the same four
// numbers, so one word holds the taken rows and columns and one the taken
// diagonals; the orbit of (r, c) fits when column c is free, c is neither
// r nor n−1−r, and the two diagonals of (r, c) itself are free. The search
// places a whole orbit in the lowest empty row, n/4 of them, the last one
// counted without being placed (docs/algorithms.md, "The symmetric
// solutions").

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
